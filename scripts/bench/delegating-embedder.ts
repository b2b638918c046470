/** An Embedder that hands every call to another one; benchmark wrappers override what they change. */
import type { Embedder, EmbedderState } from '../../engine/index.js';

export class DelegatingEmbedder implements Embedder {
  constructor(protected readonly inner: Embedder) {}

  get model(): string {
    return this.inner.model;
  }
  get dim(): number {
    return this.inner.dim;
  }
  state(): EmbedderState {
    return this.inner.state();
  }
  warm(): void {
    this.inner.warm();
  }
  ready(): Promise<void> {
    return this.inner.ready();
  }
  onState(listener: (s: EmbedderState) => void): () => void {
    return this.inner.onState(listener);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  embedQuery(text: string): Promise<Float32Array> {
    return this.inner.embedQuery(text);
  }
  embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    return this.inner.embedDocuments(texts);
  }
}
