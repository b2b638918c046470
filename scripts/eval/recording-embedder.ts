/**
 * An Embedder that remembers the document vectors it made (text → vector), so the peer's loader
 * can be given the very vectors the same model produced for the same texts instead of embedding
 * every turn a second time (scripts/eval/embeddings-endpoint.ts `known`). Queries pass through.
 */
import { DelegatingEmbedder } from '../bench/delegating-embedder.js';

export class RecordingEmbedder extends DelegatingEmbedder {
  readonly documents = new Map<string, Float32Array>();

  override async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    const vectors = await this.inner.embedDocuments(texts);
    texts.forEach((t, i) => this.documents.set(t, vectors[i]!));
    return vectors;
  }
}
