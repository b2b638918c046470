/**
 * Where a recall's daemon-side time goes, measured in this process on the daemon's data dir
 * (with the daemon stopped): embedding the prompt, the hybrid search, and assembling the context
 * block, each on its own, with the same engine, model, filter and options the daemon uses.
 */
import { createEmbedder, LanceStore, MemoryEngine, resolvePaths, type ModelDtypeChoice } from '../../engine/index.js';
import { recall } from '../../daemon/recall.js';
import type { RepoInfo } from '../../daemon/index.js';
import { summarize, type Summary } from './stats.js';

export interface RecallProfile {
  embed: Summary;
  /** engine.search with the query vector cached: store and ranking. */
  search: Summary;
  /** The store's query alone: both channels (run concurrently), vector only, full text only. */
  store: Summary;
  storeVector: Summary;
  storeText: Summary;
  assemble: Summary;
  /** Memories in the context block, mean. */
  items: number;
}

export async function profileRecall(opts: { home: string; modelDir: string; dtype: ModelDtypeChoice; userId: string; repo: RepoInfo; prompts: readonly string[]; contextTokens: number }): Promise<RecallProfile> {
  const paths = resolvePaths(opts.home);
  const embedder = createEmbedder({ model: '', modelDir: opts.modelDir, dtype: opts.dtype, offline: true, cacheDir: paths.modelCache });
  await embedder.ready();
  const engine = new MemoryEngine({ store: new LanceStore({ dir: paths.lanceDir, dim: embedder.dim }), embedder, background: false });
  await engine.open();
  const embed: number[] = [];
  const search: number[] = [];
  const store: number[] = [];
  const storeVector: number[] = [];
  const storeText: number[] = [];
  const assemble: number[] = [];
  let items = 0;
  const session = 'profile-session';
  const filter = { any_of: [{ space: 'project' as const, repo: opts.repo.repo! }, { space: 'personal' as const, user_id: opts.userId }, { run_id: session }] };
  for (const prompt of opts.prompts) {
    const t0 = performance.now();
    const vector = await embedder.embedQuery(prompt);
    embed.push(performance.now() - t0);
    // What engine.search asks of the store for the daemon's top 12 (48 candidates per channel).
    const req = { text: prompt, vector, model: embedder.model, filter, validAt: Date.now(), limit: 48 };
    for (const [list, r] of [
      [store, req],
      [storeVector, { ...req, text: null }],
      [storeText, { ...req, vector: null }],
    ] as const) {
      const s0 = performance.now();
      await engine.store.search(r);
      list.push(performance.now() - s0);
    }
    // The engine caches the query vector: embed once through it, then time the search alone.
    await engine.search({ query: prompt, filter, top_k: 12, threshold: 0.25 });
    const t1 = performance.now();
    await engine.search({ query: prompt, filter, top_k: 12, threshold: 0.25 });
    const searchMs = performance.now() - t1;
    search.push(searchMs);
    const t2 = performance.now();
    const out = await recall(engine, { event: 'UserPromptSubmit', session_id: session, repo: opts.repo, user_id: opts.userId, prompt }, { maxTokens: opts.contextTokens });
    assemble.push(Math.max(0, performance.now() - t2 - searchMs));
    items += out.count;
  }
  await engine.close();
  await embedder.close();
  return { embed: summarize(embed), search: summarize(search), store: summarize(store), storeVector: summarize(storeVector), storeText: summarize(storeText), assemble: summarize(assemble), items: items / Math.max(1, opts.prompts.length) };
}
