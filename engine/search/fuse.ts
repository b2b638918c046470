/**
 * Hybrid ranking: vector and full-text candidates fused into one score in 0..1, then exact and
 * near duplicates collapsed.
 */
import type { StoreHit } from '../store/types.js';
import { terms } from '../text/tokenize.js';
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
 * or near-identical wording. Input must be sorted by score, best first.
 */
export function collapseDuplicates(ranked: readonly Ranked[]): Ranked[] {
  const kept: Ranked[] = [];
  // Each result is tokenized once: comparing every pair by re-tokenizing cost more than the store
  // query itself (≈170 ms for 200 candidates).
  const keptTerms: Set<string>[] = [];
  const seenMemory = new Set<string>();
  const seenHash = new Set<string>();
  for (const r of ranked) {
    if (seenMemory.has(r.row.memory_id) || seenHash.has(r.row.content_hash)) continue;
    const t = new Set(terms(r.row.content));
    if (keptTerms.some((k) => nearDuplicate(k, t))) continue;
    kept.push(r);
    keptTerms.push(t);
    seenMemory.add(r.row.memory_id);
    seenHash.add(r.row.content_hash);
  }
  return kept;
}

/** Term-set Jaccard ≥ NEAR_DUPLICATE_JACCARD (two empty sets are identical). */
function nearDuplicate(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 && b.size === 0) return true;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  // Jaccard ≤ |small| / |large|: most pairs are ruled out by their sizes alone.
  if (small.size < NEAR_DUPLICATE_JACCARD * large.size) return false;
  let inter = 0;
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter) >= NEAR_DUPLICATE_JACCARD;
}
