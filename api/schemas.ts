/** zod schemas of every request the memories API accepts. Parsing happens only here. */
import { z } from 'zod';
import { CATEGORIES, SCOPES, SPACES, isoTimeMs, isUuid, type MemoryFilter, type TimeRange } from '../engine/index.js';
import { httpError } from './http-error.js';

/** ISO-8601 time → epoch ms. */
export const isoTime = z
  .string()
  .max(64)
  .refine((s) => isoTimeMs(s) !== null, 'must be a real ISO-8601 time such as 2026-04-01T00:00:00Z')
  .transform((s) => isoTimeMs(s)!);

const id = z.string().min(1).max(256);
const nullableId = id.nullable();
const filterValue = z.union([z.string().max(1024), z.array(z.string().max(1024)).max(100), z.null()]);
const metadataValue = z.union([z.string().max(4096), z.number(), z.boolean(), z.null()]);
const range = z.object({ gte: isoTime.optional(), gt: isoTime.optional(), lte: isoTime.optional(), lt: isoTime.optional() }).strict();

export const filtersSchema = z
  .object({
    memory_ids: z.array(z.string().refine(isUuid, 'must be a UUID')).max(1000).optional(),
    user_id: filterValue.optional(),
    agent_id: filterValue.optional(),
    app_id: filterValue.optional(),
    run_id: filterValue.optional(),
    space: z.union([z.enum(SPACES), z.array(z.enum(SPACES))]).optional(),
    repo: filterValue.optional(),
    dir: filterValue.optional(),
    category: z.union([z.enum(CATEGORIES), z.array(z.enum(CATEGORIES))]).optional(),
    metadata: z.record(z.string().min(1).max(256), metadataValue).optional(),
    created_at: range.optional(),
    updated_at: range.optional(),
  })
  .strict();

const sourceSchema = z
  .object({
    kind: z.enum(['capture', 'remember', 'api', 'sync', 'import']),
    session_id: z.string().max(256).nullable().optional(),
    turn_uuid: z.string().max(256).nullable().optional(),
    tool: z.string().max(256).nullable().optional(),
  })
  .strict();

const memoryFields = {
  user_id: id.optional(),
  agent_id: nullableId.optional(),
  app_id: nullableId.optional(),
  run_id: nullableId.optional(),
  space: z.enum(SPACES).optional(),
  repo: z.string().max(1024).nullable().optional(),
  dir: z.string().max(1024).nullable().optional(),
  category: z.enum(CATEGORIES).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  source: sourceSchema.optional(),
  valid_from: isoTime.optional(),
  valid_to: isoTime.nullable().optional(),
};

export const addContentSchema = z
  .object({
    content: z.string().min(1, 'content must not be empty'),
    memory_id: z.string().refine(isUuid, 'must be a UUID').optional(),
    infer: z.literal(false).optional(),
    ...memoryFields,
  })
  .strict();

export const messageSchema = z
  .object({
    role: z.enum(['user', 'assistant', 'system', 'tool']),
    content: z.string().max(200_000),
    name: z.string().max(256).optional(),
  })
  .strict();

export const addMessagesSchema = z
  .object({
    messages: z.array(messageSchema).min(1, 'messages must hold at least one message').max(1000),
    infer: z.boolean().optional(),
    /** Queue the infer work and answer 202 with a job (PENDING → RUNNING → SUCCEEDED | FAILED). */
    async: z.boolean().optional(),
    ...memoryFields,
  })
  .strict();

export const searchSchema = z
  .object({
    query: z.string().min(1, 'query must not be empty').max(10_000),
    user_id: id.optional(),
    agent_id: id.optional(),
    app_id: id.optional(),
    run_id: id.optional(),
    repo: z.string().max(1024).optional(),
    dir: z.string().max(1024).optional(),
    scope: z.enum(SCOPES).optional(),
    filters: filtersSchema.optional(),
    top_k: z.number().int().min(1).max(100).optional(),
    threshold: z.number().min(0).max(1).optional(),
    valid_at: isoTime.optional(),
    known_at: isoTime.optional(),
    mode: z.enum(['hybrid', 'text', 'vector']).optional(),
  })
  .strict();

export const patchSchema = z
  .object({
    content: z.string().min(1, 'content must not be empty').optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    category: z.enum(CATEGORIES).optional(),
    space: z.enum(SPACES).optional(),
    repo: z.string().max(1024).nullable().optional(),
    dir: z.string().max(1024).nullable().optional(),
    valid_from: isoTime.optional(),
    valid_to: isoTime.nullable().optional(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, 'send at least one field to change');

/** Parse `body` or throw 422 with the first issue's path and message. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw httpError('VALIDATION_FAILED', 'request body must be a JSON object', { expected: 'object' });
  }
  const r = schema.safeParse(body);
  if (!r.success) throw validationError(r.error);
  return r.data;
}

export function validationError(error: z.ZodError): ReturnType<typeof httpError> {
  const issues = error.issues.slice(0, 10).map((i) => ({ path: i.path.join('.'), message: i.message }));
  const first = issues[0]!;
  const where = first.path ? `${first.path}: ` : '';
  return httpError('VALIDATION_FAILED', `${where}${first.message}`, { issues });
}

// ---- query strings (GET /v1/memories, DELETE /v1/memories)

const LIST_KEYS = new Set(['user_id', 'agent_id', 'app_id', 'run_id', 'space', 'repo', 'dir', 'category', 'created_after', 'created_before', 'updated_after', 'updated_before', 'valid_at', 'limit', 'cursor', 'purge', 'memory_id']);

function one(q: Record<string, unknown>, key: string): string | undefined {
  const v = q[key];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return v.map(String).join(',');
  return String(v);
}

/** Routes that take no query parameters refuse any (a typo must not be silently ignored). */
export function noQueryParams(q: Record<string, unknown>): void {
  const k = Object.keys(q)[0];
  if (k !== undefined) throw httpError('INVALID_REQUEST', `unknown query parameter "${k.slice(0, 80)}"; this route takes none`, { param: k.slice(0, 80) });
}

function time(q: Record<string, unknown>, key: string): number | undefined {
  const v = one(q, key);
  if (v === undefined) return undefined;
  const r = isoTime.safeParse(v);
  if (!r.success) throw httpError('INVALID_REQUEST', `${key} must be an ISO-8601 time such as 2026-04-01T00:00:00Z`, { param: key });
  return r.data;
}

/**
 * Filters from a query string. Lists use commas (`category=decision,constraint`), `null` matches a
 * missing value, metadata equality is `metadata.<key>=<value>`. Unknown parameters are rejected.
 */
export function filtersFromQuery(q: Record<string, unknown>): { filter: MemoryFilter; validAt?: number } {
  const filter: MemoryFilter = {};
  for (const key of Object.keys(q)) {
    if (!LIST_KEYS.has(key) && !key.startsWith('metadata.')) throw httpError('INVALID_REQUEST', `unknown query parameter "${key}"`, { param: key });
  }
  const listOf = (key: string): string[] | string | null | undefined => {
    const v = one(q, key);
    if (v === undefined) return undefined;
    if (v === 'null') return null;
    if (v.length > 4096) throw httpError('INVALID_REQUEST', `${key} is too long`, { param: key });
    const parts = v.split(',').filter((s) => s !== '');
    return parts.length === 1 ? parts[0]! : parts;
  };
  for (const key of ['user_id', 'agent_id', 'app_id', 'run_id', 'repo', 'dir'] as const) {
    const v = listOf(key);
    if (v !== undefined) filter[key] = v;
  }
  const space = listOf('space');
  if (space !== undefined) {
    const vals = space === null ? [] : Array.isArray(space) ? space : [space];
    for (const s of vals) if (!(SPACES as readonly string[]).includes(s)) throw httpError('INVALID_REQUEST', `space must be one of ${SPACES.join(', ')}`, { param: 'space' });
    filter.space = space as MemoryFilter['space'];
  }
  const category = listOf('category');
  if (category !== undefined) {
    const vals = category === null ? [] : Array.isArray(category) ? category : [category];
    for (const c of vals) if (!(CATEGORIES as readonly string[]).includes(c)) throw httpError('INVALID_REQUEST', `category must be one of ${CATEGORIES.join(', ')}`, { param: 'category' });
    filter.category = category as MemoryFilter['category'];
  }
  const memoryId = listOf('memory_id');
  if (memoryId !== undefined && memoryId !== null) {
    const ids = Array.isArray(memoryId) ? memoryId : [memoryId];
    for (const m of ids) if (!isUuid(m)) throw httpError('INVALID_REQUEST', 'memory_id must be a UUID', { param: 'memory_id' });
    filter.memory_ids = ids;
  }
  for (const key of Object.keys(q)) {
    if (!key.startsWith('metadata.')) continue;
    const name = key.slice('metadata.'.length);
    if (name === '' || name.length > 256) throw httpError('INVALID_REQUEST', 'metadata filter keys look like metadata.<key>=<value>', { param: key });
    const raw = one(q, key)!;
    filter.metadata = { ...(filter.metadata ?? {}), [name]: raw === 'null' ? null : raw === 'true' ? true : raw === 'false' ? false : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw };
  }
  const created: TimeRange = { gt: time(q, 'created_after'), lt: time(q, 'created_before') };
  if (created.gt !== undefined || created.lt !== undefined) filter.created_at = created;
  const updated: TimeRange = { gt: time(q, 'updated_after'), lt: time(q, 'updated_before') };
  if (updated.gt !== undefined || updated.lt !== undefined) filter.updated_at = updated;
  const validAt = time(q, 'valid_at');
  return validAt === undefined ? { filter } : { filter, validAt };
}

export function limitFromQuery(q: Record<string, unknown>, max: number, fallback = 100): number {
  const v = one(q, 'limit');
  if (v === undefined) return Math.min(fallback, max);
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > max) throw httpError('INVALID_REQUEST', `limit must be a whole number from 1 to ${max}`, { param: 'limit', max });
  return n;
}

export function flagFromQuery(q: Record<string, unknown>, key: string): boolean {
  const v = one(q, key);
  if (v === undefined || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1' || v === '') return true;
  throw httpError('INVALID_REQUEST', `${key} must be true or false`, { param: key });
}

export function asOfFromQuery(q: Record<string, unknown>): { valid_at?: number; known_at?: number } {
  for (const key of Object.keys(q)) {
    if (key !== 'valid_at' && key !== 'known_at') throw httpError('INVALID_REQUEST', `unknown query parameter "${key}"`, { param: key });
  }
  const out: { valid_at?: number; known_at?: number } = {};
  const v = time(q, 'valid_at');
  const k = time(q, 'known_at');
  if (v !== undefined) out.valid_at = v;
  if (k !== undefined) out.known_at = k;
  return out;
}

export function requireUuid(value: string, what = 'memory id'): string {
  if (!isUuid(value)) throw httpError('INVALID_REQUEST', `${what} "${value.slice(0, 80)}" is not a UUID`, { param: 'id' });
  return value;
}

/** Convert parsed filter bodies (ISO strings already turned into ms) into a MemoryFilter. */
export function toMemoryFilter(f: z.output<typeof filtersSchema> | undefined): MemoryFilter {
  if (!f) return {};
  const out: MemoryFilter = {};
  for (const [k, v] of Object.entries(f)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
