/**
 * Corpus statistics for BM25 (document count, document frequencies, average length), and exact
 * BM25 scoring of documents against them. The LanceStore uses it for rows its full-text index
 * does not cover yet, with the same formula as the index (k1 = 1.2, b = 0.75).
 */
import { completeTerm } from './complete.js';

const K1 = 1.2;
const B = 0.75;

/** BM25 inverse document frequency of a term found in `df` of `docs` documents. */
export function bm25Idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/** `(K1 + 1)`: with `bm25LengthNorms`, `idf × tf × BM25_TF_SCALE / (tf + norms[length])` is bm25Term to the last bit. */
export const BM25_TF_SCALE = K1 + 1;

/** bm25Term's denominator less `tf`, `K1 × (1 − B + B × length / avgLength)`, for every length 0..maxLength. */
export function bm25LengthNorms(avgLength: number, maxLength: number): Float64Array {
  const out = new Float64Array(maxLength + 1);
  for (let length = 0; length <= maxLength; length++) out[length] = K1 * (1 - B + (B * length) / avgLength);
  return out;
}

/** BM25 of one query term that occurs `tf` times in a document of `length` terms. */
export function bm25Term(idf: number, tf: number, length: number, avgLength: number): number {
  return (idf * tf * BM25_TF_SCALE) / (tf + K1 * (1 - B + (B * length) / avgLength));
}

export class TermStats {
  private readonly df = new Map<string, number>();
  private docs = 0;
  private totalLength = 0;

  /** Count a document's terms (duplicates within it count once for df). */
  add(terms: readonly string[]): void {
    this.docs++;
    this.totalLength += terms.length;
    for (const t of new Set(terms)) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  clear(): void {
    this.df.clear();
    this.docs = 0;
    this.totalLength = 0;
  }

  /** Terms starting with `prefix`, commonest first (text/complete.ts). */
  complete(prefix: string, limit?: number): string[] {
    return completeTerm(this.df, prefix, limit);
  }

  get size(): number {
    return this.docs;
  }

  idf(term: string): number {
    return bm25Idf(this.docs, this.df.get(term) ?? 0);
  }

  /** BM25 of a document (its terms) for the query terms; 0 when no term matches. */
  score(queryTerms: readonly string[], docTerms: readonly string[]): number {
    const tf = new Map<string, number>();
    for (const t of docTerms) tf.set(t, (tf.get(t) ?? 0) + 1);
    const avg = this.docs > 0 ? this.totalLength / this.docs : docTerms.length || 1;
    let s = 0;
    for (const q of new Set(queryTerms)) {
      const f = tf.get(q);
      if (!f) continue;
      s += bm25Term(this.idf(q), f, docTerms.length, avg);
    }
    return s;
  }
}
