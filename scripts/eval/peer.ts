/**
 * The side-by-side run against mem0 (issue 8), driven by scripts/eval/locomo.ts: the same LoCoMo
 * turns go into both systems with the same embedding model, then each question is asked of both,
 * one at a time, alternating which goes first, so both see the same machine at the same moment.
 * This module holds mem0's half (the endpoint, the fetch guard, its adds and searches) and the
 * timings of ours that the caller hands it.
 */
import os from 'node:os';
import path from 'node:path';
import type { Embedder, MemoryEngine } from '../../engine/index.js';
import { summarize } from '../bench/stats.js';
import { startEmbeddingsEndpoint, type EmbeddingsEndpoint } from './embeddings-endpoint.js';
import { ADD_WINDOW, inWindow, userOf } from './engine-corpus.js';
import { CATEGORY_NAMES, memoryContent, type LocomoConversation, type LocomoQuestion } from './locomo-data.js';
import { createMem0, type Mem0Peer } from './mem0-peer.js';
import { aggregate, type Judged } from './metrics.js';
import type { PeerResults } from './peer-report.js';

const TOP_K = 25;

/** Refuse (and count) network requests that leave the machine while the peer runs. */
function guardFetch(): { blocked: () => number; restore: () => void } {
  let blocked = 0;
  const original = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
      blocked++;
      return Promise.reject(new Error(`network request to ${url.host} refused by the benchmark`));
    }
    return original(input, init);
  };
  return { blocked: () => blocked, restore: () => (globalThis.fetch = original) };
}

interface Side {
  ms: number[];
  embed: number[];
  judged: Judged[];
}

export class PeerRun {
  private readonly ours: Side = { ms: [], embed: [], judged: [] };
  private readonly peer: Side & { sqlite: number[]; requests: number } = { ms: [], embed: [], judged: [], sqlite: [], requests: 0 };
  private mem0Adds = { memories: 0, ms: 0 };
  private httpMsPerRequest = 0;

  private constructor(
    private readonly endpoint: EmbeddingsEndpoint,
    private readonly mem0: Mem0Peer,
    private readonly guard: ReturnType<typeof guardFetch>,
    private readonly load: string,
  ) {}

  /** `known`: vectors our engine already made for the turns (used to load all but the timed adds). */
  static async start(embedder: Embedder, opts: { modelName: string; tmp: string; known?: ReadonlyMap<string, Float32Array> }): Promise<PeerRun> {
    const load = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
    const guard = guardFetch();
    const endpoint = await startEmbeddingsEndpoint(embedder, { model: opts.modelName, ...(opts.known ? { known: opts.known } : {}) });
    const mem0 = await createMem0({ baseURL: endpoint.baseURL, dim: embedder.dim, home: path.join(opts.tmp, 'mem0-home'), model: opts.modelName });
    return new PeerRun(endpoint, mem0, guard, load);
  }

  get version(): string {
    return this.mem0.version;
  }

  /**
   * Every turn into mem0, one add per turn, 64 in flight, conversation by conversation (its only
   * write path). The first conversation's adds are timed on their own, every vector made by the
   * model: add throughput is compared on them, as ours is (both stores empty before). The other
   * conversations' vectors come from what our engine already embedded, to keep the run short.
   */
  async ingest(conversations: readonly LocomoConversation[]): Promise<void> {
    for (const [i, c] of conversations.entries()) {
      this.endpoint.useKnown = i > 0;
      const t0 = performance.now();
      await inWindow(c.turns, ADD_WINDOW, (t) => this.mem0.memory.add(memoryContent(t), { userId: userOf(c.id), metadata: { dia_id: t.id }, infer: false }));
      if (i === 0) this.mem0Adds = { memories: c.turns.length, ms: performance.now() - t0 };
    }
    this.endpoint.useKnown = false;
  }

  /** HTTP and JSON cost of one embeddings request on top of the model time, ms (mean of `texts`). */
  async probeHttp(texts: readonly string[]): Promise<void> {
    let extra = 0;
    for (const input of texts) {
      const model = this.endpoint.stats.embedMs;
      const t0 = performance.now();
      const res = await fetch(`${this.endpoint.baseURL}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input, model: 'probe' }) });
      await res.json();
      extra += performance.now() - t0 - (this.endpoint.stats.embedMs - model);
    }
    this.httpMsPerRequest = extra / Math.max(1, texts.length);
  }

  /** First-call costs out of the way (JIT, statement preparation) on both sides. */
  async warm(engine: MemoryEngine, user: string): Promise<void> {
    await engine.search({ query: 'warm up the search path', filter: { user_id: user }, top_k: TOP_K });
    await this.mem0.memory.search('warm up the search path', { filters: { user_id: user }, topK: TOP_K, threshold: 0 });
  }

  /**
   * Ask both systems question `i` (ours through the engine's default search path, uncached), in
   * alternating order.
   */
  async question(engine: MemoryEngine, q: LocomoQuestion, i: number): Promise<void> {
    const group = `${q.category} ${CATEGORY_NAMES[q.category]}`;
    const user = userOf(q.conversation);
    const ours = async (): Promise<void> => {
      const t0 = performance.now();
      const out = await engine.search({ query: q.question, filter: { user_id: user }, top_k: TOP_K });
      this.ours.ms.push(performance.now() - t0);
      this.ours.embed.push(out.embed_ms);
      this.ours.judged.push({ group, gold: q.evidence, ranked: out.results.map((h) => String(h.row.metadata.dia_id)) });
    };
    const peer = async (): Promise<void> => {
      const s = this.endpoint.stats;
      const before = { ms: s.embedMs, requests: s.requests, sqlite: this.mem0.sqlite.ms };
      const t0 = performance.now();
      const out = await this.mem0.memory.search(q.question, { filters: { user_id: user }, topK: TOP_K, threshold: 0 });
      this.peer.ms.push(performance.now() - t0);
      this.peer.embed.push(s.embedMs - before.ms);
      this.peer.sqlite.push(this.mem0.sqlite.ms - before.sqlite);
      this.peer.requests += s.requests - before.requests;
      this.peer.judged.push({ group, gold: q.evidence, ranked: out.results.map((h) => String(h.metadata?.dia_id)) });
    };
    if (i % 2 === 0) {
      await ours();
      await peer();
    } else {
      await peer();
      await ours();
    }
  }

  results(base: Pick<PeerResults, 'command' | 'date' | 'machine' | 'durationSec' | 'conversations' | 'memories' | 'model' | 'every' | 'of'> & { ourAdds: { memories: number; ms: number }; indexMs: number; indexed: boolean; inMemory: boolean }): PeerResults {
    const ks = [5, 10, 25];
    const s = this.endpoint.stats;
    return {
      command: base.command,
      date: base.date,
      machine: base.machine,
      load: this.load,
      durationSec: base.durationSec,
      conversations: base.conversations,
      memories: base.memories,
      every: base.every,
      of: base.of,
      questions: this.ours.judged.length,
      model: base.model,
      ours: { name: 'this engine', adds: base.ourAdds, search: summarize(this.ours.ms), embed: summarize(this.ours.embed), quality: aggregate(this.ours.judged, ks), indexMs: base.indexMs, indexed: base.indexed, inMemory: base.inMemory },
      mem0: {
        name: 'mem0',
        version: this.mem0.version,
        adds: this.mem0Adds,
        search: summarize(this.peer.ms),
        embed: summarize(this.peer.embed),
        sqlite: summarize(this.peer.sqlite),
        searchWithoutSqlite: summarize(this.peer.ms.map((x, i) => x - this.peer.sqlite[i]!)),
        quality: aggregate(this.peer.judged, ks),
        embedRequestsPerSearch: this.peer.requests / Math.max(1, this.peer.judged.length),
        httpMsPerRequest: this.httpMsPerRequest,
      },
      checks: { llmCalls: s.llmCalls, otherCalls: s.otherCalls, blockedFetches: this.guard.blocked() },
    };
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.endpoint.close();
    this.guard.restore();
  }
}
