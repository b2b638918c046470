/** What the embedder can do right now; the engine degrades to full-text search unless `ready`. */
export type EmbedderState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'downloading'; file: string; loaded: number; total: number; progress: number }
  | { status: 'ready' }
  | { status: 'unavailable'; reason: string };

/** Turns text into vectors. Two implementations: the transformers.js one and a deterministic fake. */
export interface Embedder {
  /** Stored beside every vector; vectors of two models are never compared. */
  readonly model: string;
  /** Vector dimension. */
  readonly dim: number;
  state(): EmbedderState;
  /** Start loading (downloading if needed) without waiting. Safe to call repeatedly. */
  warm(): void;
  /** Wait until ready; rejects with MODEL_MISSING when the model cannot be had. */
  ready(): Promise<void>;
  /** Embed texts to be stored (document prefix applied where the model needs one). */
  embedDocuments(texts: readonly string[]): Promise<Float32Array[]>;
  /** Embed a search query (query prefix applied where the model needs one). */
  embedQuery(text: string): Promise<Float32Array>;
  /** Listen to state changes (download progress, ready, unavailable). Returns an unsubscribe. */
  onState(listener: (s: EmbedderState) => void): () => void;
  close(): Promise<void>;
}
