/**
 * What the two real embedders share: the model id and dimension of their spec (the dimension
 * corrected once the model has loaded), a logger, and the state with its listeners.
 */
import { silentLogger, type Logger } from '../log.js';
import type { ModelSpec } from './model-spec.js';
import type { Embedder, EmbedderState } from './types.js';

export abstract class ModelEmbedder implements Embedder {
  readonly model: string;
  /** The spec's dimension until the loaded model reports its own. */
  protected realDim: number;
  protected readonly log: Logger;
  private current: EmbedderState = { status: 'idle' };
  private readonly listeners = new Set<(s: EmbedderState) => void>();

  constructor(spec: ModelSpec, logger: Logger | undefined) {
    this.model = spec.id;
    this.realDim = spec.dim;
    this.log = (logger ?? silentLogger).child('embed');
  }

  get dim(): number {
    return this.realDim;
  }

  state(): EmbedderState {
    return this.current;
  }

  onState(listener: (s: EmbedderState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected setState(s: EmbedderState): void {
    this.current = s;
    for (const l of this.listeners) l(s);
  }

  abstract warm(): void;
  abstract ready(): Promise<void>;
  abstract embedDocuments(texts: readonly string[]): Promise<Float32Array[]>;
  abstract embedQuery(text: string): Promise<Float32Array>;
  abstract close(): Promise<void>;
}
