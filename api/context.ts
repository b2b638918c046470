/**
 * What a host (daemon or server) hands the /v1 routes for each request, in `res.locals.ctx`:
 * which engine to use and what the caller may see and do.
 */
import type { Response } from 'express';
import type { Extractor, IngestResult, MemoryEngine, MemoryFilter, PlannedRow } from '../engine/index.js';
import type { ExportJobStore } from './export-jobs.js';
import type { InferJobStore } from './infer-jobs.js';
import type { InferInput } from './infer.js';
import { httpError } from './http-error.js';
import type { IdempotencyStore } from './idempotency.js';

export type Permission = 'read' | 'write' | 'admin';

export interface ApiContext {
  engine: MemoryEngine;
  /** Stable id of the caller (a key id, or "local"): scopes idempotency keys and export ownership. */
  principal: string;
  /** Where the principal acts (the server's project): idempotency keys are scoped to it too. */
  tenant?: string;
  permissions: ReadonlySet<Permission>;
  /** ANDed into every read: what this caller may see (e.g. only their own personal memories). */
  readFilter: MemoryFilter;
  /** Owner stamped on personal memories this caller writes. */
  ownerId: string | null;
  /** Used when a write omits user_id (the daemon's configured user); null = user_id required. */
  defaultUserId: string | null;
  exports: ExportJobStore;
  idempotency: IdempotencyStore;
  /** Turns `messages` into memory candidates for `infer: true` adds. */
  extractor: Extractor;
  /** Runs `infer` adds queued with `async: true`; absent where the host only runs them inline. */
  inferJobs?: InferJobStore<InferInput, IngestResult[]>;
  /** Rewrite (or refuse, by throwing) each imported row: tenancy rules of the host. */
  importRewrite?: (row: PlannedRow) => PlannedRow;
  /** Check a whole import before anything is stored (throw to refuse it): tenancy rules of the host. */
  importGuard?: (rows: readonly PlannedRow[]) => Promise<void>;
  /** Notified of import completion (the server records an event). */
  onImport?: (result: { imported: number; skipped: number; memories: number }) => void;
  limits: { pageSizeMax: number };
  /** The store's change number the host read after this request arrived (StoreSearch.changeSeen): searches need not read it again. */
  storeChangeSeen?: number | undefined;
}

export function ctxOf(res: Response): ApiContext {
  const ctx = res.locals.ctx as ApiContext | undefined;
  if (!ctx) throw new Error('no API context: the host must set res.locals.ctx before the /v1 router');
  return ctx;
}

export function requirePermission(ctx: ApiContext, perm: Permission): void {
  if (!ctx.permissions.has(perm)) {
    throw httpError('FORBIDDEN', `this key lacks the "${perm}" permission; ask a project admin for a key that has it`, { required: perm });
  }
}
