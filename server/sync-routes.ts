/**
 * POST /v1/sync/push: where each machine's sync outbox lands (docs/api.md, "Sync"). The server is
 * the sequencer of a project's history: it takes pushed transactions one request at a time (the
 * engine's write lock), in the order given, and answers with what it made of each version.
 *
 * - Idempotent by version id: a version already stored answers `exists` with the server's numbers,
 *   so a retried batch never duplicates anything.
 * - A transaction whose version numbers are taken (another machine edited the same memory first)
 *   is renumbered to follow the memory's last version, and re-stamped when it was recorded before
 *   it (engine/replica.ts). Both edits stay in history; the later-sequenced one is current.
 * - Tenancy as for imports: personal versions are stamped with the caller's member as owner; a
 *   memory held by another member's personal space is refused; a purged memory is never revived.
 * - Each version answers on its own (`accepted`, `exists`, `rejected` with an error, `purged`);
 *   only a request that is wrong as a whole fails as a whole.
 */
import { Router } from 'express';
import { z } from 'zod';
import { ctxOf, parseBody, requirePermission, toHttpError, type ApiContext } from '../api/index.js';
import { checkTransaction, iso, parseVersionRecord, sequenceTransaction, type MemoryEngine, type PlannedRow, type VersionRow } from '../engine/index.js';
import { callerOfRes } from './auth.js';
import { projectOf } from './context.js';

/** Most versions one push may carry. */
export const SYNC_PUSH_MAX = 1000;

const pushSchema = z.object({ versions: z.array(z.unknown()).min(1, 'send at least one version').max(SYNC_PUSH_MAX) }).strict();

export type PushStatus = 'accepted' | 'exists' | 'rejected' | 'purged';

export interface PushResult {
  version_id: string | null;
  memory_id: string | null;
  status: PushStatus;
  /** The server's numbering and bookkeeping of the version (accepted and exists). */
  version?: number;
  tx?: number;
  recorded_at?: string;
  owner_id?: string | null;
  error?: { code: string; message: string };
}

interface Group {
  /** Indexes of the request's versions in this transaction. */
  at: number[];
  rows: PlannedRow[];
}

export function syncRoutes(): Router {
  const r = Router();

  r.post('/sync/push', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'write');
    const body = parseBody(pushSchema, req.body);
    const project = projectOf(res);
    const member = callerOfRes(res).member.member_id;
    const results: PushResult[] = body.versions.map((v) => ({ version_id: stringField(v, 'version_id'), memory_id: stringField(v, 'memory_id'), status: 'rejected' }));
    const groups = groupTransactions(body.versions, results, ctx, project.engine);
    await project.engine.replicate(async (w) => {
      const ids = [...new Set(groups.map((g) => g.rows[0]!.memory_id))];
      const history = new Map<string, VersionRow[]>();
      for (const v of await w.versionsOf(ids)) history.set(v.memory_id, [...(history.get(v.memory_id) ?? []), v]);
      const toAppend: PlannedRow[] = [];
      const now = project.engine.now();
      for (const g of groups) {
        const memoryId = g.rows[0]!.memory_id;
        const known = history.get(memoryId) ?? [];
        if (known.length === 0 && project.log.lastEventOf(memoryId)?.type === 'memory.purged') {
          for (const i of g.at) results[i] = { ...results[i]!, status: 'purged' };
          continue;
        }
        if (known.some((v) => v.space === 'personal' && v.owner_id !== member)) {
          reject(results, g.at, 'CONFLICT', `memory ${memoryId} belongs to another member; nothing of it was stored`);
          continue;
        }
        let out: ReturnType<typeof sequenceTransaction<VersionRow>>;
        try {
          out = sequenceTransaction(known, g.rows, now);
        } catch (err) {
          rejectWith(results, g.at, err);
          continue;
        }
        g.rows.forEach((row, k) => {
          const done = out.rows.find((x) => x.version_id === row.version_id)!;
          results[g.at[k]!] = { ...results[g.at[k]!]!, status: out.status, version: done.version, tx: done.tx, recorded_at: iso(done.recorded_at)!, owner_id: done.owner_id };
        });
        if (out.status === 'accepted') {
          toAppend.push(...out.rows);
          history.set(memoryId, [...known, ...out.rows.map((x) => ({ ...x, seq: 0 }))]);
        }
      }
      await w.append(toAppend);
    });
    res.json({ results });
  });

  return r;
}

/**
 * Validate each version on its own, apply the host's tenancy rewrite, and group consecutive
 * versions of one memory sharing `tx` into transactions. Invalid versions (and the rest of their
 * transaction) get a `rejected` result; the others come back as groups, in request order.
 */
function groupTransactions(versions: readonly unknown[], results: PushResult[], ctx: ApiContext, engine: MemoryEngine): Group[] {
  const parsed = versions.map((raw, i): PlannedRow | Error => {
    try {
      const row = parseVersionRecord(raw, i + 1);
      const rewritten = ctx.importRewrite ? ctx.importRewrite(row) : row;
      engine.checkReplicaRow(rewritten);
      return rewritten;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    }
  });
  const spans: number[][] = [];
  let key: string | null = null;
  versions.forEach((raw, i) => {
    const k = `${results[i]!.memory_id}:${String((raw as { tx?: unknown } | null)?.tx)}`;
    if (k !== key) spans.push([]);
    key = k;
    spans[spans.length - 1]!.push(i);
  });
  const groups: Group[] = [];
  for (const at of spans) {
    const bad = at.filter((i) => parsed[i] instanceof Error);
    if (bad.length > 0) {
      reject(results, at, 'VALIDATION_FAILED', 'another version of its transaction was refused');
      for (const i of bad) rejectWith(results, [i], parsed[i]);
      continue;
    }
    const rows = at.map((i) => parsed[i] as PlannedRow);
    try {
      checkTransaction(rows);
      groups.push({ at, rows });
    } catch (err) {
      rejectWith(results, at, err);
    }
  }
  return groups;
}

function rejectWith(results: PushResult[], at: readonly number[], err: unknown): void {
  const he = toHttpError(err);
  reject(results, at, he.code, he.status >= 500 ? 'the server could not check this version' : he.message);
}

function reject(results: PushResult[], at: readonly number[], code: string, message: string): void {
  for (const i of at) results[i] = { ...results[i]!, status: 'rejected', error: { code, message } };
}

function stringField(v: unknown, key: string): string | null {
  const x = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return typeof x === 'string' ? x : null;
}
