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
  /**
   * Largest weight of the vector channel when both channels ran (the text channel gets 1 − the
   * weight in use). The weight in use shrinks as full text matches more of the query's words; see
   * `vectorWeightFor`. @default 0.5
   */
  vectorWeight?: number;
  /** Whether the vector channel ran (false: lexical-only mode). */
  vectorActive: boolean;
  /** Whether the text channel ran. */
  textActive: boolean;
  /** The query. Without it the vector channel gets its full weight on every query. */
  query?: string | undefined;
}

/** Vector candidates needed before their median cosine is taken as the query's background. */
export const MIN_BACKGROUND_CANDIDATES = 8;
/** Share of its weight the vector channel keeps when full text matched every query word. */
export const VECTOR_WEIGHT_FLOOR = 0.1;
/**
 * Calibrated similarity a vector candidate needs before it may reorder what full text found. The
 * background median is taken over the nearest candidates, so related-but-not-relevant memories
 * sit just above it: on LoCoMo, a model that cannot tell meaning apart (random weights, a random
 * projection of the words) puts its best candidate at 0.16–0.32 calibrated, while a paraphrase
 * under a trained model scores well above that. Below the margin a vector score is noise that
 * only breaks ties in full text's ranking at random, which made hybrid recall@10 half a point
 * worse than full text alone.
 */
export const VECTOR_MARGIN = 0.25;
/**
 * Score of a candidate only the vector channel found, per unit of calibrated similarity, when it
 * stays within the margin: it keeps a place after every full-text match instead of dropping out
 * (a top_k that full text cannot fill is filled by meaning), without reordering anything.
 */
export const VECTOR_ONLY_FLOOR = 0.001;

/**
 * The typical cosine similarity of an unrelated memory to this query: the median over the vector
 * candidates (most of which are unrelated to any one query). Embedding models differ a lot here:
 * one model gives unrelated texts 0.05, another 0.25, and raw cosines are not comparable to each
 * other's or to full-text scores without removing it. 0 when there are too few candidates to tell.
 */
export function backgroundSimilarity(hits: readonly StoreHit[]): number {
  const cos = hits.flatMap((h) => (h.vectorScore === null ? [] : [h.vectorScore])).sort((a, b) => a - b);
  if (cos.length < MIN_BACKGROUND_CANDIDATES) return 0;
  return Math.max(0, cos[Math.floor((cos.length - 1) / 2)]!);
}

/** A cosine rescaled so that the background is 0 and identity is 1 (clipped to 0..1). */
export function calibrated(cosine: number, background: number): number {
  if (background >= 1) return 0;
  return Math.max(0, Math.min(1, (cosine - background) / (1 - background)));
}

/**
 * The vector channel's evidence for one candidate: its calibrated similarity, less `VECTOR_MARGIN`
 * (rescaled to 0..1) when full text matched something. When full text found nothing, the vector
 * channel is all there is and counts in full.
 */
export function vectorEvidence(calibratedCosine: number, textMatched: boolean): number {
  if (!textMatched) return calibratedCosine;
  return Math.max(0, (calibratedCosine - VECTOR_MARGIN) / (1 - VECTOR_MARGIN));
}

/**
 * How much of the query full text matched: the share of the query's index terms present in the
 * best full-text hit (0 when full text found nothing).
 */
export function lexicalCoverage(query: string, hits: readonly StoreHit[]): number {
  const want = new Set(terms(query));
  let best: StoreHit | null = null;
  for (const h of hits) if (h.textScore !== null && h.textScore > 0 && (!best || h.textScore > best.textScore!)) best = h;
  if (want.size === 0 || !best) return 0;
  const have = new Set(terms(best.row.content));
  let n = 0;
  for (const t of want) if (have.has(t)) n++;
  return n / want.size;
}

/**
 * The vector channel's weight for this query: `max` when full text matched none of the query's
 * words (the query is phrased unlike any memory: only meaning can find it), down to a tenth of
 * `max` when the best full-text hit holds every one of them (a lexical match is there, and the
 * vector channel mostly reorders it). Without the query, `max`.
 */
export function vectorWeightFor(hits: readonly StoreHit[], max: number, query: string | undefined): number {
  if (query === undefined) return max;
  return max * (VECTOR_WEIGHT_FLOOR + (1 - VECTOR_WEIGHT_FLOOR) * (1 - lexicalCoverage(query, hits)));
}

/**
 * Score = w·vector + (1−w)·text. Text is BM25 relative to the best text hit of this query (the
 * strongest lexical match counts fully). With both channels, vector is the cosine calibrated
 * against this query's background similarity, less a margin when full text matched anything
 * (`vectorEvidence`), and w follows `vectorWeightFor`, so a vector channel
 * that cannot tell memories apart (all near the background) cannot reorder what full text found,
 * while a memory that means what the query asks, in other words, still rises. A candidate found
 * by one channel only scores 0 in the other. With one channel, its score alone (the raw cosine,
 * clipped to 0..1, for vector only).
 */
export function fuse(hits: readonly StoreHit[], opts: FuseOptions): Ranked[] {
  const both = opts.vectorActive && opts.textActive;
  const maxText = Math.max(0, ...hits.map((h) => h.textScore ?? 0));
  const background = both ? backgroundSimilarity(hits) : 0;
  const w = both ? vectorWeightFor(hits, opts.vectorWeight ?? 0.5, opts.query) : opts.vectorActive ? 1 : 0;
  return hits
    .map((h) => {
      const cal = h.vectorScore === null || !both ? 0 : calibrated(h.vectorScore, background);
      const v = h.vectorScore === null ? 0 : both ? vectorEvidence(cal, maxText > 0) : Math.max(0, Math.min(1, h.vectorScore));
      const t = h.textScore === null || maxText === 0 ? 0 : h.textScore / maxText;
      let score = w * v + (1 - w) * t;
      if (score === 0 && h.textScore === null) score = VECTOR_ONLY_FLOOR * cal;
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
  // Each result is tokenized once: comparing every pair by re-tokenizing cost more than the store
  // query itself (≈170 ms for 200 candidates).
  const keptTerms: Set<string>[] = [];
  const seenMemory = new Set<string>();
  const seenHash = new Set<string>();
  for (const r of ranked) {
    if (kept.length >= limit) break;
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
