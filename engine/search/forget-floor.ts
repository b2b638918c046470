/**
 * Which search hits a query-driven forget may take: the relevance floor of `service forget
 * --query` (and the dashboard's forget-by-search). Search fills its top_k with whatever ranks
 * best, however weak; forgetting must be stricter than finding, so a hit counts as a confident
 * match only when its memory holds the query's words (all of a short query's, most of a long
 * one's) AND its fused score clears a floor.
 * A memory found by meaning alone (no query word in it) is never forgotten by query: it is listed
 * as a weaker match, to forget by id after reading it.
 *
 * The first gate is the same relevance floor the recall hook and memory.search apply
 * (`relevance.ts`); forgetting then asks for more on top of it.
 */
import { queryTerms, termSet } from '../text/tokenize.js';
import { RELEVANCE_FLOOR, relevance } from './relevance.js';

/** Lowest fused search score (0..1) a memory needs to be forgotten by query. */
export const FORGET_MIN_SCORE = 0.2;
/**
 * Share of the query's distinct index terms the memory must contain when the query has more than
 * FORGET_ALL_TERMS_UP_TO of them; shorter queries need every term.
 */
export const FORGET_MIN_COVERAGE = 0.75;
/** Queries with at most this many distinct terms need every one of them in the memory. */
export const FORGET_ALL_TERMS_UP_TO = 3;

/** The share of the query's distinct index terms present in `content` (0 when the query has none). */
export function termCoverage(query: string, content: string): number {
  const want = queryTerms(query);
  if (want.length === 0) return 0;
  const have = termSet(content);
  let n = 0;
  for (const t of want) if (have.has(t)) n++;
  return n / want.length;
}

/** The coverage a query needs: every term for short queries, FORGET_MIN_COVERAGE for longer ones. */
export function requiredCoverage(query: string): number {
  return queryTerms(query).length <= FORGET_ALL_TERMS_UP_TO ? 1 : FORGET_MIN_COVERAGE;
}

/** Why a hit is (or is not) a confident match for forgetting by query. */
export interface ForgetVerdict {
  confident: boolean;
  coverage: number;
  reason: string;
}

/** The one rule a query-driven forget uses to decide whether a search hit may be forgotten. */
export function confidentForgetMatch(query: string, hit: { content: string; score: number }): ForgetVerdict {
  const coverage = termCoverage(query, hit.content);
  // The query's own words: a subject's values do not stand for its name when forgetting (`subjectsAsked` is for finding).
  const floor = relevance(query, hit.content, RELEVANCE_FLOOR, []);
  if (!floor.relevant) return { confident: false, coverage, reason: floor.matched.length === 0 ? 'none of the query words' : `below the relevance floor (${floor.matched.length} informative query word(s) in it)` };
  if (coverage === 0 || coverage < requiredCoverage(query)) {
    return { confident: false, coverage, reason: coverage === 0 ? 'none of the query words' : `only ${Math.round(coverage * 100)}% of the query words` };
  }
  if (hit.score < FORGET_MIN_SCORE) return { confident: false, coverage, reason: `score ${hit.score.toFixed(2)} below ${FORGET_MIN_SCORE}` };
  return { confident: true, coverage, reason: 'matches' };
}

/** Split hits into the confident matches a query may forget and the weaker ones it must not. */
export function splitForgetMatches<H extends { content: string; score: number }>(query: string, hits: readonly H[]): { confident: (H & { coverage: number })[]; weaker: (H & { coverage: number; reason: string })[] } {
  const confident: (H & { coverage: number })[] = [];
  const weaker: (H & { coverage: number; reason: string })[] = [];
  for (const h of hits) {
    const v = confidentForgetMatch(query, h);
    if (v.confident) confident.push({ ...h, coverage: v.coverage });
    else weaker.push({ ...h, coverage: v.coverage, reason: v.reason });
  }
  return { confident, weaker };
}
