/**
 * MemoryFilter semantics in plain code: the in-memory store uses it directly, and it is the
 * reference the LanceDB where-clause translation must agree with (tested on both stores).
 */
import type { FilterValue, MemoryFilter, TimeRange, VersionRow } from '../types.js';

function matchValue(actual: string | null, want: FilterValue | undefined): boolean {
  if (want === undefined) return true;
  if (want === null) return actual === null;
  if (Array.isArray(want)) return actual !== null && want.includes(actual);
  return actual === want;
}

function inRange(t: number, r: TimeRange | undefined): boolean {
  if (!r) return true;
  if (r.gte !== undefined && !(t >= r.gte)) return false;
  if (r.gt !== undefined && !(t > r.gt)) return false;
  if (r.lte !== undefined && !(t <= r.lte)) return false;
  if (r.lt !== undefined && !(t < r.lt)) return false;
  return true;
}

export function matchesFilter(row: VersionRow, f: MemoryFilter): boolean {
  if (f.memory_ids && !f.memory_ids.includes(row.memory_id)) return false;
  if (!matchValue(row.user_id, f.user_id)) return false;
  if (!matchValue(row.agent_id, f.agent_id)) return false;
  if (!matchValue(row.app_id, f.app_id)) return false;
  if (!matchValue(row.run_id, f.run_id)) return false;
  if (!matchValue(row.owner_id, f.owner_id)) return false;
  if (!matchValue(row.space, f.space)) return false;
  if (!matchValue(row.repo, f.repo)) return false;
  if (!matchValue(row.dir, f.dir)) return false;
  if (!matchValue(row.category, f.category)) return false;
  if (f.metadata) {
    for (const [k, v] of Object.entries(f.metadata)) {
      if (!Object.prototype.hasOwnProperty.call(row.metadata, k)) return false;
      if (row.metadata[k] !== v) return false;
    }
  }
  if (!inRange(row.created_at, f.created_at)) return false;
  if (!inRange(row.recorded_at, f.updated_at)) return false;
  if (f.personal_owner !== undefined && row.space === 'personal' && row.owner_id !== f.personal_owner) return false;
  if (f.any_of && !f.any_of.some((sub) => matchesFilter(row, sub))) return false;
  return true;
}

/** The metadata equality tokens a row is indexed under: one per top-level scalar entry. */
export function metadataTokens(metadata: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(metadata)) {
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out.push(metadataToken(k, v));
  }
  return out;
}

export function metadataToken(key: string, value: string | number | boolean | null): string {
  return JSON.stringify([key, value]);
}
