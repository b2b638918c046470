/**
 * A page of `MemoryEngine.list`: current memories newest first, and the opaque cursor of the next
 * page (the seq of this page's last row, for the next page to start below).
 */
import type { Clock } from './clock.js';
import type { ListInput } from './engine-types.js';
import { EngineError } from './errors.js';
import type { MemoryStore } from './store/types.js';
import type { VersionRow } from './types.js';

export async function listPage(store: MemoryStore, clock: Clock, input: ListInput): Promise<{ results: VersionRow[]; next_cursor: string | null }> {
  const before = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  const validAt = input.valid_at ?? clock.now();
  // Fetch a little more than a page so a memory's rows are not split across pages.
  const rows = await store.list(input.filter, { limit: input.limit + 1, beforeSeq: before, validAt });
  const page = rows.slice(0, input.limit);
  const more = rows.length > input.limit;
  const results: VersionRow[] = [];
  const seen = new Set<string>();
  for (const r of page) {
    if (seen.has(r.memory_id)) continue;
    seen.add(r.memory_id);
    results.push(r);
  }
  const last = page[page.length - 1];
  return { results, next_cursor: more && last ? encodeCursor(last.seq) : null };
}

export function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ s: seq })).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown };
    if (typeof v.s === 'number' && Number.isSafeInteger(v.s) && v.s > 0) return v.s;
  } catch {
    // fall through
  }
  throw new EngineError('VALIDATION', 'cursor is not valid; pass the next_cursor value of a previous page', { field: 'cursor' });
}
