/**
 * Sync under network faults: two real daemons reach a real server only through a fault-injecting
 * TCP proxy on loopback. While faults run, requests are reset, cut after the server committed
 * (the answer is lost), answered with 500s, or stalled longer than the client's timeout; the
 * server is also restarted in the middle of a batch. Once the faults stop, every machine and the
 * server must hold the same histories, with every version written exactly once.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/errors.js';
import { chaos, seeded, startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { assertNoDuplicates, daemonHistory, serverHistory } from '../helpers/histories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../helpers/team.js';

/** The client gives up on a silent server after this long; stalls last three times as long. */
const TIMEOUT_MS = 1000;
const STALL_MS = 3000;

let s: TestServer;
let proxy: FaultProxy;
let dataDir: string;
let adminKey: string;
const keys = { alice: '', bob: '' };
let A: TestDaemon;
let B: TestDaemon;

function syncEnv(key: string, user: string): Record<string, string> {
  return {
    SERVICE_BASE_URL: proxy.url,
    SERVICE_API_KEY: key,
    SERVICE_USER_ID: user,
    SERVICE_SYNC_INTERVAL_MS: '200',
    SERVICE_SYNC_BATCH: '10',
    SERVICE_SYNC_TIMEOUT_MS: String(TIMEOUT_MS),
    SERVICE_SYNC_RETRY_BASE_MS: '50',
    SERVICE_SYNC_RETRY_MAX_MS: '500',
  };
}

function serverPort(): { host: string; port: number } {
  return { host: '127.0.0.1', port: Number(new URL(s.url).port) };
}

/** Add memories through a daemon's API, a few at a time. */
async function addMany(d: TestDaemon, n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const part = await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, k) => d.client.request<{ memory_id: string }>('POST', '/v1/memories', { content: `${prefix} decision ${i + k}: module ${i + k} owns its schema`, category: 'decision' })));
    ids.push(...part.map((p) => p.memory_id));
  }
  return ids;
}

const patch = (d: TestDaemon, id: string, content: string) => d.client.request('PATCH', `/v1/memories/${id}`, { content });

/** Wait until A, B and the server hold the same histories; return the server's. */
async function converged(what: string): Promise<string[]> {
  return eventually(
    async () => {
      const [ha, hb, sa, sb] = await Promise.all([daemonHistory(A.client), daemonHistory(B.client), serverHistory(s.url, keys.alice), serverHistory(s.url, keys.bob)]);
      return JSON.stringify(ha) === JSON.stringify(sa) && JSON.stringify(hb) === JSON.stringify(sb) && JSON.stringify(ha) === JSON.stringify(hb) ? sa : null;
    },
    60_000,
    what,
  );
}

/** Versions per memory in a history. */
function counts(history: readonly string[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const l of history) {
    const r = JSON.parse(l) as { memory_id: string; content: string };
    m.set(r.memory_id, [...(m.get(r.memory_id) ?? []), r.content]);
  }
  return m;
}

before(async () => {
  s = await startTestServer({ embedder: null });
  dataDir = s.dataDir;
  adminKey = s.key;
  const v = ok(await s.req('GET', '/api/v1/verify'));
  for (const name of ['alice', 'bob'] as const) {
    const m = ok(await s.req('POST', `/v1/orgs/${v.org_id}/members`, { name, role: 'member' }), 201).member_id;
    keys[name] = ok(await s.req('POST', `/v1/orgs/${v.org_id}/projects/${v.project_id}/keys`, { member_id: m }), 201).key;
  }
  proxy = await startFaultProxy(serverPort());
  proxy.stallMs = STALL_MS;
  [A, B] = await Promise.all([startTestDaemon({ env: syncEnv(keys.alice, 'alice') }), startTestDaemon({ env: syncEnv(keys.bob, 'bob') })]);
});
after(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
  await proxy?.close();
  await s?.close();
});

describe('sync under faults', () => {
  it('converges with nothing lost or doubled after resets, lost answers, 500s and stalls longer than the timeout', async (t) => {
    proxy.decide = chaos(seeded(7), { reset: 0.08, 'drop-request': 0.08, 'drop-response': 0.12, http500: 0.12, stall: 0.04 });
    const [fromA, fromB] = await Promise.all([addMany(A, 30, 'A'), addMany(B, 30, 'B')]);
    // Each side edits memories of the other once they arrive (through the faults), and the same
    // five memories of B on both sides at once: concurrent edits.
    await eventually(async () => (await Promise.all(fromA.slice(0, 10).map((id) => B.client.get(id).then(() => true, () => false)))).every(Boolean), 60_000, 'A’s first memories on B');
    await eventually(async () => (await Promise.all(fromB.slice(0, 10).map((id) => A.client.get(id).then(() => true, () => false)))).every(Boolean), 60_000, 'B’s first memories on A');
    const expected = new Map<string, number>([...fromA, ...fromB].map((id) => [id, 1]));
    const bump = (id: string): void => void expected.set(id, expected.get(id)! + 1);
    await Promise.all([
      ...fromB.slice(0, 5).map(async (id) => {
        await Promise.all([patch(A, id, `A edits ${id}`), patch(B, id, `B edits ${id}`)]);
        bump(id);
        bump(id);
      }),
      ...fromA.slice(0, 5).map(async (id) => {
        await patch(A, id, `A corrects ${id}`);
        bump(id);
      }),
      ...fromA.slice(5, 8).map(async (id) => {
        await B.client.forget(id);
        bump(id);
      }),
    ]);
    await new Promise((r) => setTimeout(r, 1500));
    proxy.decide = () => 'pass';

    const history = await converged('A, B and the server to converge after the faults');
    assertNoDuplicates(history, 'after faults');
    const per = counts(history);
    for (const [id, n] of expected) assert.equal(per.get(id)?.length, n, `memory ${id}: ${per.get(id)?.join(' | ')}`);
    for (const id of fromB.slice(0, 5)) {
      const texts = per.get(id)!;
      assert.ok(texts.includes(`A edits ${id}`) && texts.includes(`B edits ${id}`), 'both concurrent edits are kept');
    }
    for (const f of ['reset', 'drop-request', 'drop-response', 'http500', 'stall'] as const) assert.ok(proxy.stats[f] > 0, `the proxy injected ${f}: ${JSON.stringify(proxy.stats)}`);
    t.diagnostic(`faults injected: ${JSON.stringify(proxy.stats)}`);
    const logs = [A, B].map((d) => fs.readFileSync(path.join(d.home, 'logs', 'daemon.log'), 'utf8')).join('\n');
    assert.match(logs, /UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT/, `a stall of ${STALL_MS} ms outlasted the ${TIMEOUT_MS} ms client timeout and was retried`);
  });

  it('converges after the server restarts in the middle of a batch', async (t) => {
    proxy.target = null; // the server is unreachable while A builds a backlog
    proxy.cutAll();
    const backlog = await addMany(A, 120, 'restart');
    let pushes = 0;
    let restarted: Promise<void> | null = null;
    proxy.onRequest = (head) => {
      if (!head.startsWith('POST /v1/sync/push') || ++pushes !== 3 || restarted) return;
      // The third batch is on its way in: stop the server under it, start it again on the same data.
      restarted = (async () => {
        await s.close();
        s = await startTestServer({ dataDir, embedder: null, key: adminKey });
        proxy.target = serverPort();
      })();
    };
    proxy.target = serverPort();
    await eventually(async () => restarted !== null, 30_000, 'the third push');
    await restarted;
    proxy.onRequest = null;
    const history = await converged('convergence after the restart');
    assertNoDuplicates(history, 'after the restart');
    const per = counts(history);
    for (const id of backlog) assert.equal(per.get(id)?.length, 1, `memory ${id} is on the server exactly once`);
    t.diagnostic(`pushes seen: ${pushes}`);
    const st = await A.client.syncStatus<{ backlog: { versions: number }; parked: { versions: number } }>();
    assert.deepEqual([st.backlog.versions, st.parked.versions], [0, 0]);
  });
});
