/**
 * Grows a daemon's data dir to a number of memories, fast: through the engine's batch import
 * (`engine.import`, the path behind `POST /v1/imports`) with vectors from a pre-embedded pool of
 * sentences (pooled-embedder.ts) instead of one model run per memory. The store is open only while
 * `growTo` runs (the daemon, stopped meanwhile, opens the same LanceDB directory afterwards); the
 * model and the embedded pool stay loaded between calls.
 *
 * Every memory is in scope of the benchmark's recall: 90% are project memories of the repository
 * the hooks run in, 10% the user's personal memories, so a recall at 100k searches all 100k.
 */
import { createEmbedder, LanceStore, MemoryEngine, resolvePaths, uuidv7, type Embedder, type ModelDtypeChoice } from '../../engine/index.js';
import { fragmentPool, memoryText, pairOf } from './corpus.js';
import { PooledEmbedder } from './pooled-embedder.js';
import { Rng } from './rng.js';

const CATEGORIES = ['decision', 'constraint', 'preference', 'convention', 'context', 'fact', 'note'] as const;
const DIRS = ['src', 'src/api', 'src/db', 'lib', 'test', 'scripts', 'infra'];
/** Rows per import batch handed to the engine (it commits in batches of 500). */
const CHUNK = 5000;
/** Compact and fold new rows into the indexes after this many imported rows. */
const MAINTAIN_EVERY = 20_000;

export interface SeedTarget {
  home: string;
  modelDir: string;
  dtype: ModelDtypeChoice;
  userId: string;
  repo: string;
}

export interface Seeder {
  /** Open the store, import memories until it holds `target`, close it; seconds spent (import, maintenance). */
  growTo(target: number): Promise<{ importSec: number; maintainSec: number }>;
  readonly count: number;
  close(): Promise<void>;
}

export async function openSeeder(t: SeedTarget, opts: { poolSize: number; seed: number }): Promise<Seeder> {
  const embedder: Embedder = createEmbedder({ model: '', modelDir: t.modelDir, dtype: t.dtype, offline: true, cacheDir: resolvePaths(t.home).modelCache });
  await embedder.ready();
  const pool = fragmentPool(opts.seed, opts.poolSize);
  const pooled = new PooledEmbedder(embedder, pool);
  await pooled.prepare();
  const rng = new Rng(opts.seed + 1);
  let count = 0;

  function line(k: number): string {
    const [a, b] = pairOf(k, pool.length);
    const content = memoryText(pool, k);
    pooled.register(content, a, b);
    const personal = rng.next() < 0.1;
    const at = new Date(Date.now() - (1_000_000 - k) * 60_000).toISOString();
    return JSON.stringify({
      kind: 'version',
      version_id: uuidv7(),
      memory_id: uuidv7(),
      version: 1,
      tx: 1,
      content,
      user_id: t.userId,
      agent_id: null,
      app_id: null,
      run_id: `seed-run-${rng.int(2000)}`,
      owner_id: t.userId,
      space: personal ? 'personal' : 'project',
      repo: personal ? null : t.repo,
      dir: personal ? null : rng.pick(DIRS),
      category: rng.pick(CATEGORIES),
      metadata: {},
      source: { kind: 'import' },
      valid_from: at,
      valid_to: null,
      recorded_at: at,
      created_at: at,
      deleted: false,
      block: null,
    });
  }

  return {
    get count() {
      return count;
    },
    async growTo(target: number) {
      const engine = new MemoryEngine({ store: new LanceStore({ dir: resolvePaths(t.home).lanceDir, dim: embedder.dim }), embedder: pooled, background: false });
      await engine.open();
      count = (await engine.status()).memories;
      let importMs = 0;
      let maintainMs = 0;
      let sinceMaintain = 0;
      while (count < target) {
        const n = Math.min(CHUNK, target - count);
        const lines = Array.from({ length: n }, (_, i) => line(count + i));
        const t0 = performance.now();
        const r = await engine.import(lines);
        importMs += performance.now() - t0;
        count += r.memories;
        sinceMaintain += r.memories;
        if (sinceMaintain >= MAINTAIN_EVERY || count >= target) {
          const t1 = performance.now();
          await engine.maintain(true);
          maintainMs += performance.now() - t1;
          sinceMaintain = 0;
        }
        process.stdout.write(`\r  seeded ${count}/${target}`);
      }
      process.stdout.write('\n');
      await engine.close();
      return { importSec: importMs / 1000, maintainSec: maintainMs / 1000 };
    },
    async close() {
      await embedder.close();
    },
  };
}
