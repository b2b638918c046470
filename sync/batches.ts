/**
 * Cutting the outbox into push requests: whole transactions only (the server sequences a
 * transaction as one unit, so its rows never travel in two requests), at most `maxVersions`
 * versions and about `maxBytes` of JSON per request. A transaction larger than the limits travels
 * alone.
 */
import { exportLine, type ExportLine, type VersionRow } from '../engine/index.js';

/** Default ceiling of one push body: well under the server's default 1 MiB JSON limit. */
export const PUSH_MAX_BYTES = 256 * 1024;

export interface Batch {
  lines: ExportLine[];
  bytes: number;
}

/** Group rows into transactions (same memory and tx), in order of first appearance. */
export function transactionsOf(rows: readonly VersionRow[]): VersionRow[][] {
  const groups = new Map<string, VersionRow[]>();
  for (const r of rows) {
    const key = `${r.memory_id}:${r.tx}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map((g) => g.sort((a, b) => a.version - b.version));
}

export function batchesOf(rows: readonly VersionRow[], maxVersions: number, maxBytes = PUSH_MAX_BYTES): Batch[] {
  const out: Batch[] = [];
  let cur: Batch = { lines: [], bytes: 0 };
  for (const tx of transactionsOf(rows)) {
    const lines = tx.map(exportLine);
    const bytes = lines.reduce((n, l) => n + Buffer.byteLength(JSON.stringify(l)) + 1, 0);
    if (cur.lines.length > 0 && (cur.lines.length + lines.length > maxVersions || cur.bytes + bytes > maxBytes)) {
      out.push(cur);
      cur = { lines: [], bytes: 0 };
    }
    cur.lines.push(...lines);
    cur.bytes += bytes;
  }
  if (cur.lines.length > 0) out.push(cur);
  return out;
}

/** Split a batch in two at a transaction boundary (after a 413); null when it is one transaction. */
export function splitBatch(batch: Batch): [Batch, Batch] | null {
  const txs: ExportLine[][] = [];
  for (const l of batch.lines) {
    const last = txs[txs.length - 1];
    if (last && last[0]!.memory_id === l.memory_id && last[0]!.tx === l.tx) last.push(l);
    else txs.push([l]);
  }
  if (txs.length < 2) return null;
  const half = Math.ceil(txs.length / 2);
  const make = (part: ExportLine[][]): Batch => {
    const lines = part.flat();
    return { lines, bytes: lines.reduce((n, l) => n + Buffer.byteLength(JSON.stringify(l)) + 1, 0) };
  };
  return [make(txs.slice(0, half)), make(txs.slice(half))];
}
