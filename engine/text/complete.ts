/**
 * Prefix completion of the last word being typed (live search): "postg" → the index terms that
 * start with it ("postgre", "postgresql"), most common first. Index terms are stemmed, so the
 * prefix is matched as typed (lowercase), not stemmed.
 */
import { stem, words } from './tokenize.js';

/** Index terms tried for one prefix: enough for a word being typed, few enough to stay precise. */
export const MAX_COMPLETIONS = 8;
/** Shorter prefixes match too much of the vocabulary to mean anything. */
export const MIN_PREFIX = 2;

/** The `limit` terms of `vocabulary` (term → document count) starting with `prefix`, commonest first. */
export function completeTerm(vocabulary: Iterable<[string, number]>, prefix: string, limit = MAX_COMPLETIONS): string[] {
  const out: [string, number][] = [];
  for (const [term, n] of vocabulary) if (term.startsWith(prefix) && n > 0) out.push([term, n]);
  return out
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([t]) => t);
}

/**
 * The word a query ends in, when it is still being typed (no space after it) and long enough to
 * complete; null otherwise.
 */
export function typedPrefix(query: string): string | null {
  if (/\s$/.test(query)) return null;
  const part = words(query).at(-1)?.split(/[_'’-]/).at(-1);
  return part && part.length >= MIN_PREFIX ? part : null;
}

/** The query with the completions of its last word added (the word itself stays, stemmed or not). */
export function withCompletions(query: string, completions: readonly string[], prefix: string): string {
  const extra = completions.filter((t) => t !== prefix && t !== stem(prefix));
  return extra.length === 0 ? query : `${query} ${extra.join(' ')}`;
}
