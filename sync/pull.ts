/**
 * One pull round: follow `GET /v1/events?after=` (memory events only) until the feed has no more,
 * applying each page in one replication step and saving the cursor after it. A new machine starts
 * at 0, so its first round is the project's whole history (bootstrap). Versions that came from the
 * server are recorded as such, so the push loop never sends them back.
 */
import { parseVersionRecord, type Logger, type MemoryEngine } from '../engine/index.js';
import { reconcile, type ServerVersion } from './reconcile.js';
import type { SyncState } from './state.js';
import type { SyncTransport } from './transport.js';

/** Events per page (the server caps `limit` at its SERVICE_PAGE_SIZE_MAX, default 1000). */
export const PULL_PAGE = 1000;

const VERSION_EVENTS = new Set(['memory.added', 'memory.updated', 'memory.deleted']);

export interface PullContext {
  engine: MemoryEngine;
  transport: SyncTransport;
  state: SyncState;
  log: Logger;
  /** Erase a memory here because the server erased it. */
  purgeHere(memoryId: string): Promise<void>;
}

export interface PullReport {
  /** Events read. */
  events: number;
  /** Versions this machine did not have, now stored. */
  inserted: number;
  /** Versions of this machine whose numbering the feed corrected. */
  adopted: number;
  /** Unacknowledged versions of this machine moved after the server's. */
  rebased: number;
  /** Memories erased here because they were erased on the server. */
  purged: number;
  /** Malformed events skipped. */
  skipped: number;
  /** The server's feed was behind this machine's cursor (a restored server): sync started over. */
  restarted: boolean;
  /** Time the round took. */
  ms: number;
}

export async function pullRound(ctx: PullContext): Promise<PullReport> {
  const t0 = performance.now();
  const report: PullReport = { events: 0, inserted: 0, adopted: 0, rebased: 0, purged: 0, skipped: 0, restarted: false, ms: 0 };
  for (;;) {
    const page = await ctx.transport.events(ctx.state.pullAfter, PULL_PAGE);
    if (page.last_seq < ctx.state.pullAfter) {
      // The feed is shorter than what this machine already read: the server was restored from an
      // older backup. Start over against it: push everything (what it has answers `exists`) and
      // pull its whole feed (what is here already is skipped).
      ctx.log.warn('the server’s event feed went back; pushing everything and pulling it again', { last_seq: page.last_seq, pull_after: ctx.state.pullAfter });
      ctx.state.retarget(ctx.state.target ?? ctx.transport.baseUrl);
      report.restarted = true;
      continue;
    }
    report.events += page.results.length;
    const versions: ServerVersion[] = [];
    const purged: string[] = [];
    for (const e of page.results) {
      if (e.type === 'memory.purged' && e.memory_id) {
        purged.push(e.memory_id);
        continue;
      }
      if (!VERSION_EVENTS.has(e.type) || (e.data as { purged?: unknown } | null)?.purged === true) continue;
      let row;
      try {
        row = parseVersionRecord(e.data, e.seq);
      } catch (err) {
        report.skipped++;
        ctx.log.warn('skipped a malformed event of the feed', { seq: e.seq, err });
        continue;
      }
      // Erased here and not yet on the server: the purge wins, the old version is not brought back.
      if (ctx.state.hasPurge(row.memory_id)) continue;
      versions.push({ version_id: row.version_id, memory_id: row.memory_id, version: row.version, tx: row.tx, recorded_at: row.recorded_at, owner_id: row.owner_id, row });
    }
    if (versions.length > 0) {
      const r = await ctx.engine.replicate((w) => reconcile(w, ctx.state, versions));
      report.inserted += r.inserted;
      report.adopted += r.adopted;
      report.rebased += r.rebased;
    }
    for (const id of purged) {
      await ctx.purgeHere(id);
      report.purged++;
    }
    ctx.state.setPullAfter(page.next_after);
    ctx.state.save();
    if (!page.has_more) break;
  }
  ctx.state.notePull(report.inserted);
  ctx.state.save();
  report.ms = performance.now() - t0;
  return report;
}
