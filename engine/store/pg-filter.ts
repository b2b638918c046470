/**
 * MemoryFilter as a PostgreSQL WHERE clause. Every value travels as a bind parameter (never
 * spliced into the text), and the clause means exactly what `matchesFilter` (filter.ts) means.
 */
import type { FilterValue, MemoryFilter, TimeRange } from '../types.js';

/** Bind parameters of one statement; `add` returns the placeholder of a value. */
export class SqlParams {
  readonly values: unknown[];
  constructor(initial: readonly unknown[] = []) {
    this.values = [...initial];
  }
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

const COLUMNS = ['user_id', 'agent_id', 'app_id', 'run_id', 'owner_id', 'space', 'repo', 'dir', 'category'] as const;

function valueClause(col: string, want: FilterValue, p: SqlParams): string {
  if (want === null) return `${col} IS NULL`;
  if (Array.isArray(want)) return `${col} = ANY(${p.add(want)}::text[])`;
  return `${col} = ${p.add(want)}`;
}

function rangeClauses(col: string, r: TimeRange, p: SqlParams): string[] {
  const out: string[] = [];
  if (r.gte !== undefined) out.push(`${col} >= ${p.add(r.gte)}::bigint`);
  if (r.gt !== undefined) out.push(`${col} > ${p.add(r.gt)}::bigint`);
  if (r.lte !== undefined) out.push(`${col} <= ${p.add(r.lte)}::bigint`);
  if (r.lt !== undefined) out.push(`${col} < ${p.add(r.lt)}::bigint`);
  return out;
}

/** The filter's conditions on table alias `t`, ANDed ('TRUE' when there are none). */
export function filterSql(f: MemoryFilter, p: SqlParams, t = 'v'): string {
  const out: string[] = [];
  if (f.memory_ids) out.push(`${t}.memory_id = ANY(${p.add(f.memory_ids)}::text[])`);
  for (const c of COLUMNS) {
    const want = f[c] as FilterValue | undefined;
    if (want !== undefined) out.push(valueClause(`${t}.${c}`, want, p));
  }
  if (f.metadata) {
    for (const [k, v] of Object.entries(f.metadata)) out.push(`(${t}.metadata::jsonb -> ${p.add(k)}::text) = ${p.add(JSON.stringify(v))}::jsonb`);
  }
  if (f.created_at) out.push(...rangeClauses(`${t}.created_at`, f.created_at, p));
  if (f.updated_at) out.push(...rangeClauses(`${t}.recorded_at`, f.updated_at, p));
  if (f.personal_owner !== undefined) out.push(`(${t}.space <> 'personal' OR ${t}.owner_id = ${p.add(f.personal_owner)})`);
  if (f.any_of) out.push(f.any_of.length === 0 ? 'FALSE' : `(${f.any_of.map((sub) => `(${filterSql(sub, p, t)})`).join(' OR ')})`);
  return out.length > 0 ? out.join(' AND ') : 'TRUE';
}

/** Rows of alias `t` valid at `at` (half-open interval). */
export function validSql(at: number, p: SqlParams, t = 'v'): string {
  const x = p.add(at);
  return `${t}.valid_from <= ${x}::bigint AND (${t}.valid_to IS NULL OR ${x}::bigint < ${t}.valid_to)`;
}
