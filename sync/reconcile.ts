/**
 * The conflict rule, applied on a machine (DESIGN.md §7, docs/api.md "Sync"): the server's
 * numbering is the truth, and this machine's unacknowledged transactions are rebased on top of it.
 *
 * Given what the server says about some versions (acknowledgements of a push: numbers and
 * bookkeeping; pages of the feed: whole versions), for every memory concerned:
 * 1. a version stored here takes the server's version, tx, recorded_at and owner_id;
 * 2. a version the server has and this machine lacks is inserted as the server numbered it;
 * 3. this machine's own versions the server does not have yet (pending, or parked) keep their order
 *    and move, as whole transactions, after the last version the server holds — so a concurrent
 *    edit made here stays in history and becomes current once the server sequences it after the
 *    other machine's, exactly as on every other machine.
 * Runs inside `MemoryEngine.replicate`, so no local write interleaves.
 */
import { renumberAfter, transactions, type PlannedRow, type ReplicaWriter, type VersionRow } from '../engine/index.js';

/** What the server holds for one version: its numbers, plus the whole row when it came from the feed. */
export interface ServerVersion {
  version_id: string;
  memory_id: string;
  version: number;
  tx: number;
  recorded_at: number;
  owner_id: string | null;
  /** The full version (feed pages); absent for push acknowledgements. */
  row?: PlannedRow;
}

/** Which stored versions are already on the server (sync state). */
export interface Ledger {
  isServer(row: VersionRow): boolean;
  markServer(seq: number): void;
}

export interface ReconcileReport {
  /** Server versions this machine lacked, now stored. */
  inserted: number;
  /** Stored versions that took the server's numbering. */
  adopted: number;
  /** This machine's unacknowledged versions moved after the server's. */
  rebased: number;
}

export async function reconcile(w: ReplicaWriter, ledger: Ledger, server: readonly ServerVersion[]): Promise<ReconcileReport> {
  const report: ReconcileReport = { inserted: 0, adopted: 0, rebased: 0 };
  if (server.length === 0) return report;
  const facts = new Map(server.map((s) => [s.version_id, s]));
  const local = await w.versionsOf([...new Set(server.map((s) => s.memory_id))]);
  const byMemory = new Map<string, VersionRow[]>();
  for (const r of local) byMemory.set(r.memory_id, [...(byMemory.get(r.memory_id) ?? []), r]);
  const localIds = new Set(local.map((r) => r.version_id));

  const rewrites: PlannedRow[] = [];
  const rewrittenServer = new Set<string>();
  const keptServerSeqs: number[] = [];
  const inserts: PlannedRow[] = [];
  for (const s of server) if (!localIds.has(s.version_id) && s.row) inserts.push({ ...s.row, version: s.version, tx: s.tx, recorded_at: s.recorded_at, owner_id: s.owner_id });

  for (const memoryId of new Set(server.map((s) => s.memory_id))) {
    const rows = byMemory.get(memoryId) ?? [];
    const onServer: { row: VersionRow; next: PlannedRow; changed: boolean }[] = [];
    let mine: VersionRow[] = [];
    for (const r of rows) {
      const f = facts.get(r.version_id);
      if (f) {
        const changed = r.version !== f.version || r.tx !== f.tx || r.recorded_at !== f.recorded_at || r.owner_id !== f.owner_id;
        onServer.push({ row: r, next: { ...r, version: f.version, tx: f.tx, recorded_at: f.recorded_at, owner_id: f.owner_id }, changed });
      } else if (ledger.isServer(r)) onServer.push({ row: r, next: r, changed: false });
      else mine.push(r);
    }
    const taken = new Set<number>();
    for (const s of [...onServer.filter((x) => facts.has(x.row.version_id)).map((x) => x.next), ...inserts.filter((x) => x.memory_id === memoryId)]) taken.add(s.version);
    // A version believed on the server whose number the server now gives another is stale: it is
    // treated as this machine's own, moved out of the way and confirmed by its next push.
    const stale = onServer.filter((x) => !facts.has(x.row.version_id) && taken.has(x.row.version));
    if (stale.length > 0) {
      mine = [...mine, ...stale.map((x) => x.row)].sort((a, b) => a.version - b.version);
      for (const x of stale) onServer.splice(onServer.indexOf(x), 1);
    }
    for (const x of onServer) taken.add(x.next.version);
    const top = Math.max(0, ...taken);
    for (const x of onServer) {
      if (x.changed) {
        rewrites.push(x.next);
        rewrittenServer.add(x.row.version_id);
        report.adopted++;
      } else keptServerSeqs.push(x.row.seq);
    }
    if (mine.length > 0 && mine.some((r) => r.version <= top)) {
      const moved = renumberAfter(transactions(mine), top).flat();
      for (const r of moved) {
        rewrites.push(r);
        report.rebased++;
      }
    }
  }

  for (const seq of keptServerSeqs) ledger.markServer(seq);
  // Rewrite first: it moves this machine's versions off the numbers the inserts take.
  for (const r of await w.rewrite(rewrites)) if (rewrittenServer.has(r.version_id)) ledger.markServer(r.seq);
  for (const r of await w.append(inserts)) ledger.markServer(r.seq);
  report.inserted = inserts.length;
  return report;
}
