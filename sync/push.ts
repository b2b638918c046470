/**
 * One push round: pending purges first, then the version log above the push cursor, in whole
 * transactions and bounded batches. Every answer is applied before the cursor moves: accepted and
 * existing versions take the server's numbering (reconcile), refused ones are parked with their
 * error, versions of memories the server erased are erased here. A transient failure stops the
 * round with the cursor where it was; pushing the same versions again is harmless.
 */
import type { MemoryEngine, VersionRow } from '../engine/index.js';
import { batchesOf, splitBatch, type Batch } from './batches.js';
import { reconcile, type ServerVersion } from './reconcile.js';
import type { SyncState } from './state.js';
import { SyncRequestError, type PushResult, type SyncTransport } from './transport.js';

/** Seqs read from the version log per step. */
const SCAN = 1000;

export interface PushContext {
  engine: MemoryEngine;
  transport: SyncTransport;
  state: SyncState;
  /** Versions per request. */
  batch: number;
  /** About this many bytes of JSON per request at most. */
  maxBytes: number;
  /** Highest seq whose append has completed: the round never reads past it. */
  committedSeq(): number;
  /** Erase a memory here because the server erased it. */
  purgeHere(memoryId: string): Promise<void>;
}

export interface PushReport {
  /** Versions sent (retries of a batch count once). */
  sent: number;
  accepted: number;
  exists: number;
  rejected: number;
  purged: number;
  /** Local purges the server has now applied. */
  purges: number;
  /** Versions this machine renumbered after the server's. */
  rebased: number;
  /** Time the round took. */
  ms: number;
}

export async function pushRound(ctx: PushContext, opts: { retryParked?: boolean } = {}): Promise<PushReport> {
  const t0 = performance.now();
  const report: PushReport = { sent: 0, accepted: 0, exists: 0, rejected: 0, purged: 0, purges: 0, rebased: 0, ms: 0 };
  await pushPurges(ctx, report, opts.retryParked === true);
  const touched = new Set<string>();
  if (opts.retryParked) await retryParked(ctx, report, touched);
  for (;;) {
    const after = ctx.state.pushedSeq;
    const committed = ctx.committedSeq();
    if (after >= committed) break;
    const { rows, end } = await readWindow(ctx.engine, after, committed);
    const read = { seqs: new Map(rows.map((r) => [r.version_id, r.seq])), touched };
    for (const b of batchesOf(rows.filter((r) => ctx.state.isPending(r)), ctx.batch, ctx.maxBytes)) await send(ctx, b, report, read);
    ctx.state.advancePushed(end);
    ctx.state.save();
  }
  ctx.state.notePush(report.sent);
  ctx.state.save();
  report.ms = performance.now() - t0;
  return report;
}

/**
 * The committed versions in (after, end], with `end` never cutting a transaction in two (a
 * transaction's rows have consecutive seqs; one that reaches past the window waits for the next).
 */
async function readWindow(engine: MemoryEngine, after: number, committed: number): Promise<{ rows: VersionRow[]; end: number }> {
  let span = Math.min(committed - after, SCAN);
  for (;;) {
    const rows = await engine.store.changes(after, span);
    const end = after + span;
    const last = rows[rows.length - 1];
    if (end >= committed || !last || last.seq !== end) return { rows, end };
    const first = Math.min(...rows.filter((r) => r.memory_id === last.memory_id && r.tx === last.tx).map((r) => r.seq));
    if (first > after + 1) return { rows: rows.filter((r) => r.seq < first), end: first - 1 };
    span = Math.min(committed - after, span * 2);
  }
}

async function pushPurges(ctx: PushContext, report: PushReport, retry: boolean): Promise<void> {
  for (const p of ctx.state.purges) {
    if (p.error && !retry) continue;
    try {
      await ctx.transport.purge(p.memory_id);
      ctx.state.purgeDone(p.memory_id);
      report.purges++;
    } catch (err) {
      if (!(err instanceof SyncRequestError) || (err.kind !== 'permanent' && err.kind !== 'too_large')) throw err;
      ctx.state.purgeRefused(p.memory_id, { code: err.code, message: err.message });
    }
    ctx.state.save();
  }
}

/** Send parked versions again (after the cause was fixed, e.g. a key with write permission). */
async function retryParked(ctx: PushContext, report: PushReport, touched: Set<string>): Promise<void> {
  const parked = ctx.state.parked;
  if (parked.length === 0) return;
  const ids = new Set(parked.map((p) => p.version_id));
  const rows = (await ctx.engine.store.versionsOf([...new Set(parked.map((p) => p.memory_id))])).filter((r) => ids.has(r.version_id));
  const found = new Set(rows.map((r) => r.version_id));
  for (const p of parked) if (!found.has(p.version_id)) ctx.state.unpark(p.version_id);
  const read = { seqs: new Map(rows.map((r) => [r.version_id, r.seq])), touched };
  for (const b of batchesOf(rows, ctx.batch, ctx.maxBytes)) await send(ctx, b, report, read);
}

/** Where the lines of a batch were read: their local seqs, and the memories reconciled this round. */
interface ReadContext {
  seqs: ReadonlyMap<string, number>;
  touched: Set<string>;
}

/**
 * Push one batch and apply the answers. A version the server stored exactly as sent needs no local
 * change, only to be marked as on the server — unless this round already rewrote versions of its
 * memory (the line read earlier may be stale), in which case it is reconciled like any other.
 */
async function send(ctx: PushContext, batch: Batch, report: PushReport, read: ReadContext): Promise<void> {
  let results: PushResult[];
  try {
    results = await ctx.transport.push(batch.lines);
  } catch (err) {
    if (!(err instanceof SyncRequestError)) throw err;
    if (err.kind === 'too_large') {
      const halves = splitBatch(batch);
      if (halves) {
        for (const h of halves) await send(ctx, h, report, read);
        return;
      }
    }
    if (err.kind !== 'permanent' && err.kind !== 'too_large') throw err;
    // The server refused the request as a whole for good (a read-only key, a body it cannot take):
    // park its versions so the rest of the outbox keeps moving.
    results = batch.lines.map((l) => ({ version_id: l.version_id, memory_id: l.memory_id, status: 'rejected', error: { code: err.code, message: err.message } }));
  }
  report.sent += batch.lines.length;
  const facts: ServerVersion[] = [];
  const purged = new Set<string>();
  const at = new Date().toISOString();
  results.forEach((res, i) => {
    const line = batch.lines[i]!;
    if ((res.status === 'accepted' || res.status === 'exists') && res.version !== undefined && res.tx !== undefined && res.recorded_at !== undefined) {
      report[res.status]++;
      ctx.state.unpark(line.version_id);
      const fact: ServerVersion = { version_id: line.version_id, memory_id: line.memory_id, version: res.version, tx: res.tx, recorded_at: Date.parse(res.recorded_at), owner_id: res.owner_id ?? null };
      const seq = read.seqs.get(line.version_id);
      const asSent = fact.version === line.version && fact.tx === line.tx && fact.recorded_at === Date.parse(line.recorded_at) && fact.owner_id === line.owner_id;
      if (asSent && seq !== undefined && !read.touched.has(line.memory_id)) ctx.state.markServer(seq);
      else facts.push(fact);
    } else if (res.status === 'purged') {
      report.purged++;
      purged.add(line.memory_id);
    } else {
      report.rejected++;
      ctx.state.park({ version_id: line.version_id, memory_id: line.memory_id, error: res.error ?? { code: 'REJECTED', message: 'the server refused this version' }, at });
    }
  });
  if (facts.length > 0) {
    report.rebased += (await ctx.engine.replicate((w) => reconcile(w, ctx.state, facts))).rebased;
    for (const f of facts) read.touched.add(f.memory_id);
  }
  for (const id of purged) await ctx.purgeHere(id);
  ctx.state.save();
}
