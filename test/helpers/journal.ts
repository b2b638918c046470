/** What a data dir's capture journal and session table say, read from disk as a restart would. */
import fs from 'node:fs';
import path from 'node:path';
import { resolvePaths } from '../../engine/index.js';

export interface JournalLine {
  j: number;
  s: string;
  e: string;
  p: Record<string, unknown>;
}

/** Every complete journal line on disk (what follows the last newline is a torn, unacknowledged write). */
export function journalLines(home: string): JournalLine[] {
  const dir = resolvePaths(home).journalDir;
  if (!fs.existsSync(dir)) return [];
  const out: JournalLine[] = [];
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.jnl'))) {
    const lines = fs.readFileSync(path.join(dir, f), 'utf8').split('\n');
    lines.pop();
    for (const line of lines) {
      try {
        out.push(JSON.parse(line) as JournalLine);
      } catch {
        // a damaged line (the fault tests plant them)
      }
    }
  }
  return out;
}

/** The highest journal seq flushed into the store, per session (sessions.json). */
export function flushedSeqs(home: string): Map<string, number> {
  const file = path.join(resolvePaths(home).stateDir, 'sessions.json');
  const out = new Map<string, number>();
  if (!fs.existsSync(file)) return out;
  for (const r of Object.values(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { id: string; flushedJ: number }>)) out.set(r.id, r.flushedJ);
  return out;
}

export interface Ack {
  session: string;
  j: number;
  /** A string the event carries (its tool input, its prompt). */
  marker: string;
}

/**
 * Acknowledged events that are nowhere: neither a complete journal line nor flushed into the
 * store (a seq at or below its session's flushed seq). Also returns journal seqs seen twice.
 */
export function lostAndDuplicated(home: string, acked: readonly Ack[]): { lost: Ack[]; duplicated: number[] } {
  const lines = journalLines(home);
  const markers = new Set(lines.map((l) => String(l.p.input ?? l.p.prompt ?? l.p.message ?? '')));
  const flushed = flushedSeqs(home);
  const lost = acked.filter((a) => !markers.has(a.marker) && a.j > (flushed.get(a.session) ?? 0));
  const seen = new Set<number>();
  const duplicated: number[] = [];
  for (const l of lines) {
    if (seen.has(l.j)) duplicated.push(l.j);
    seen.add(l.j);
  }
  return { lost, duplicated };
}
