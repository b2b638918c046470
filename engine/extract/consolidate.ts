/**
 * Consolidation: what a new candidate does to the memories already stored (DESIGN.md §5.5).
 * Pure: the caller finds the neighbors (search by vector and text within the candidate's
 * scope), computes their subjects with `subjectOf`, and applies the decision.
 *
 * Order of the rules, first match wins:
 * 1. exact duplicate (same content_hash)                          → NOOP exact
 * 2. a finding of the same subject as an earlier finding             → UPDATE supersede
 *    same subject and category family, both values known, differ  → UPDATE supersede
 * 3. near duplicate (term Jaccard ≥ 0.8 or similarity ≥ 0.93, or the same statement with
 *    other asides: Jaccard ≥ 0.8 without their parenthesized remarks, of 4 terms or more):
 *      the candidate adds no term                                 → NOOP near
 *      it adds terms                                              → UPDATE refresh
 * 4. otherwise                                                    → ADD
 * A changed value beats near-duplicate wording: "The API runs on port 3000" → "… 8080" is a
 * change in the world (supersede), not a rewording (refresh). With a value unknown on either
 * side the rule cannot tell a change from an addition, so it does not supersede.
 */
import { termJaccard, termSet, terms } from '../text/tokenize.js';
import type { Category } from '../types.js';
import { FINDING_SUBJECT } from './findings.js';
import { analyzeSubject } from './subject.js';
import type { Candidate } from './types.js';

export interface Neighbor {
  memory_id: string;
  content: string;
  content_hash: string;
  category: Category;
  subject: string | null;
  similarity: number /* 0..1 */;
}

export type Decision =
  | { action: 'ADD' }
  | { action: 'NOOP'; memory_id: string; reason: 'exact' | 'near' }
  | { action: 'UPDATE'; memory_id: string; mode: 'refresh' | 'supersede' };

/** @default thresholds of a near duplicate */
export const NEAR_JACCARD = 0.8;
export const NEAR_SIMILARITY = 0.93;
/** Fewest terms a statement keeps without its asides for those alone to make it a near duplicate. */
const MIN_BARE_TERMS = 4;

/** A statement without its parenthesized or bracketed asides ("(line 81 in app.py)"). */
function withoutAsides(text: string): string {
  return text.replace(/\([^()]*\)|\[[^[\]]*\]/g, ' ');
}

/**
 * Term Jaccard of two statements, or of the two without their asides when that is higher and
 * leaves enough to compare: a root cause restated with another detail in brackets
 * ("OpenAPI is disabled in production mode (line 81 in app.py)", "… (only enabled when is_debug=True)")
 * is the same memory, and "Use pnpm (not npm)" and "Use pnpm (for workspaces)" say too little
 * without them to tell.
 */
function nearJaccard(a: string, b: string): number {
  const whole = termJaccard(a, b);
  const bareA = withoutAsides(a);
  const bareB = withoutAsides(b);
  if (bareA === a && bareB === b) return whole;
  if (termSet(bareA).size < MIN_BARE_TERMS || termSet(bareB).size < MIN_BARE_TERMS) return whole;
  return Math.max(whole, termJaccard(bareA, bareB));
}

/**
 * Categories that can state the same kind of thing. A project decision and a convention about
 * the package manager contradict each other; a personal preference and a project convention
 * do not (different owners), nor does a constraint ("must support Node 18") and a choice.
 */
const FAMILY: Record<Category, string> = {
  decision: 'choice',
  convention: 'choice',
  context: 'choice',
  fact: 'choice',
  constraint: 'constraint',
  preference: 'preference',
  note: 'note',
};

export function sameFamily(a: Category, b: Category): boolean {
  return FAMILY[a] === FAMILY[b];
}

export function decide(candidate: Candidate & { content_hash: string }, neighbors: readonly Neighbor[]): Decision {
  const exact = neighbors.find((n) => n.content_hash === candidate.content_hash);
  if (exact) return { action: 'NOOP', memory_id: exact.memory_id, reason: 'exact' };

  // A finding about a subject an earlier finding covered: the newer exploration replaces it.
  if (candidate.subject?.startsWith(FINDING_SUBJECT)) {
    const target = mostSimilar(
      neighbors.filter((n) => n.subject === candidate.subject),
      (n) => n.similarity,
    );
    if (target) return { action: 'UPDATE', memory_id: target.memory_id, mode: 'supersede' };
  }

  if (candidate.subject !== null) {
    const value = analyzeSubject(candidate.content)?.value ?? null;
    const contradicted = neighbors
      .filter((n) => n.subject === candidate.subject && sameFamily(n.category, candidate.category))
      .filter((n) => {
        const theirs = analyzeSubject(n.content);
        return value !== null && theirs?.subject === candidate.subject && theirs.value !== null && theirs.value !== value;
      });
    const target = mostSimilar(contradicted, (n) => n.similarity);
    if (target) return { action: 'UPDATE', memory_id: target.memory_id, mode: 'supersede' };
  }

  const near = neighbors
    .map((n) => ({ n, jaccard: nearJaccard(candidate.content, n.content) }))
    .filter(({ n, jaccard }) => jaccard >= NEAR_JACCARD || n.similarity >= NEAR_SIMILARITY);
  const best = mostSimilar(near, ({ n, jaccard }) => Math.max(jaccard, n.similarity));
  if (best) {
    const known = new Set(terms(best.n.content));
    const addsTerms = terms(candidate.content).some((t) => !known.has(t));
    return addsTerms ? { action: 'UPDATE', memory_id: best.n.memory_id, mode: 'refresh' } : { action: 'NOOP', memory_id: best.n.memory_id, reason: 'near' };
  }
  return { action: 'ADD' };
}

/** Highest score; the earlier neighbor wins a tie, so the result does not depend on luck. */
function mostSimilar<T>(items: readonly T[], score: (t: T) => number): T | null {
  let best: T | null = null;
  let top = -Infinity;
  for (const item of items) {
    const s = score(item);
    if (s > top) {
      top = s;
      best = item;
    }
  }
  return best;
}
