/**
 * Do many single adds degrade search? On a seeded store with background maintenance on (the
 * engine's own timer), run sequential single adds (real embedding) while a recall-like search loop
 * runs beside them; after each window, pause and probe search latency on a quiet store, and read
 * the tables' fragment and unindexed-row counts.
 */
import type { LanceStore, MemoryEngine, SearchInput } from '../../engine/index.js';
import { fragmentPool, memoryText, placement } from './corpus.js';
import { Rng } from './rng.js';
import type { BenchQuery } from './search-latency.js';
import { summarize, type Summary } from './stats.js';

export interface ChurnWindow {
  adds: number;
  addsPerSecond: number;
  /** Search latency while adds were running (shares the CPU with embedding and commits). */
  during: Summary;
  /** Search latency right after the window, with no writes or maintenance running. */
  quiet: Summary;
  fragments: { versions: number; current: number };
  /** Current-table rows not yet in the vector / full-text index. */
  unindexed: { vector: number; text: number };
}

export const SEARCH_GAP_MS = 20;

function recall(q: BenchQuery): SearchInput {
  return { query: q.text, scope: 'repo', repo: q.repo, top_k: 5 };
}

async function probe(engine: MemoryEngine, store: LanceStore, queries: readonly BenchQuery[]): Promise<Summary> {
  await engine.flushWrites();
  await store.maintenanceIdle(); // quiet: no compaction in flight (what is pending stays pending)
  const lat: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await engine.search(recall(q));
    lat.push(performance.now() - t);
  }
  return summarize(lat);
}

async function physical(store: LanceStore): Promise<Pick<ChurnWindow, 'fragments' | 'unindexed'>> {
  const d = await store.diagnostics();
  const v = d.find((x) => x.table === 'versions')!;
  const c = d.find((x) => x.table === 'current')!;
  return { fragments: { versions: v.fragments, current: c.fragments }, unindexed: { vector: c.unindexed.vector ?? c.rows, text: c.unindexed.search_terms ?? c.rows } };
}

export async function measureChurn(
  engine: MemoryEngine,
  store: LanceStore,
  queries: readonly BenchQuery[],
  opts: { adds: number; window: number; seed: number },
): Promise<ChurnWindow[]> {
  const pool = fragmentPool(opts.seed, 600);
  const rng = new Rng(opts.seed);
  for (const q of queries) await engine.search(recall(q)); // cache the query vectors
  const windows: ChurnWindow[] = [{ adds: 0, addsPerSecond: NaN, during: summarize([]), quiet: await probe(engine, store, queries), ...(await physical(store)) }];
  let k = 0;
  while (k < opts.adds) {
    const n = Math.min(opts.window, opts.adds - k);
    let adding = true;
    const during: number[] = [];
    const searching = (async () => {
      let i = 0;
      while (adding) {
        const t = performance.now();
        await engine.search(recall(queries[i++ % queries.length]!));
        during.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, SEARCH_GAP_MS));
      }
    })();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await engine.add({ content: memoryText(pool, 5_000_000 + k + i), ...placement(rng) });
    const sec = (performance.now() - t0) / 1000;
    adding = false;
    await searching;
    k += n;
    windows.push({ adds: k, addsPerSecond: n / sec, during: summarize(during), quiet: await probe(engine, store, queries), ...(await physical(store)) });
  }
  return windows;
}
