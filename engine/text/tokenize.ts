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

/**
 * Index terms: words split on inner punctuation, stop words dropped, stemmed. Chinese, Japanese and
 * Korean text is not split into words by spaces ("リリース手順を確認する" is one `words` token), so
 * its runs become overlapping character pairs instead (リリ リー ース 手順 確認), the usual way
 * full-text indexes handle it without a dictionary: a query finds a text sharing a word with it
 * wherever that word stands. Runs of hiragana (Japanese particles and endings: を, する, です)
 * are dropped like stop words; a lone character stays one term.
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (CJK.test(w)) {
      cjkTerms(w, out);
      continue;
    }
    latinTerms(w, out);
  }
  return out;
}

/**
 * How `terms` splits a text, recorded by each store beside its stored terms: 1, words only (a CJK
 * run was one term); 2, CJK runs as character pairs. A store whose terms are of an older format
 * re-indexes the rows the change affects when it opens (lance-reterm.ts, pg-reterm.ts).
 */
export const TERMS_FORMAT = 2;

/** The scripts whose runs become character pairs: Han, hiragana, katakana (with its long-vowel marks), Hangul. */
const CJK_SCRIPTS = ['\\p{Script=Han}', '\\p{Script=Hiragana}', '[\\p{Script=Katakana}\\u30fc\\uff70]', '\\p{Script=Hangul}'];
/** Whether a text holds Han, kana or Hangul (whose terms `terms` makes from character pairs). */
export const CJK = new RegExp(CJK_SCRIPTS.join('|'), 'u');
/** A run of one of those scripts; `split` by it alternates other text and runs. */
const CJK_RUN = new RegExp(`(${CJK_SCRIPTS.map((s) => `${s}+`).join('|')})`, 'u');
/** A hiragana run: Japanese particles and endings, dropped like stop words. */
const HIRAGANA = /^\p{Script=Hiragana}/u;

function latinTerms(word: string, out: string[]): void {
  for (const part of word.split(/[_'’-]/)) {
    if (part.length === 0 || STOP.has(part)) continue;
    out.push(stem(part));
  }
}

/** The terms of a word that holds CJK text: character pairs of each run, the text between as words. */
function cjkTerms(word: string, out: string[]): void {
  word.split(CJK_RUN).forEach((part, i) => {
    if (!part) return;
    if (i % 2 === 0) return latinTerms(part, out);
    if (HIRAGANA.test(part)) return;
    const chars = [...part];
    if (chars.length === 1) out.push(chars[0]!);
    for (let c = 0; c + 1 < chars.length; c++) out.push(chars[c]! + chars[c + 1]!);
  });
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
