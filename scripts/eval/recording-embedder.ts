/**
 * An Embedder that remembers the document vectors it made (text → vector), so the peer's loader
 * can be given the very vectors the same model produced for the same texts instead of embedding
 * every turn a second time (scripts/eval/embeddings-endpoint.ts `known`). Queries pass through.
 */
import type { Embedder, EmbedderState } from '../../engine/index.js';

export class RecordingEmbedder implements Embedder {
  readonly documents = new Map<string, Float32Array>();

  constructor(private readonly inner: Embedder) {}

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
  async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors = await this.inner.embedDocuments(texts);
    texts.forEach((t, i) => this.documents.set(t, vectors[i]!));
    return vectors;
  }
}
