/**
 * One MemoryEngine per project, opened on first use, all sharing one embedder. Each project's
 * memories live in their own LanceDB directory, so no query can reach another project's rows.
 */
import path from 'node:path';
import { LanceStore, MemoryEngine, type Embedder, type Logger } from '../engine/index.js';

export interface EngineRegistryOptions {
  dataDir: string;
  embedder: Embedder | null;
  logger: Logger;
  maxContentChars: number;
  maxMetadataBytes: number;
}

export class EngineRegistry {
  private readonly engines = new Map<string, Promise<MemoryEngine>>();
  private readonly openListeners: ((projectId: string, engine: MemoryEngine) => void)[] = [];

  constructor(private readonly opts: EngineRegistryOptions) {}

  projectDir(projectId: string): string {
    return path.join(this.opts.dataDir, 'projects', projectId);
  }

  /** Called for every engine once it is open (events, webhooks hook in here). */
  onOpen(listener: (projectId: string, engine: MemoryEngine) => void): void {
    this.openListeners.push(listener);
  }

  get(projectId: string): Promise<MemoryEngine> {
    let p = this.engines.get(projectId);
    if (!p) {
      p = (async () => {
        const engine = new MemoryEngine({
          store: new LanceStore({ dir: path.join(this.projectDir(projectId), 'lance'), dim: this.opts.embedder?.dim ?? 384, logger: this.opts.logger }),
          embedder: this.opts.embedder,
          logger: this.opts.logger.child(`project:${projectId.slice(-8)}`),
          maxContentChars: this.opts.maxContentChars,
          maxMetadataBytes: this.opts.maxMetadataBytes,
        });
        await engine.open();
        for (const l of this.openListeners) l(projectId, engine);
        return engine;
      })();
      p.catch(() => this.engines.delete(projectId));
      this.engines.set(projectId, p);
    }
    return p;
  }

  async closeAll(): Promise<void> {
    const all = [...this.engines.values()];
    this.engines.clear();
    for (const p of all) await (await p.catch(() => null))?.close();
  }
}
