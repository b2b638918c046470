/**
 * Grows a benchmark engine to a target number of memories through `engine.add` (the real write
 * path: group commit, both tables, indexes), with vectors from the pooled embedder.
 */
import type { MemoryEngine } from '../../engine/index.js';
import { memoryText, pairOf, placement } from './corpus.js';
import type { PooledEmbedder } from './pooled-embedder.js';
import { Rng } from './rng.js';

export interface Seeder {
  /** Memories added so far. */
  readonly count: number;
  /** Add memories until there are `target`; returns memories per second of this call. */
  growTo(target: number): Promise<number>;
}

/** Concurrent adds in flight per wave (the engine commits them in batches). */
const WAVE = 2000;

export function seeder(engine: MemoryEngine, pooled: PooledEmbedder, pool: readonly string[], seed: number): Seeder {
  let count = 0;
  const rng = new Rng(seed);
  return {
    get count() {
      return count;
    },
    async growTo(target: number): Promise<number> {
      const t0 = performance.now();
      const start = count;
      while (count < target) {
        const n = Math.min(WAVE, target - count);
        const adds: Promise<unknown>[] = [];
        for (let i = 0; i < n; i++) {
          const k = count + i;
          const [a, b] = pairOf(k, pool.length);
          const content = memoryText(pool, k);
          pooled.register(content, a, b);
          adds.push(engine.add({ content, ...placement(rng) }));
        }
        await Promise.all(adds);
        count += n;
      }
      await engine.flushWrites();
      return (count - start) / ((performance.now() - t0) / 1000);
    },
  };
}
