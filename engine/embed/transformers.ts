/**
 * Embedder on @huggingface/transformers (ONNX Runtime, CPU). Loads lazily: the first `warm()`,
 * `ready()` or embed call starts it; hub models are downloaded once into the data directory's model
 * cache with progress reported through `onState`. A local model folder is loaded with no network.
 */
import path from 'node:path';
import type { Logger } from '../log.js';
import { EngineError } from '../errors.js';
import type { ModelSpec } from './model-spec.js';
import { quantizedModelFolder } from './quantize.js';
import { ModelEmbedder } from './model-embedder.js';
import { removeOnnxDebugLog } from '../onnx-litter.js';

export interface TransformersEmbedderOptions {
  spec: ModelSpec;
  /** Where hub downloads are cached. */
  cacheDir: string;
  /** Never touch the network (hub models must already be cached). */
  offline?: boolean;
  /** Texts per inference batch. @default 32 */
  batchSize?: number;
  logger?: Logger;
}

type Extractor = (texts: string[], opts: { pooling: 'mean' | 'cls'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

/** Retry a failed load no sooner than this (a download may work later). */
const RETRY_MS = 10 * 60_000;

/**
 * ONNX Runtime session options. Its thread pool's workers spin after every run by default: ~30 ms
 * of a core burned after each query, on a 2-core machine taking a core from the store's search
 * that follows (hybrid search at 100k: ~14 ms after an embedding, ~10 without spinning) and from
 * the hook processes starting meanwhile. Without spinning, queries embed as fast (±0.3 ms) and
 * batches faster (615 vs 550 documents/s on 2 cores, using 1.7 cores instead of 2).
 */
const SESSION_OPTIONS = {
  enableCpuMemArena: false,
  extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
};

export class TransformersEmbedder extends ModelEmbedder {
  private loading: Promise<Extractor> | null = null;
  private extractor: Extractor | null = null;
  private failedAt = 0;

  constructor(private readonly opts: TransformersEmbedderOptions) {
    super(opts.spec, opts.logger);
  }

  warm(): void {
    this.load().catch(() => {});
  }

  async ready(): Promise<void> {
    await this.load();
  }

  private load(): Promise<Extractor> {
    if (this.extractor) return Promise.resolve(this.extractor);
    if (this.loading) return this.loading;
    const now = this.state();
    if (now.status === 'unavailable' && Date.now() - this.failedAt < RETRY_MS) {
      return Promise.reject(new EngineError('MODEL_MISSING', now.reason));
    }
    this.loading = this.doLoad().then(
      (ex) => {
        this.extractor = ex;
        this.loading = null;
        this.setState({ status: 'ready' });
        return ex;
      },
      (err: unknown) => {
        this.loading = null;
        this.failedAt = Date.now();
        const reason = describeLoadError(err, this.opts);
        this.log.warn('embedding model unavailable', { reason });
        this.setState({ status: 'unavailable', reason });
        throw new EngineError('MODEL_MISSING', reason);
      },
    );
    return this.loading;
  }

  private async doLoad(): Promise<Extractor> {
    this.setState({ status: 'loading' });
    const { spec } = this.opts;
    const t = await import('@huggingface/transformers');
    t.env.allowLocalModels = true;
    let localRoot = spec.localRoot;
    if (spec.quantizeFrom) {
      const t0 = performance.now();
      localRoot = path.dirname(await quantizedModelFolder(spec.quantizeFrom, path.join(this.opts.cacheDir, 'quantized')));
      this.log.info('int8 copy of the model ready', { from: spec.quantizeFrom, ms: Math.round(performance.now() - t0) });
    }
    if (localRoot) {
      t.env.localModelPath = localRoot.endsWith('/') ? localRoot : `${localRoot}/`;
      t.env.allowRemoteModels = false;
    } else {
      t.env.cacheDir = this.opts.cacheDir;
      t.env.localModelPath = `${this.opts.cacheDir}/`;
      t.env.allowRemoteModels = !this.opts.offline;
    }
    const pipe = await t.pipeline('feature-extraction', spec.name, {
      dtype: spec.dtype,
      local_files_only: localRoot !== null || Boolean(this.opts.offline),
      session_options: SESSION_OPTIONS,
      progress_callback: (p: { status: string; file?: string; loaded?: number; total?: number; progress?: number }) => {
        if (p.status === 'progress' || p.status === 'progress_total') {
          this.setState({ status: 'downloading', file: p.file ?? spec.name, loaded: p.loaded ?? 0, total: p.total ?? 0, progress: p.progress ?? 0 });
        }
      },
    });
    removeOnnxDebugLog();
    // Cap tokens per text (attention cost is quadratic). transformers.js reads the cap from the
    // tokenizer config; there is no public setter.
    const tokenizer = (pipe as unknown as { tokenizer?: { _tokenizerConfig?: { model_max_length?: number } } }).tokenizer;
    if (tokenizer?._tokenizerConfig) {
      tokenizer._tokenizerConfig.model_max_length = Math.min(tokenizer._tokenizerConfig.model_max_length ?? Infinity, spec.maxTokens);
    }
    const extractor = pipe as unknown as Extractor;
    const probe = await extractor(['probe'], { pooling: spec.pooling, normalize: true });
    this.realDim = probe.dims[probe.dims.length - 1] ?? spec.dim;
    this.log.info('embedding model ready', { model: spec.id, dim: this.realDim });
    return extractor;
  }

  async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    return this.embed(texts.map((t) => this.opts.spec.documentPrefix + t));
  }

  /**
   * Queries that arrive while one inference runs wait for it and then run together as one batch,
   * and a batch starts one event-loop turn after its first query, so requests read in the same
   * turn join it. One query at a time waits for nothing; under load (a server answering many
   * searches at once) a batch of 8 costs about 60% of 8 single runs. (ONNX Runtime's Node binding
   * runs inference on the JS thread, so nothing else is served during a run anyway.)
   */
  embedQuery(text: string): Promise<Float32Array> {
    return new Promise((resolve, reject) => {
      this.queries.push({ text: this.opts.spec.queryPrefix + text, resolve, reject });
      if (!this.queryRunning) {
        this.queryRunning = true;
        setImmediate(() => void this.runQueries());
      }
    });
  }

  private readonly queries: { text: string; resolve: (v: Float32Array) => void; reject: (err: unknown) => void }[] = [];
  private queryRunning = false;
  /** Inference runs and texts embedded so far (for tests and diagnostics). */
  readonly runs = { inferences: 0, texts: 0 };

  private async runQueries(): Promise<void> {
    try {
      while (this.queries.length > 0) {
        const batch = this.queries.splice(0, this.opts.batchSize ?? 32);
        try {
          const vectors = await this.embed(batch.map((q) => q.text));
          batch.forEach((q, i) => q.resolve(vectors[i]!));
        } catch (err) {
          for (const q of batch) q.reject(err);
        }
      }
    } finally {
      this.queryRunning = false;
    }
  }

  private async embed(texts: string[]): Promise<Float32Array[]> {
    const ex = await this.load();
    const out: Float32Array[] = new Array<Float32Array>(texts.length);
    // Similar lengths in one batch waste less work on padding.
    const order = texts.map((t, i) => [t.length, i] as const).sort((a, b) => a[0] - b[0]);
    const size = this.opts.batchSize ?? 32;
    for (let i = 0; i < order.length; i += size) {
      const idx = order.slice(i, i + size).map(([, j]) => j);
      const res = await ex(
        idx.map((j) => texts[j]!),
        { pooling: this.opts.spec.pooling, normalize: true },
      );
      this.runs.inferences++;
      this.runs.texts += idx.length;
      const dim = res.dims[res.dims.length - 1]!;
      idx.forEach((j, k) => {
        out[j] = res.data.slice(k * dim, (k + 1) * dim);
      });
    }
    return out;
  }

  async close(): Promise<void> {
    const ex = this.extractor as unknown as { dispose?: () => Promise<void> } | null;
    this.extractor = null;
    await ex?.dispose?.();
  }
}

function describeLoadError(err: unknown, opts: TransformersEmbedderOptions): string {
  const msg = err instanceof Error ? err.message : String(err);
  if (opts.spec.localRoot) return `cannot load the model folder ${opts.spec.localRoot}/${opts.spec.name}: ${msg}`;
  if (opts.offline) return `model ${opts.spec.name} is not in the cache and SERVICE_OFFLINE is set; set SERVICE_MODEL_DIR to a local model folder`;
  return `cannot load model ${opts.spec.name} (${msg}); running on full-text search only. Check the network or set SERVICE_MODEL_DIR to a local model folder`;
}
