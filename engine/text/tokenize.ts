/**
 * Word tokenizer shared by the in-memory full-text index, near-duplicate detection and the
 * extractor. Lowercase, Unicode letters and digits, English stop words removed, light stemming
 * (the same idea as LanceDB's `simple` tokenizer with stemming), so both stores agree closely.
 */

const STOP = new Set(
  (
    'a an and are as at be but by for from has have i if in into is it its me my no not of on or our so such ' +
    'that the their then there these they this to was we were will with you your he she him her his them ' +
    'what which who whom do does did doing am been being had having than too very can just should now ' +
    'about above after again against all any because before below between both during each few further ' +
    'here how more most other own same some only over under until up down out off once why where when ' +
    'while those through yours ours hers theirs myself yourself itself themselves would could'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+(?:[_'’-][\p{L}\p{N}]+)*/gu;

/** Lowercased word tokens, stop words kept (for phrase-like uses). */
export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Index terms: words split on inner punctuation, stop words dropped, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    for (const part of w.split(/[_'’-]/)) {
      if (part.length === 0 || STOP.has(part)) continue;
      out.push(stem(part));
    }
  }
  return out;
}

/** Most distinct terms of a query that take part in full-text search. */
export const MAX_QUERY_TERMS = 64;

/** A query's distinct index terms, in order, at most MAX_QUERY_TERMS. */
export function queryTerms(text: string): string[] {
  return [...new Set(terms(text))].slice(0, MAX_QUERY_TERMS);
}

/** A small suffix-stripping stemmer (plural, -ing, -ed, -ly); enough to match word forms. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return word.slice(0, -3) + 'y';
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 5) return trimDouble(word.slice(0, -3));
  if (word.endsWith('ed') && word.length > 4) return trimDouble(word.slice(0, -2));
  if (word.endsWith('ly') && word.length > 4) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

function trimDouble(w: string): string {
  return w.length > 2 && w[w.length - 1] === w[w.length - 2] && !/[lsz]/.test(w[w.length - 1]!) ? w.slice(0, -1) : w;
}

/** The set of index terms of a text. */
export function termSet(text: string): Set<string> {
  return new Set(terms(text));
}

/** Jaccard similarity of two term sets (0..1; two empty sets are identical). */
export function jaccard(sa: ReadonlySet<string>, sb: ReadonlySet<string>): number {
  if (sa.size === 0 && sb.size === 0) return 1;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}

/** Jaccard similarity of the term sets of two texts (0..1). */
export function termJaccard(a: string, b: string): number {
  return jaccard(termSet(a), termSet(b));
}
