/**
 * A resident view's filters as comparisons of dictionary codes. Each row's filter fields are held
 * per slot as codes of one dictionary (ResidentView's `fieldCodes`); a search compiles its filter
 * once into the codes it allows, so candidates are checked without parsing their rows.
 */
import type { MemoryFilter } from '../types.js';

/** The row fields a filter compares for equality, held per slot as dictionary codes (`FILTER_FIELDS.length` per slot). */
export const FILTER_FIELDS = ['user_id', 'agent_id', 'app_id', 'run_id', 'owner_id', 'space', 'repo', 'dir', 'category'] as const;
/** Codes per slot. */
export const F = FILTER_FIELDS.length;
const OWNER = FILTER_FIELDS.indexOf('owner_id');
/** The code of a null field. */
const NULL_CODE = -1;
/** The code of a value no row holds (matches nothing). */
const ABSENT_CODE = -2;
/** Filter keys `compileFilter` answers from the codes; any other one is checked on the parsed row. */
const CODED_KEYS: ReadonlySet<string> = new Set([...FILTER_FIELDS, 'personal_owner', 'memory_ids', 'any_of']);

/** A filter as code comparisons: per field, the codes it allows (null: any). */
export interface CompiledFilter {
  fields: { at: number; codes: ReadonlySet<number> | number }[];
  personalOwner: number | null;
  /** Ids of `memories` (a memory the view does not hold cannot match). */
  memoryIds: ReadonlySet<number> | null;
  /** Alternatives, one of which must pass (the daemon's recall: project, personal, session). */
  anyOf: CompiledFilter[] | null;
}

/** The code in `dict` of a filter field's value, assigned on first sight. */
export function codeFor(dict: Map<string, number>, value: string | null): number {
  if (value === null) return NULL_CODE;
  let code = dict.get(value);
  if (code === undefined) dict.set(value, (code = dict.size));
  return code;
}

/**
 * `f` as code comparisons, or null when it says something the codes do not hold (metadata, time
 * ranges): those searches check each candidate on its parsed row. `memoryId` gives the view's id
 * of a memory_id (-1: not held).
 */
export function compileFilter(f: MemoryFilter, dict: ReadonlyMap<string, number>, memoryId: (id: string) => number): CompiledFilter | null {
  const fields: CompiledFilter['fields'] = [];
  let anyOf: CompiledFilter[] | null = null;
  for (const k in f) {
    const want = (f as Record<string, unknown>)[k];
    if (want === undefined) continue;
    if (!CODED_KEYS.has(k)) return null;
    if (k === 'any_of') {
      anyOf = [];
      for (const sub of want as MemoryFilter[]) {
        const c = compileFilter(sub, dict, memoryId);
        if (!c) return null;
        anyOf.push(c);
      }
      continue;
    }
    const at = (FILTER_FIELDS as readonly string[]).indexOf(k);
    if (at < 0) continue;
    const code = (v: string | null): number => (v === null ? NULL_CODE : (dict.get(v) ?? ABSENT_CODE));
    if (Array.isArray(want)) fields.push({ at, codes: new Set((want as string[]).map(code).filter((c) => c !== ABSENT_CODE && c !== NULL_CODE)) });
    else fields.push({ at, codes: code(want as string | null) });
  }
  const owner = f.personal_owner;
  return { fields, personalOwner: owner === undefined ? null : (dict.get(owner) ?? ABSENT_CODE), memoryIds: f.memory_ids ? new Set(f.memory_ids.map(memoryId).filter((m) => m >= 0)) : null, anyOf };
}

/**
 * Whether the row in `slot` passes a compiled filter (the semantics of `matchesFilter`), read from
 * a view's per-slot arrays (ResidentView's fields of the same names).
 */
export function matchesCodes(slot: number, c: CompiledFilter, fieldCodes: Int32Array, memoryOf: Int32Array, slotMeta: Float64Array): boolean {
  const base = slot * F;
  for (const { at, codes } of c.fields) {
    const have = fieldCodes[base + at]!;
    if (typeof codes === 'number' ? have !== codes : !codes.has(have)) return false;
  }
  if (c.memoryIds && !c.memoryIds.has(memoryOf[slot]!)) return false;
  if (c.personalOwner !== null && slotMeta[3 * slot + 2] === 1 && fieldCodes[base + OWNER] !== c.personalOwner) return false;
  if (c.anyOf && !c.anyOf.some((sub) => matchesCodes(slot, sub, fieldCodes, memoryOf, slotMeta))) return false;
  return true;
}
