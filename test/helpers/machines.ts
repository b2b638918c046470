/**
 * In-process machines for sync tests: an engine (in-memory, or LanceDB in a temp dir) with its own
 * SyncService and HTTP transport pointed at a real server. Cheaper than daemon processes, so the
 * protocol's corner cases are tested here and the daemons test the wiring.
 */
import path from 'node:path';
import { InMemoryStore, LanceStore, MemoryEngine, type Embedder } from '../../engine/index.js';
import { HttpTransport, SyncService, type SyncServiceOptions } from '../../sync/index.js';
import { tempDir } from './tmp.js';

export interface Machine {
  dir: string;
  engine: MemoryEngine;
  sync: SyncService;
  transport: HttpTransport | null;
  /** Stop sync (draining) and close the engine. */
  close(): Promise<void>;
}

export interface MachineOptions {
  url: string | null;
  key: string;
  /** Reuse a data dir (restart). */
  dir?: string;
  store?: 'memory' | 'lance';
  embedder?: Embedder | null;
  timeoutMs?: number;
  sync?: Partial<Omit<SyncServiceOptions, 'engine' | 'stateFile' | 'transport'>>;
}

export async function startMachine(o: MachineOptions): Promise<Machine> {
  const dir = o.dir ?? tempDir('machine-');
  const embedder = o.embedder ?? null;
  const store = o.store === 'lance' ? new LanceStore({ dir: path.join(dir, 'lance'), dim: embedder?.dim ?? 64 }) : new InMemoryStore();
  const engine = new MemoryEngine({ store, embedder, background: false });
  await engine.open();
  const transport = o.url ? new HttpTransport({ baseUrl: o.url, apiKey: o.key, timeoutMs: o.timeoutMs ?? 5000 }) : null;
  const sync = new SyncService({
    engine,
    stateFile: path.join(dir, 'sync.json'),
    transport,
    offReason: 'no server in this test',
    intervalMs: 3_600_000,
    batch: 50,
    retryBaseMs: 50,
    retryMaxMs: 500,
    // Rounds run only when a test calls now(), so every report counts exactly that round.
    auto: false,
    ...o.sync,
  });
  await sync.start();
  return {
    dir,
    engine,
    sync,
    transport,
    close: async () => {
      await sync.stop({ drainMs: 1000 });
      await engine.close();
    },
  };
}

/** Run full rounds on every machine, in order, `times` times (enough for every change to travel). */
export async function syncAll(machines: readonly Machine[], times = 2): Promise<void> {
  for (let i = 0; i < times; i++) {
    for (const m of machines) {
      const r = await m.sync.now();
      if (!r.ok) throw new Error(`sync round failed: ${r.error?.message}`);
    }
  }
}
