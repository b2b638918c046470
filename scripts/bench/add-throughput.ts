/**
 * Add throughput with real embedding: sequential single adds (each waits for its commit), and many
 * concurrent adds (the engine group-commits them), plus the model alone on the same texts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LanceStore, MemoryEngine, type Embedder } from '../../engine/index.js';
import { fragmentPool, memoryText, placement } from './corpus.js';
import { Rng } from './rng.js';
import { summarize, type Summary } from './stats.js';

export interface AddThroughput {
  single: { n: number; perSecond: number; latency: Summary };
  batch: { n: number; perSecond: number };
  embedOnly: { n: number; perSecond: number };
}

export async function measureAdds(embedder: Embedder, opts: { dir: string; single: number; batch: number; seed: number }): Promise<AddThroughput> {
  const pool = fragmentPool(opts.seed, 800);
  const rng = new Rng(opts.seed);
  const text = (k: number): string => memoryText(pool, k);
  const store = new LanceStore({ dir: path.join(opts.dir, 'adds'), dim: embedder.dim });
  const engine = new MemoryEngine({ store, embedder });
  await engine.open();
  await embedder.ready();
  try {
    // Warm up the write path (first table writes, model session).
    await Promise.all(Array.from({ length: 32 }, (_, i) => engine.add({ content: text(1_000_000 + i), ...placement(rng) })));

    const lat: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < opts.single; i++) {
      const s = performance.now();
      await engine.add({ content: text(i), ...placement(rng) });
      lat.push(performance.now() - s);
    }
    const singleSec = (performance.now() - t0) / 1000;

    const texts = Array.from({ length: opts.batch }, (_, i) => text(opts.single + i));
    const t1 = performance.now();
    await Promise.all(texts.map((content) => engine.add({ content, ...placement(rng) })));
    const batchSec = (performance.now() - t1) / 1000;

    const t2 = performance.now();
    await embedder.embedDocuments(texts);
    const embedSec = (performance.now() - t2) / 1000;

    return {
      single: { n: opts.single, perSecond: opts.single / singleSec, latency: summarize(lat) },
      batch: { n: opts.batch, perSecond: opts.batch / batchSec },
      embedOnly: { n: opts.batch, perSecond: opts.batch / embedSec },
    };
  } finally {
    await engine.close();
    fs.rmSync(path.join(opts.dir, 'adds'), { recursive: true, force: true });
  }
}
