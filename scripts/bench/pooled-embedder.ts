/**
 * An Embedder for seeding large benchmark stores fast: texts registered as "fragment a + fragment
 * b" of an embedded pool get the token-weighted mean of the two fragment vectors (normalized)
 * instead of a model run; everything else (queries, unregistered texts) goes to the real model.
 *
 * Why this stands in for the model: mean pooling averages token vectors, so the pooled vector of a
 * concatenation is close to the token-weighted mean of its parts' pooled vectors. `fidelity()`
 * measures how close on real model output, and the benchmark reports it.
 */
import type { Embedder } from '../../engine/index.js';
import { cosine } from '../../engine/index.js';
import { DelegatingEmbedder } from './delegating-embedder.js';

/** A rough WordPiece token count (words and punctuation marks). */
export function roughTokens(text: string): number {
  return (text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).length;
}

export class PooledEmbedder extends DelegatingEmbedder {
  private readonly pending = new Map<string, [number, number]>();
  private poolVectors: Float32Array[] = [];
  private poolTokens: number[] = [];
  /** Texts answered from the pool / by the model. */
  pooled = 0;
  embedded = 0;

  constructor(
    inner: Embedder,
    private readonly pool: readonly string[],
  ) {
    super(inner);
  }

  /** Embed the pool once (the only model work seeding needs). */
  async prepare(): Promise<void> {
    this.poolVectors = await this.inner.embedDocuments(this.pool);
    this.poolTokens = this.pool.map(roughTokens);
  }

  /** Announce that `text` is pool fragment `a` followed by fragment `b`. */
  register(text: string, a: number, b: number): void {
    this.pending.set(text, [a, b]);
  }

  /** The stand-in vector of fragments a + b. */
  mix(a: number, b: number): Float32Array {
    const va = this.poolVectors[a]!;
    const vb = this.poolVectors[b]!;
    const wa = this.poolTokens[a]!;
    const wb = this.poolTokens[b]!;
    const out = new Float32Array(va.length);
    let norm = 0;
    for (let i = 0; i < out.length; i++) {
      const x = wa * va[i]! + wb * vb[i]!;
      out[i] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < out.length; i++) out[i] = out[i]! / norm;
    return out;
  }

  /** Mean cosine between stand-in and real model vectors over some pairs. */
  async fidelity(pairs: readonly [number, number][]): Promise<number> {
    const real = await this.inner.embedDocuments(pairs.map(([a, b]) => `${this.pool[a]!} ${this.pool[b]!}`));
    let sum = 0;
    pairs.forEach(([a, b], i) => (sum += cosine(this.mix(a, b), real[i]!)));
    return sum / pairs.length;
  }

  override async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    const rest: number[] = [];
    texts.forEach((t, i) => {
      const p = this.pending.get(t);
      if (p) {
        out[i] = this.mix(p[0], p[1]);
        this.pending.delete(t);
        this.pooled++;
      } else rest.push(i);
    });
    if (rest.length > 0) {
      const vs = await this.inner.embedDocuments(rest.map((i) => texts[i]!));
      rest.forEach((i, k) => (out[i] = vs[k]!));
      this.embedded += rest.length;
    }
    return out;
  }
}
