/**
 * Read what can still be read from a LanceDB store that no longer opens (a damaged data file, a
 * truncated manifest): the version log first, then the current view for whatever the log lost.
 * Used to rebuild a store moved aside; every failure is reported, never thrown.
 */
import { loadLanceRuntime, lance } from './lance-runtime.js';
import { fromRecord, type LanceRecord } from './lance-rows.js';
import type { VersionRow } from '../types.js';

export interface SalvageReport {
  /** Versions read back, each version_id once. */
  rows: VersionRow[];
  /** What could not be read (table: reason). */
  failures: string[];
}

export async function salvageLanceVersions(dir: string): Promise<SalvageReport> {
  const rows = new Map<string, VersionRow>();
  const failures: string[] = [];
  try {
    await loadLanceRuntime();
  } catch (err) {
    return { rows: [], failures: [`lancedb: ${String(err)}`] };
  }
  let db: Awaited<ReturnType<ReturnType<typeof lance>['connect']>> | null = null;
  try {
    db = await lance().connect(dir);
    const names = await db.tableNames();
    for (const name of ['versions', 'current']) {
      if (!names.includes(name)) continue;
      let tbl: Awaited<ReturnType<NonNullable<typeof db>['openTable']>> | null = null;
      try {
        tbl = await db.openTable(name);
        for await (const batch of tbl.query()) {
          for (const r of batch.toArray() as LanceRecord[]) {
            try {
              const row = fromRecord(r);
              if (!rows.has(row.version_id)) rows.set(row.version_id, row);
            } catch (err) {
              failures.push(`${name}: a row could not be decoded (${String(err)})`);
            }
          }
        }
      } catch (err) {
        failures.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        tbl?.close();
      }
    }
  } catch (err) {
    failures.push(`store: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    db?.close();
  }
  return { rows: [...rows.values()].sort((a, b) => a.seq - b.seq), failures };
}
