/**
 * Resident memory of a daemon-like process: a fresh process opens the benchmark store, loads the
 * model and serves searches; it prints one JSON line with RSS at each step. Run by engine.ts as a
 * child so the benchmark's own data (texts, pools) does not count.
 *
 *   node dist/scripts/bench/rss-probe.js --db DIR --model-dir DIR --cache DIR [--dtype auto|q8|fp32] [--searches N]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder, LanceStore, MemoryEngine, type ModelDtypeChoice } from '../../engine/index.js';
import { query, REPOS } from './corpus.js';
import { Rng } from './rng.js';

export interface RssReport {
  /** Node alone, before the store opens. */
  start: number;
  opened: number;
  modelReady: number;
  afterSearches: number;
  heapUsed: number;
  searches: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      'model-dir': { type: 'string' },
      cache: { type: 'string' },
      dtype: { type: 'string', default: 'auto' },
      searches: { type: 'string', default: '400' },
    },
  });
  if (!values.db || !values['model-dir'] || !values.cache) throw new Error('usage: rss-probe --db DIR --model-dir DIR --cache DIR');
  const rss = (): number => process.memoryUsage().rss;
  const start = rss();
  const embedder = createEmbedder({ model: '', modelDir: path.resolve(values['model-dir']), dtype: values.dtype as ModelDtypeChoice, offline: true, cacheDir: values.cache });
  const store = new LanceStore({ dir: values.db, dim: embedder.dim });
  const engine = new MemoryEngine({ store, embedder, background: false });
  await engine.open();
  const opened = rss();
  await embedder.ready();
  const modelReady = rss();
  const rng = new Rng(99);
  const n = Number(values.searches);
  for (let i = 0; i < n; i++) {
    const repo = REPOS[rng.skewed(REPOS.length)]!;
    await engine.search({ query: query(rng), top_k: 5, ...(i % 2 === 0 ? { scope: 'repo' as const, repo } : {}) });
  }
  const report: RssReport = { start, opened, modelReady, afterSearches: rss(), heapUsed: process.memoryUsage().heapUsed, searches: n };
  await engine.close();
  console.log(JSON.stringify(report));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
