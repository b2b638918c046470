/**
 * An absolute relevance floor for text that is put in front of the agent unasked (the recall
 * hook) or acted on (memory.search, forget by query). Fused search scores are relative to the
 * best hit of each query (the top full-text hit always scores 1 before weighting), so a floor on
 * them lets a prompt that shares one common word with a memory inject it. Here a memory counts
 * as relevant only when it covers the query's informative terms: enough of them (two, or every
 * one of a query of at most three words) and a large enough share of the smaller side.
 */
import { isQuestion } from '../extract/noise.js';
import { askedSubjects, mentions, type AskedSubject } from '../extract/synonyms.js';
import { bm25Idf } from '../text/term-stats.js';
import { queryTerms, termSet, words } from '../text/tokenize.js';

/**
 * Words too generic to show that a memory is about what a prompt asks (on top of the tokenizer's
 * stop words): request verbs and filler that appear in most prompts and many memories, and the
 * function words of the other languages users ask in (German, Spanish, Portuguese, French, Russian),
 * which the tokenizer's English list leaves in: "wie starte ich das backend" asks about "backend",
 * not about every German text holding "ich" and "das".
 */
const WEAK = new Set(
  [
    'use used make need want add fix run get set put let try go see look check thing stuff work way like please ' +
      'new one also well ok okay yes sure good right know think tell show give help start keep call done change update ' +
      'time today file code project repo',
    'der die das den dem des und ist sind nicht mit ein eine einen einem ich du wir ihr sie es auf bei zu von für wie ' +
      'was wo warum wann noch nochmal auch nur aber oder wenn dass mein meine dein unser unsere habe hast hat kann kannst ' +
      'muss soll gibt sich schon mal hier dann jetzt',
    'el la los las un una unos y o de del al que qué en es por para con como cómo se lo le su sus mi mis tu este esta ' +
      'esto eso hay pero donde dónde cuando cuál cual porque',
    'os um uma e do da dos das em no na nos nas é eu você meu minha isso esse essa não mas onde quando qual',
    'le les une des du et ou est qui pour avec comme dans sur je il nous vous ce cette pas ne mais où quand quel quelle comment pourquoi',
    'и в во не на что с со по это как для из к у же то все всё так но да ты вы мы я он она они а или если только чтобы ' +
      'при до от о об за без его их этот эта эти там тут здесь уже ещё еще бы ли мне меня нам нас где когда почему какой какая какие',
  ]
    .join(' ')
    .split(' ')
    .flatMap((w) => [...termSet(w)]),
);

/** Queries of at most this many words may be matched on fewer than `minTerms` terms. */
const SHORT_QUERY_WORDS = 3;

export interface RelevanceFloor {
  /** Informative query terms a memory must contain (fewer only for a query of at most three words). @default 2 */
  minTerms: number;
  /**
   * Share of the smaller side's informative terms that must match: the query's, or the memory's
   * (capped at `capTerms`, so a long prompt is not asked to be covered by a short memory).
   * @default 0.3
   */
  minShare: number;
  /** Most terms the share is taken over. @default 6 */
  capTerms: number;
}

/** The floor the recall hook, memory.search and forget-by-query apply. */
export const RELEVANCE_FLOOR: RelevanceFloor = { minTerms: 2, minShare: 0.3, capTerms: 6 };

export interface Relevance {
  /** Informative query terms the memory contains. */
  matched: string[];
  /** matched / min(query terms, memory terms, capTerms), 0..1. */
  share: number;
  relevant: boolean;
}

/** The query's terms that say what it is about (stop words and generic request words removed). */
export function informativeTerms(text: string): string[] {
  return queryTerms(text).filter((t) => !WEAK.has(t));
}

/**
 * One form for a word whose stem keeps a final e in one form and not in another: the tokenizer's
 * stemmer turns "stored" and "storing" into "stor" but leaves "store" (likewise "decided" /
 * "decide", "used" / "use"), so coverage compares terms with a final e dropped.
 */
export function form(term: string): string {
  return term.length > 4 && term.endsWith('e') ? term.slice(0, -1) : term;
}

/**
 * The subjects a question asks for by what they are (`askedSubjects`: "what do we use for state
 * management", "which linters do we run"): only when the subject is what it asks, at most one other
 * informative word besides ("does the linter force doc comments on exported functions" asks about
 * a rule, not which linter).
 */
export function subjectsAsked(query: string): AskedSubject[] {
  const asked = askedSubjects(query);
  if (asked.length === 0) return asked;
  const named = new Set(asked.flatMap((a) => [...termSet(a.phrase)].map(form)));
  return informativeTerms(query).filter((t) => !named.has(form(t))).length <= 1 ? asked : [];
}

/**
 * The term forms a text holds, for coverage: its own, and the words a question names a subject by
 * when the text names one of its values ("state management" for a memory naming zustand).
 */
function coveredForms(content: string, asked: readonly AskedSubject[]): Set<string> {
  const have = new Set([...termSet(content)].map(form));
  if (asked.length > 0) {
    const named = new Set(mentions(content).map((m) => m.key));
    for (const a of asked) if (named.has(a.key)) for (const t of termSet(a.phrase)) have.add(form(t));
  }
  return have;
}

/** How well `content` covers what `query` asks; `relevant` applies the floor. */
export function relevance(query: string, content: string, floor: RelevanceFloor = RELEVANCE_FLOOR, asked: readonly AskedSubject[] = subjectsAsked(query)): Relevance {
  const q = informativeTerms(query);
  const contentTerms = termSet(content);
  const have = coveredForms(content, asked);
  const mine = [...contentTerms].filter((t) => !WEAK.has(t)).length;
  const matched = q.filter((t) => have.has(form(t)));
  const base = Math.min(q.length, Math.max(1, mine), floor.capTerms);
  const share = base === 0 ? 0 : Math.min(1, matched.length / base);
  // A query with a single informative term among other words ("please store this thing") is a
  // request, not a lookup: only a short query ("postgres?") may match on one term.
  const need = q.length >= floor.minTerms ? floor.minTerms : words(query).length <= SHORT_QUERY_WORDS ? q.length : floor.minTerms;
  return { matched, share, relevant: need > 0 && matched.length >= need && share >= floor.minShare };
}

/** Whether `content` clears the relevance floor for `query`. */
export function isRelevant(query: string, content: string, floor: RelevanceFloor = RELEVANCE_FLOOR): boolean {
  return relevance(query, content, floor).relevant;
}

/**
 * A query term held by at most this many of a search's candidates is rare in the store: full text
 * returns every memory holding a query term up to the candidate limit (48 for the recall hook), so
 * a term found in so few of them is held by so few memories.
 */
export const RARE_TERM_CANDIDATES = 3;
/** Share of the query's weighted terms (those any candidate holds) the top hit must cover. */
export const MIN_WEIGHTED_COVERAGE = 0.5;
/** The top candidate must score at least this many times the next to be kept on one rare term. */
export const LEAD_RATIO = 2;


/** A search candidate: its content and fused score, best first. */
export interface ScoredText {
  content: string;
  score: number;
  /**
   * The text it is a block of (BlockLink.group_id; its own id when whole): the blocks of one text
   * count as one candidate for how rare a term is and for the lead. @default each candidate its own
   */
  group?: string;
}

/**
 * The floor over one search's candidates, best first: `relevance` for each, and one relaxation. A
 * question whose words are not the answer's ("which linters do we run" → "ruff and pyrefly") shares
 * one term with it; the top candidate is then kept when that term is rare (held by at most
 * RARE_TERM_CANDIDATES candidates), it covers at least MIN_WEIGHTED_COVERAGE of the query's terms
 * weighted by rarity (BM25 IDF over the candidates; terms no candidate holds say nothing about which
 * one answers; a value of a subject the question asks for covers the subject's words in the top
 * candidate, `subjectsAsked`), and it scores LEAD_RATIO times the next candidate (far ahead of the rest). A request
 * is never relaxed, and a common word never counts, so one shared common word still injects nothing.
 * (Measured: letting the three best candidates in on the same terms found no more answers on the
 * held-out sessions and injected more.)
 */
export function relevantCandidates(query: string, candidates: readonly ScoredText[], floor: RelevanceFloor = RELEVANCE_FLOOR): boolean[] {
  const asked = subjectsAsked(query);
  const out = candidates.map((c) => relevance(query, c.content, floor, asked).relevant);
  const top = candidates[0];
  // Only a lookup ("which linters do we run", "postgres?"), never a request ("please store this thing").
  if (!top || out[0] || !isQuestion(query)) return out;
  // Blocks of one text are one candidate: the lead is over the next other text, and a term's
  // rarity counts texts, not blocks.
  const groupOf = (c: ScoredText, i: number): string => c.group ?? `#${i}`;
  const topGroup = groupOf(top, 0);
  const next = candidates.find((c, i) => groupOf(c, i) !== topGroup);
  if (top.score < LEAD_RATIO * (next?.score ?? 0)) return out;
  const q = [...new Set(informativeTerms(query).map(form))];
  const texts = new Map<string, Set<string>>();
  // The top candidate's words include those of a subject it names a value of ("lint" for ruff); how
  // rare a word is counts the texts that say it.
  candidates.forEach((c, i) => {
    const g = groupOf(c, i);
    const set = texts.get(g) ?? new Set<string>();
    for (const t of g === topGroup ? coveredForms(c.content, asked) : [...termSet(c.content)].map(form)) set.add(t);
    texts.set(g, set);
  });
  const held = [...texts.values()];
  const df = new Map(q.map((t) => [t, held.filter((h) => h.has(t)).length] as const));
  const weight = (t: string): number => bm25Idf(texts.size, df.get(t)!);
  const present = q.filter((t) => df.get(t)! > 0);
  const mine = coveredForms(top.content, asked);
  const matched = present.filter((t) => mine.has(t));
  if (!matched.some((t) => df.get(t)! <= RARE_TERM_CANDIDATES)) return out;
  const total = present.reduce((a, t) => a + weight(t), 0);
  out[0] = total > 0 && matched.reduce((a, t) => a + weight(t), 0) / total >= MIN_WEIGHTED_COVERAGE;
  return out;
}
