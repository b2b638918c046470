/**
 * MemoryFilter → LanceDB (DataFusion SQL) where-clause. Values are only ever rendered through
 * `sqlString` / `sqlNumber`; column names come from a fixed list, never from input.
 */
import { EngineError } from '../errors.js';
import type { FilterValue, MemoryFilter, TimeRange } from '../types.js';
import { metadataToken } from './filter.js';

/** A SQL string literal: single quotes, embedded quotes doubled. Backslashes are literal here. */
export function sqlString(value: string): string {
  if (typeof value !== 'string') throw new EngineError('VALIDATION', 'filter values must be strings');
  return `'${value.replace(/'/g, "''")}'`;
}

export function sqlNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new EngineError('VALIDATION', 'filter bounds must be finite numbers');
  return String(Math.trunc(value));
}

const COLUMNS = {
  user_id: 'user_id',
  agent_id: 'agent_id',
  app_id: 'app_id',
  run_id: 'run_id',
  owner_id: 'owner_id',
  space: '`space`',
  repo: 'repo',
  dir: '`dir`',
  category: 'category',
} as const;

function valueClause(column: string, want: FilterValue): string {
  if (want === null) return `${column} IS NULL`;
  if (Array.isArray(want)) {
    if (want.length === 0) return 'FALSE';
    return `${column} IN (${want.map(sqlString).join(', ')})`;
  }
  return `${column} = ${sqlString(want)}`;
}

function rangeClause(column: string, r: TimeRange): string[] {
  const out: string[] = [];
  if (r.gte !== undefined) out.push(`${column} >= ${sqlNumber(r.gte)}`);
  if (r.gt !== undefined) out.push(`${column} > ${sqlNumber(r.gt)}`);
  if (r.lte !== undefined) out.push(`${column} <= ${sqlNumber(r.lte)}`);
  if (r.lt !== undefined) out.push(`${column} < ${sqlNumber(r.lt)}`);
  return out;
}

/** Conditions for a filter; join with AND. Empty array = no restriction. */
export function filterClauses(f: MemoryFilter): string[] {
  const out: string[] = [];
  if (f.memory_ids) out.push(f.memory_ids.length === 0 ? 'FALSE' : `memory_id IN (${f.memory_ids.map(sqlString).join(', ')})`);
  for (const [key, column] of Object.entries(COLUMNS) as [keyof typeof COLUMNS, string][]) {
    const want = f[key] as FilterValue | undefined;
    if (want !== undefined) out.push(valueClause(column, want));
  }
  if (f.metadata) {
    for (const [k, v] of Object.entries(f.metadata)) {
      out.push(`array_has_any(meta_kv, [${sqlString(metadataToken(k, v))}])`);
    }
  }
  if (f.created_at) out.push(...rangeClause('created_at', f.created_at));
  if (f.updated_at) out.push(...rangeClause('recorded_at', f.updated_at));
  if (f.personal_owner !== undefined) out.push(`(\`space\` <> 'personal' OR owner_id = ${sqlString(f.personal_owner)})`);
  if (f.any_of) {
    const alternatives = f.any_of.map((sub) => whereOf(filterClauses(sub)) ?? 'TRUE');
    out.push(alternatives.length === 0 ? 'FALSE' : alternatives.map((a) => `(${a})`).join(' OR '));
  }
  return out;
}

export function validAtClause(t: number): string {
  const n = sqlNumber(t);
  return `valid_from <= ${n} AND (valid_to IS NULL OR valid_to > ${n})`;
}

/**
 * The valid-time clause with the halves that cannot exclude anything left out (see
 * `Catalog.validityNeeds`); null when neither half is needed.
 */
export function validityClause(t: number, needs: { from: boolean; to: boolean }): string | null {
  const n = sqlNumber(t);
  if (needs.from && needs.to) return validAtClause(t);
  if (needs.from) return `valid_from <= ${n}`;
  if (needs.to) return `valid_to IS NULL OR valid_to > ${n}`;
  return null;
}

export function whereOf(parts: string[]): string | undefined {
  return parts.length === 0 ? undefined : parts.map((p) => `(${p})`).join(' AND ');
}
