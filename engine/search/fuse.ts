/**
 * Hybrid ranking: vector and full-text candidates fused into one score in 0..1, then exact and
 * near duplicates collapsed.
 */
import type { StoreHit } from '../store/types.js';
import { jaccard, termSet } from '../text/tokenize.js';
import type { VersionRow } from '../types.js';

export interface Ranked {
  row: VersionRow;
  score: number;
  vectorScore: number | null;
  textScore: number | null;
}

export interface FuseOptions {
  /** Weight of the vector channel when both channels ran (the text channel gets 1 − this). @default 0.5 */
  vectorWeight?: number;
  /** Whether the vector channel ran (false: lexical-only mode). */
  vectorActive: boolean;
  /** Whether the text channel ran. */
  textActive: boolean;
}

/**
 * Score = w·vector + (1−w)·text, where vector is the cosine similarity clipped to 0..1 and text is
 * BM25 relative to the best text hit of this query (so the strongest lexical match counts fully).
 * A candidate found by one channel only scores 0 in the other. With one channel, its score alone.
 */
export function fuse(hits: readonly StoreHit[], opts: FuseOptions): Ranked[] {
  const maxText = Math.max(0, ...hits.map((h) => h.textScore ?? 0));
  const w = opts.vectorActive && opts.textActive ? (opts.vectorWeight ?? 0.5) : opts.vectorActive ? 1 : 0;
  return hits
    .map((h) => {
      const v = h.vectorScore === null ? 0 : Math.max(0, Math.min(1, h.vectorScore));
      const t = h.textScore === null || maxText === 0 ? 0 : h.textScore / maxText;
      const score = w * v + (1 - w) * t;
      return { row: h.row, score: round(score), vectorScore: h.vectorScore, textScore: h.textScore };
    })
    .sort((a, b) => b.score - a.score || b.row.recorded_at - a.row.recorded_at);
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Term-set similarity at or above which two results count as near duplicates. */
export const NEAR_DUPLICATE_JACCARD = 0.9;

/**
 * Keep the best-scored of each group of duplicates: same memory, same normalized content (hash),
 * or near-identical wording. Input must be sorted by score, best first. With `limit`, stop once that
 * many are kept (the result is the same prefix: whether an entry is kept depends only on the kept
 * entries before it).
 */
export function collapseDuplicates(ranked: readonly Ranked[], limit = Number.POSITIVE_INFINITY): Ranked[] {
  const kept: Ranked[] = [];
  const keptTerms: Set<string>[] = [];
  const seenMemory = new Set<string>();
  const seenHash = new Set<string>();
  for (const r of ranked) {
    if (kept.length >= limit) break;
    if (seenMemory.has(r.row.memory_id) || seenHash.has(r.row.content_hash)) continue;
    const t = termSet(r.row.content);
    if (keptTerms.some((k) => jaccard(k, t) >= NEAR_DUPLICATE_JACCARD)) continue;
    kept.push(r);
    keptTerms.push(t);
    seenMemory.add(r.row.memory_id);
    seenHash.add(r.row.content_hash);
  }
  return kept;
}
