import { bm25Idf, bm25Term } from './term-stats.js';
import { completeTerm } from './complete.js';
import { terms } from './tokenize.js';

/** A small in-memory BM25 inverted index keyed by document id. */
export class Bm25Index {
  private readonly postings = new Map<string, Map<string, number>>();
  private readonly lengths = new Map<string, number>();
  private totalLength = 0;

  get size(): number {
    return this.lengths.size;
  }

  add(id: string, text: string): void {
    this.remove(id);
    const ts = terms(text);
    const tf = new Map<string, number>();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = new Map()));
      p.set(id, n);
    }
    this.lengths.set(id, ts.length);
    this.totalLength += ts.length;
  }

  remove(id: string): void {
    const len = this.lengths.get(id);
    if (len === undefined) return;
    for (const [t, p] of this.postings) {
      if (p.delete(id) && p.size === 0) this.postings.delete(t);
    }
    this.lengths.delete(id);
    this.totalLength -= len;
  }

  /** Indexed terms starting with `prefix`, commonest first (text/complete.ts). */
  complete(prefix: string, limit?: number): string[] {
    const counts = (function* (postings: Map<string, Map<string, number>>): Generator<[string, number]> {
      for (const [t, p] of postings) yield [t, p.size];
    })(this.postings);
    return completeTerm(counts, prefix, limit);
  }

  /** Scores of every document matching at least one query term, for those accepted by `keep`. */
  score(query: string, keep: (id: string) => boolean = () => true): Map<string, number> {
    const out = new Map<string, number>();
    const n = this.lengths.size;
    if (n === 0) return out;
    const avg = this.totalLength / n || 1;
    for (const t of new Set(terms(query))) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = bm25Idf(n, p.size);
      for (const [id, tf] of p) {
        if (!keep(id)) continue;
        const dl = this.lengths.get(id) ?? 0;
        out.set(id, (out.get(id) ?? 0) + bm25Term(idf, tf, dl, avg));
      }
    }
    return out;
  }
}
