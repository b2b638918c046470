/**
 * Episode records as recall sees them: which rows are episodes, reports or documents, the turn and
 * record a row belongs to, and how episodes are weighed against extracted facts.
 */
import type { VersionRow } from '../engine/index.js';

/** Metadata that marks a memory as an episode. */
export const EPISODE_META = { kind: 'episode' } as const;
/** Search scores of episodes are multiplied by this, so extracted facts outrank them. */
export const EPISODE_WEIGHT = 0.7;
/**
 * And those of a subagent's report by this too: what the turn concluded for the user outranks the
 * raw findings it was drawn from.
 */
export const REPORT_WEIGHT = 0.9;
/** A document's second-best section shows in search at its score times this (weighEpisodes). */
export const NEXT_SECTION_WEIGHT = 0.6;
/** Most episodes one recall injects. */
export const MAX_EPISODES_INJECTED = 3;

/** An episode record holding what a subagent reported. */
export function isReport(row: Pick<VersionRow, 'metadata'>): boolean {
  return isEpisode(row) && (row.metadata as Record<string, unknown>).report === true;
}

/** An episode record holding a project document the session read or wrote (documents.ts). */
export function isDocument(row: Pick<VersionRow, 'metadata'>): boolean {
  return isEpisode(row) && typeof (row.metadata as Record<string, unknown>).doc === 'string';
}

export function isEpisode(row: Pick<VersionRow, 'metadata'>): boolean {
  return (row.metadata as Record<string, unknown> | null | undefined)?.kind === EPISODE_META.kind;
}

/**
 * The turn an episode record belongs to, for the relevance floor: a turn's records (its outcome,
 * each report) share their request, so they are one text there; any other memory is its own.
 */
export function turnOf(row: VersionRow): string {
  const turn = (row.metadata as Record<string, unknown> | null | undefined)?.turn;
  return typeof turn === 'string' && isEpisode(row) ? `turn:${turn}` : (row.block?.group_id ?? row.memory_id);
}

/** The episode record a block belongs to (its own id when it is the record's only block). */
export function episodeOf(row: Pick<VersionRow, 'block' | 'memory_id'>): string {
  return row.block?.group_id ?? row.memory_id;
}

/**
 * Hits reweighted so extracted facts outrank episodes, one block per episode (its best), and at
 * most `maxEpisodes` episodes kept. With `nextSection` (a weight below 1), a document's second-best
 * block shows too, its score times that weight: a document's blocks are sections of one file, each
 * about its own matter, and the one that answers need not share the most words with the question.
 */
export function weighEpisodes<T extends { row: VersionRow; score: number }>(hits: readonly T[], maxEpisodes = Number.POSITIVE_INFINITY, nextSection = 0): T[] {
  const shown = new Map<string, number>();
  const weighed = hits
    .map((h) => (isEpisode(h.row) ? { ...h, score: h.score * EPISODE_WEIGHT * (isReport(h.row) ? REPORT_WEIGHT : 1) } : h))
    .sort((a, b) => b.score - a.score);
  const out: T[] = [];
  for (const h of weighed) {
    if (!isEpisode(h.row)) {
      out.push(h);
      continue;
    }
    const id = episodeOf(h.row);
    const seen = shown.get(id) ?? 0;
    if (seen === 0 && shown.size < maxEpisodes) out.push(h);
    else if (seen === 1 && nextSection > 0 && isDocument(h.row)) out.push({ ...h, score: h.score * nextSection });
    else continue;
    shown.set(id, seen + 1);
  }
  return nextSection > 0 ? out.sort((a, b) => b.score - a.score) : out;
}
