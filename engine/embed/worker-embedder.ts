/**
 * An Embedder whose model runs in a worker thread (embed-worker.ts). ONNX Runtime's Node binding
 * runs inference on the calling thread, so in-thread embedding stops everything else the thread
 * does for the whole run; a server answering many searches at once spent ~27% of its main thread
 * there. Here inference overlaps the main thread's HTTP, JSON and result handling. The daemon keeps
 * the in-thread embedder: it answers one recall at a time, and a worker costs memory.
 */
import { Worker } from 'node:worker_threads';
import { EngineError, type EngineErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { ModelSpec } from './model-spec.js';
import { ModelEmbedder } from './model-embedder.js';
import type { FromWorker, ToWorker, WorkerInit } from './worker-protocol.js';

export interface WorkerEmbedderOptions {
  spec: ModelSpec;
  cacheDir: string;
  offline?: boolean;
  logger?: Logger;
}

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (err: unknown) => void;
}

export class WorkerEmbedder extends ModelEmbedder {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private worker: Worker | null = null;
  private closed = false;

  constructor(private readonly opts: WorkerEmbedderOptions) {
    super(opts.spec, opts.logger);
  }

  warm(): void {
    this.send({ type: 'warm' });
  }

  async ready(): Promise<void> {
    await this.request((id) => ({ type: 'ready', id }));
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.request((id) => ({ type: 'embed', id, kind: 'query', texts: [text] }));
    return v!;
  }

  embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return this.request((id) => ({ type: 'embed', id, kind: 'documents', texts: [...texts] }));
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    this.failAll(new EngineError('MODEL_MISSING', 'the embedder was closed'));
    if (w) await w.terminate();
  }

  private request(message: (id: number) => ToWorker): Promise<Float32Array[]> {
    if (this.closed) return Promise.reject(new EngineError('MODEL_MISSING', 'the embedder was closed'));
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // A waiting request keeps the process alive; an idle worker does not.
      if (this.pending.size === 1) this.start().ref();
      this.send(message(id));
    });
  }

  private send(m: ToWorker): void {
    if (!this.closed) this.start().postMessage(m);
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
    return p;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const init: WorkerInit = { spec: this.opts.spec, cacheDir: this.opts.cacheDir, offline: this.opts.offline ?? false };
    // The host's own command-line flags (`--input-type`, `--eval`…) are not the worker's.
    const w = new Worker(new URL('./embed-worker.js', import.meta.url), { workerData: init, execArgv: [] });
    w.unref();
    w.on('message', (m: FromWorker) => {
      if (m.type === 'state') {
        this.realDim = m.dim;
        this.setState(m.state);
      } else if (m.type === 'log') this.log[m.level](m.msg, m.fields);
      else if (m.type === 'done') this.settle(m.id)?.resolve(m.vectors);
      else this.settle(m.id)?.reject(m.code ? new EngineError(m.code as EngineErrorCode, m.message) : new Error(m.message));
    });
    const lost = (why: string): void => {
      if (this.worker !== w) return;
      this.worker = null;
      this.log.error('embedding worker stopped', { why });
      this.setState({ status: 'unavailable', reason: `the embedding worker stopped (${why})` });
      // The next request starts a new worker.
      this.failAll(new EngineError('MODEL_MISSING', `the embedding worker stopped (${why})`));
    };
    w.on('error', (err) => lost(err.message));
    w.on('exit', (code) => lost(`exit code ${code}`));
    this.worker = w;
    return w;
  }

  private failAll(err: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(err);
  }
}
