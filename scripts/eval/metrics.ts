/**
 * Retrieval metrics over evidence turns.
 *
 * - recall@k of one question: the share of its gold (evidence) turns found among the first k
 *   distinct retrieved turns, |gold ∩ top-k| / |gold|. Not hit rate (any gold in top k) and not
 *   precision (hits / k).
 * - reciprocal rank: 1 / the rank of the first gold turn in the retrieved list, 0 when none was
 *   retrieved (so MRR is "MRR@depth" for the depth that was retrieved).
 * - Aggregates are macro averages over questions: each question counts once, whatever the size
 *   of its gold set.
 */

/** Ranked ids with repeats removed (a turn found twice counts once, at its first rank). */
export function distinct(ranked: readonly string[]): string[] {
  return [...new Set(ranked)];
}

export function recallAt(ranked: readonly string[], gold: readonly string[], k: number): number {
  const want = new Set(gold);
  if (want.size === 0) throw new Error('recall is undefined without gold items');
  let hits = 0;
  for (const id of distinct(ranked).slice(0, k)) if (want.has(id)) hits++;
  return hits / want.size;
}

export function reciprocalRank(ranked: readonly string[], gold: readonly string[]): number {
  const want = new Set(gold);
  const i = distinct(ranked).findIndex((id) => want.has(id));
  return i < 0 ? 0 : 1 / (i + 1);
}

export interface Judged {
  /** Group key (a question category). */
  group: string;
  gold: readonly string[];
  ranked: readonly string[];
}

export interface Aggregate {
  /** Questions averaged. */
  n: number;
  /** Mean recall@k per k. */
  recall: Record<number, number>;
  mrr: number;
}

export function aggregate(items: readonly Judged[], ks: readonly number[]): Aggregate {
  const recall: Record<number, number> = {};
  for (const k of ks) recall[k] = mean(items.map((q) => recallAt(q.ranked, q.gold, k)));
  return { n: items.length, recall, mrr: mean(items.map((q) => reciprocalRank(q.ranked, q.gold))) };
}

/** Overall and per group (groups in first-seen order). */
export function aggregateByGroup(items: readonly Judged[], ks: readonly number[]): { overall: Aggregate; groups: Map<string, Aggregate> } {
  const byGroup = new Map<string, Judged[]>();
  for (const q of items) byGroup.set(q.group, [...(byGroup.get(q.group) ?? []), q]);
  return { overall: aggregate(items, ks), groups: new Map([...byGroup].map(([g, qs]) => [g, aggregate(qs, ks)])) };
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}
