/**
 * Offline, then back: a real daemon writes 5,000 memories (plus edits and forgets) while its server
 * is unreachable, keeps working and reports the backlog; the server comes up, the backlog drains
 * and the server ends up with the daemon's exact history.
 *
 * Most of the 5,000 go in through the daemon's NDJSON import route, the rest one by one through
 * `POST /v1/memories`: both are the daemon's own write paths and both land in the version log the
 * outbox reads. (One at a time, the engine's add path costs ~10 ms per memory on this machine,
 * which would spend a minute on setup rather than on sync.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contentHash, exportLine, uuidv7 } from '../../engine/index.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/errors.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { assertNoDuplicates, daemonHistory, serverHistory } from '../helpers/histories.js';
import { row } from '../helpers/rows.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const IMPORTED = 4900;
const ADDED = 100;
const EDITED = 50;
const FORGOTTEN = 20;

let s: TestServer;
let proxy: FaultProxy;
let d: TestDaemon;

interface SyncView {
  state: string;
  reachable: boolean | null;
  backlog: { versions: number; purges: number };
  last_error: { code: string } | null;
  parked: { versions: number };
}

before(async () => {
  s = await startTestServer({ embedder: null });
  proxy = await startFaultProxy(null); // the server is down
  d = await startTestDaemon({
    env: { SERVICE_BASE_URL: proxy.url, SERVICE_API_KEY: s.key, SERVICE_USER_ID: 'offline-dev', SERVICE_SYNC_INTERVAL_MS: '500', SERVICE_SYNC_RETRY_BASE_MS: '100', SERVICE_SYNC_RETRY_MAX_MS: '1000' },
  });
});
after(async () => {
  await d?.stop();
  await proxy?.close();
  await s?.close();
});

describe('offline, then back', () => {
  it('drains a backlog of 5,000 memories written while the server was down, and converges', async (t) => {
    try {
      await drainsBacklog(t);
    } catch (err) {
      // Say what the daemon did: a connection it ended is otherwise only "socket hang up".
      throw new Error(`${(err as Error).message}\n${d.diagnose()}`, { cause: err });
    }
  });
});

async function drainsBacklog(t: { diagnostic(message: string): void }): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < IMPORTED; i += 980) {
    const lines = Array.from({ length: Math.min(980, IMPORTED - i) }, (_, k) => {
      const content = `offline decision ${i + k}: service ${(i + k) % 97} keeps its cache for ${(i + k) % 13} minutes`;
      return JSON.stringify(exportLine({ ...row({ memory_id: uuidv7(), content, content_hash: contentHash(content), user_id: 'offline-dev', recorded_at: now + i + k }), seq: 0 }));
    });
    const r = await d.client.importNdjson(lines.join('\n'));
    assert.equal(r.imported, lines.length);
  }
  const added: string[] = [];
  for (let i = 0; i < ADDED; i += 20) {
    const part = await Promise.all(Array.from({ length: 20 }, (_, k) => d.client.request<{ memory_id: string }>('POST', '/v1/memories', { content: `offline note ${i + k} added one by one`, category: 'note' })));
    added.push(...part.map((p) => p.memory_id));
  }
  await Promise.all(added.slice(0, EDITED).map((id) => d.client.request('PATCH', `/v1/memories/${id}`, { content: `offline note edited ${id}` })));
  await Promise.all(added.slice(EDITED, EDITED + FORGOTTEN).map((id) => d.client.forget(id)));
  const versions = IMPORTED + ADDED + EDITED + FORGOTTEN;

  // Still local-first: everything works, and status says what waits and why.
  assert.ok((await d.client.search({ query: 'offline decision service cache', top_k: 3 })).results.length > 0);
  const down = await eventually(async () => {
    const st = await d.client.syncStatus<SyncView>();
    return st.backlog.versions === versions && st.last_error ? st : null;
  }, 10_000, 'the backlog to show in status');
  assert.equal(down.reachable, false);
  assert.ok(down.state === 'backoff' || down.state === 'syncing', down.state);

  const t0 = performance.now();
  proxy.target = { host: '127.0.0.1', port: Number(new URL(s.url).port) };
  const drained = await eventually(async () => {
    const st = await d.client.syncStatus<SyncView>();
    return st.backlog.versions === 0 && st.state === 'idle' ? st : null;
  }, 120_000, 'the backlog to drain');
  const ms = performance.now() - t0;
  t.diagnostic(`${versions} versions drained in ${Math.round(ms)} ms after the server came back`);
  assert.equal(drained.parked.versions, 0);

  const [local, server] = await Promise.all([daemonHistory(d.client), serverHistory(s.url, s.key)]);
  assert.equal(local.length, versions);
  assert.deepEqual(server, local, 'the server holds exactly the daemon’s history');
  assertNoDuplicates(server, 'server after the drain');
}
