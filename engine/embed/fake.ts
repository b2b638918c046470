/**
 * Deterministic embedder for unit tests: a signed random projection of the text's terms (feature
 * hashing). Texts sharing terms get similar vectors; the same text always gets the same vector.
 */
import { createHash } from 'node:crypto';
import { terms } from '../text/tokenize.js';
import type { Embedder, EmbedderState } from './types.js';

export class FakeEmbedder implements Embedder {
  readonly model: string;
  calls = 0;
  private readonly cache = new Map<string, Float32Array>();

  constructor(
    readonly dim = 64,
    model?: string,
  ) {
    this.model = model ?? `fake-hash-${dim}`;
  }

  state(): EmbedderState {
    return { status: 'ready' };
  }
  warm(): void {}
  async ready(): Promise<void> {}
  onState(): () => void {
    return () => {};
  }
  async close(): Promise<void> {}

  async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    return texts.map((t) => this.vector(t));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    this.calls++;
    return this.vector(text);
  }

  private vector(text: string): Float32Array {
    const v = new Float32Array(this.dim);
    for (const term of terms(text)) {
      let basis = this.cache.get(term);
      if (!basis) {
        basis = new Float32Array(this.dim);
        let x = createHash('sha256').update(term).digest().readUInt32LE(0) || 1;
        for (let i = 0; i < this.dim; i++) {
          x ^= x << 13;
          x ^= x >>> 17;
          x ^= x << 5;
          basis[i] = x & 1 ? 1 : -1;
        }
        this.cache.set(term, basis);
      }
      for (let i = 0; i < this.dim; i++) v[i]! += basis[i]!;
    }
    let n = 0;
    for (let i = 0; i < this.dim; i++) n += v[i]! * v[i]!;
    n = Math.sqrt(n);
    if (n > 0) for (let i = 0; i < this.dim; i++) v[i]! /= n;
    return v;
  }
}
