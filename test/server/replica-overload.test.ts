/**
 * Two `service serve` replicas on one PostgreSQL, each offered far more searches than it can
 * answer, then adds through both: every add is answered long before the searches ahead of it.
 *
 * This is how `npm run bench:server -- --backend postgres` saw "0 adds served, all timed out" for
 * adds split over two replicas: the search runs before it had left each replica thousands of
 * searches still unanswered (a load generator stops sending but keeps its requests open), and
 * every add waited behind all of them (the query embeddings ahead of its own in the model's queue,
 * the searches' scans ahead of it on the main thread). A replica now works on a few searches at a
 * time and keeps the rest waiting without cost, so a write is never stuck behind the whole backlog;
 * a search whose client has gone is dropped, not computed (or the next search would wait for them).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';
import { serveReplica, stopReplica, type Replica } from '../helpers/replicas.js';
import { call } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';

const skip = skipWithoutPostgres();
const cluster = sharedPostgres();

/**
 * Searches offered to each replica at once, each with a long query and top_k 100 so that it costs
 * some CPU: on a 2-core machine the backlog took ~10 s to answer, and adds waited all of it.
 */
const FLOOD = 1000;
/** Memories in the project: each search ranks 4 × top_k candidates of them per channel. */
const MEMORIES = 1000;
/** Every add through either replica is answered within this (and within half the time the backlog takes). */
const ADD_BOUND_MS = 8000;
/** A search right after the backlog was abandoned is answered within this. */
const SEARCH_BOUND_MS = 5000;

const WORDS = ['postgres', 'redis', 'kafka', 'billing', 'search', 'auth', 'deploys', 'caching', 'logging', 'exports', 'webhooks', 'latency', 'offline', 'operate', 'licensing', 'team', 'owner', 'gateway', 'metrics', 'onboarding'];

function text(i: number): string {
  return `memory ${i}: we moved ${WORDS[i % WORDS.length]} to ${WORDS[(i * 7) % WORDS.length]} for ${WORDS[(i * 3) % WORDS.length]} because ${WORDS[(i * 11) % WORDS.length]} stays predictable`;
}

/** Send a search on a connection of its own and leave it open; `answered` resolves when its answer has arrived. */
function openSearch(url: string, key: string, body: string): { answered: Promise<void>; abandon: () => void } {
  const u = new URL(`${url}/v1/memories/search`);
  const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent: false, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
  const answered = new Promise<void>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', resolve);
      res.on('error', () => resolve());
    });
    req.on('error', () => resolve());
  });
  req.end(body);
  return { answered, abandon: () => req.destroy() };
}

describe('two replicas offered more searches than they can answer', { skip }, () => {
  let a: Replica;
  let b: Replica;
  let key: string;

  before(async () => {
    const db = await (await cluster()).createDatabase();
    const root = tempDir('replica-overload-');
    const env = { SERVICE_RATE_LIMIT_PER_MINUTE: '10000000' };
    [a, b] = await Promise.all([serveReplica(path.join(root, 'a'), db, env), serveReplica(path.join(root, 'b'), db, env)]);
    key = [a.out, b.out].map((o) => /^\s+(msk_\S+)\s*$/m.exec(o)?.[1]).find((k): k is string => !!k)!;
    for (let i = 0; i < MEMORIES; i += 50) {
      const adds = await Promise.all(Array.from({ length: 50 }, (_, k) => call([a, b][k % 2]!.url, key, 'POST', '/v1/memories', { user_id: 'u', content: text(i + k) })));
      for (const r of adds) assert.equal(r.status, 201, r.text);
    }
    for (const r of [a, b]) assert.equal((await call(r.url, key, 'POST', '/v1/memories/search', { query: 'billing latency' })).status, 200);
  });

  after(async () => {
    await Promise.all([stopReplica(a), stopReplica(b)]);
  });

  it('answers adds through both replicas long before the backlog of searches ahead of them is answered', async () => {
    const query = Array.from({ length: 300 }, (_, i) => `${WORDS[(i * 13) % WORDS.length]}${i % 37}`).join(' ');
    const flood = [a, b].flatMap((r) => Array.from({ length: FLOOD }, (_, i) => openSearch(r.url, key, JSON.stringify({ query: `${i} ${query}`, top_k: 100 }))));
    try {
      // Every search has arrived (its connection open, its request sent) before the adds start.
      await new Promise((r) => setTimeout(r, 1000));
      const t0 = performance.now();
      const adds = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const r = await call(i % 2 ? b.url : a.url, key, 'POST', '/v1/memories', { user_id: 'u', content: `added while searching ${i}` });
          return { status: r.status, text: r.text, ms: performance.now() - t0 };
        }),
      );
      for (const r of adds) assert.equal(r.status, 201, r.text);
      const slowest = Math.max(...adds.map((r) => r.ms));
      await Promise.all(flood.map((f) => f.answered));
      const backlog = performance.now() - t0;
      // Measured against the backlog itself, so the machine's speed cancels out: with every search
      // worked on at once, the adds were answered with the last searches (~10 s on 2 busy cores).
      assert.ok(slowest <= backlog / 2 && slowest <= ADD_BOUND_MS, `the slowest add took ${slowest.toFixed(0)} ms, the searches ahead of it ${backlog.toFixed(0)} ms`);
    } finally {
      for (const f of flood) f.abandon();
    }
  });

  it('drops the searches whose clients went away before their turn: the next search is answered at once', async () => {
    const query = Array.from({ length: 300 }, (_, i) => `${WORDS[(i * 17) % WORDS.length]}${i % 41}`).join(' ');
    const flood = [a, b].flatMap((r) => Array.from({ length: FLOOD }, (_, i) => openSearch(r.url, key, JSON.stringify({ query: `${i} ${query}`, top_k: 100 }))));
    await new Promise((r) => setTimeout(r, 1000));
    for (const f of flood) f.abandon();
    const t0 = performance.now();
    for (const r of [a, b]) assert.equal((await call(r.url, key, 'POST', '/v1/memories/search', { query: 'billing latency' })).status, 200);
    const ms = performance.now() - t0;
    assert.ok(ms <= SEARCH_BOUND_MS, `a search right after ${FLOOD} searches per replica were abandoned took ${ms.toFixed(0)} ms`);
  });
});
