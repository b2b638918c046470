/**
 * Query-string validation and paging for the server's list routes. Every list takes `limit`
 * (1 to `SERVICE_PAGE_SIZE_MAX`, default 100) and an opaque `cursor` from the previous page's
 * `next_cursor`; unknown parameters are refused with 400.
 */
import { z } from 'zod';
import { httpError } from '../api/index.js';

/** Parse `req.query` with a strict zod object schema; 400 INVALID_REQUEST names the bad parameter. */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const r = schema.safeParse(query ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = String(issue.keys[0]);
    throw httpError('INVALID_REQUEST', `unknown query parameter "${key.slice(0, 64)}"`, { param: key.slice(0, 64) });
  }
  const param = issue.path.join('.');
  throw httpError('INVALID_REQUEST', `${param}: ${issue.message}`, { param });
}

/** The paging parameters, for spreading into a route's query schema. */
export const pageParams = {
  limit: z.string().regex(/^\d+$/, 'must be a whole number').optional(),
  cursor: z.string().max(200).optional(),
};

/** `limit` within 1..max (default 100, or max when smaller). */
export function pageLimit(limit: string | undefined, max: number): number {
  if (limit === undefined) return Math.min(100, max);
  const n = Number(limit);
  if (n < 1 || n > max) throw httpError('INVALID_REQUEST', `limit must be a whole number from 1 to ${max}`, { param: 'limit', max });
  return n;
}

function decodeOffset(cursor: string): number {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
    if (typeof v.o === 'number' && Number.isSafeInteger(v.o) && v.o > 0) return v.o;
  } catch {
    // fall through
  }
  throw httpError('INVALID_REQUEST', 'cursor is not valid; pass the next_cursor value of a previous page', { param: 'cursor' });
}

/** One page of an in-memory list (already in its final order). */
export function pageOf<T>(items: readonly T[], q: { limit?: string | undefined; cursor?: string | undefined }, max: number): { results: T[]; next_cursor: string | null } {
  const limit = pageLimit(q.limit, max);
  const offset = q.cursor === undefined ? 0 : decodeOffset(q.cursor);
  const results = items.slice(offset, offset + limit);
  const next = offset + limit;
  return { results, next_cursor: next < items.length ? Buffer.from(JSON.stringify({ o: next })).toString('base64url') : null };
}
