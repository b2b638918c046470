/** The engine's cache of query embeddings (recall repeats queries): least recently used goes first. */

/** A query embedding cache entry. */
interface CachedVector {
  model: string;
  vector: Float32Array;
}

const QUERY_CACHE_SIZE = 256;

export class QueryVectorCache {
  private readonly entries = new Map<string, CachedVector>();

  /** The vector `model` made for `key`, now the most recently used; undefined when not cached. */
  get(key: string, model: string): Float32Array | undefined {
    const hit = this.entries.get(key);
    if (!hit || hit.model !== model) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.vector;
  }

  set(key: string, model: string, vector: Float32Array): void {
    this.entries.set(key, { model, vector });
    if (this.entries.size > QUERY_CACHE_SIZE) this.entries.delete(this.entries.keys().next().value!);
  }

  clear(): void {
    this.entries.clear();
  }
}
