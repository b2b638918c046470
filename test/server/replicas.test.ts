/**
 * Two `service serve` processes on one PostgreSQL database (SERVICE_DATABASE_URL), as behind a
 * load balancer: a key made through one works on the other, a write through A is found by a
 * search on B at once, concurrent edits of one memory never store two versions under one number,
 * the rate limit is one bucket for both, the event feed is one gap-free sequence read the same
 * through both, a webhook sends each event once whichever replica took the write, a webhook
 * managed through A is the same webhook on B, a delivery whose replica was killed mid-attempt is
 * sent again by the other once its lease expires, an export or infer job accepted by A answers on B
 * (a purge erases from the export), telemetry taken by both adds up, kill -9 of a replica mid-write loses nothing it
 * acknowledged, a purge through A leaves nothing on B (search, get, feed), and a purge a dead
 * replica left half done is completed by the other.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { eventually } from '../helpers/errors.js';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receiver.js';
import { call, type Reply } from '../helpers/server.js';
import { serveReplica, stopReplica, type Replica } from '../helpers/replicas.js';
import { tempDir } from '../helpers/tmp.js';

const skip = skipWithoutPostgres();
const cluster = sharedPostgres();
const RATE = 120;

/** A replica with a shared rate limit, and webhooks that may reach this machine and retry quickly. */
function serve(dataDir: string, databaseUrl: string): Promise<Replica> {
  return serveReplica(dataDir, databaseUrl, {
    SERVICE_RATE_LIMIT_PER_MINUTE: String(RATE),
    SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true',
    SERVICE_WEBHOOK_RETRY_BASE_MS: '100',
    // A claim's lease is twice this plus 5 s: 11 s before a dead replica's delivery is retried
    // (long enough that the hanging attempt is killed before it times out, even on a busy machine).
    SERVICE_WEBHOOK_TIMEOUT_MS: '3000',
  });
}

const stop = stopReplica;

describe('two server replicas on one PostgreSQL', { skip }, () => {
  let db: string;
  let root: string;
  let a: Replica;
  let b: Replica;
  let admin: string;
  /** Keys each test uses, so the shared per-key rate limit of one test does not touch another. */
  let fresh: () => Promise<string>;

  before(async () => {
    db = await (await cluster()).createDatabase();
    root = tempDir('replicas-');
    [a, b] = await Promise.all([serve(path.join(root, 'a'), db), serve(path.join(root, 'b'), db)]);
    // Both started on an empty database at once: exactly one of them created the first key.
    const keys = [a.out, b.out].map((o) => /^\s+(msk_\S+)\s*$/m.exec(o)?.[1]).filter((k): k is string => !!k);
    assert.equal(keys.length, 1, `one bootstrap key between the two replicas:\n${a.out}\n${b.out}`);
    admin = keys[0]!;
    const v = await call(b.url, admin, 'GET', '/api/v1/verify');
    assert.equal(v.status, 200, v.text);
    assert.deepEqual(v.json.storage, { backend: 'postgres', vector_path: 'resident' });
    fresh = async () => {
      const r = await call(a.url, admin, 'POST', `/v1/orgs/${v.json.org_id}/projects/${v.json.project_id}/keys`, { member_id: v.json.member_id, name: 'replica test', permissions: ['read', 'write'] });
      assert.equal(r.status, 201, r.text);
      return r.json.key as string;
    };
  });

  after(async () => {
    await Promise.all([stop(a), stop(b)]);
  });

  it('serves a key created through A on B at once, and refuses it on B once revoked through A', async () => {
    const key = await fresh();
    assert.equal((await call(b.url, key, 'GET', '/api/v1/verify')).status, 200);
    const v = (await call(b.url, key, 'GET', '/api/v1/verify')).json;
    const del = await call(a.url, admin, 'DELETE', `/v1/orgs/${v.org_id}/projects/${v.project_id}/keys/${v.key_id}`);
    assert.equal(del.status, 200, del.text);
    assert.equal((await call(b.url, key, 'GET', '/api/v1/verify')).status, 401);
  });

  it('finds a write through A in a search on B at once (both channels), and a forget through B on A', async () => {
    const key = await fresh();
    const add = await call(a.url, key, 'POST', '/v1/memories', { user_id: 'u', content: 'the staging database is called quetzal-7 and lives in Frankfurt' });
    assert.equal(add.status, 201, add.text);
    const id = add.json.memory_id as string;
    const search = async (r: Replica, mode?: string): Promise<string[]> => {
      const s = await call(r.url, key, 'POST', '/v1/memories/search', { query: 'quetzal-7 staging database Frankfurt', user_id: 'u', ...(mode ? { mode } : {}) });
      assert.equal(s.status, 200, s.text);
      return s.json.results.map((x: { id?: string; memory_id?: string }) => x.id ?? x.memory_id);
    };
    assert.ok((await search(b)).includes(id), 'B finds what A wrote');
    const del = await call(b.url, key, 'DELETE', `/v1/memories/${id}`);
    assert.equal(del.status, 200, del.text);
    assert.ok(!(await search(a)).includes(id), 'A no longer finds what B forgot');
  });

  it('erases a memory purged through A from everything B serves, its resident view included', async () => {
    const key = await fresh();
    const add = await call(a.url, key, 'POST', '/v1/memories', { user_id: 'purge', content: 'the vault passphrase hint is marmoset-42 under the stairs' });
    assert.equal(add.status, 201, add.text);
    const id = add.json.memory_id as string;
    const found = async (via: Replica, mode?: string): Promise<boolean> => {
      const s = await call(via.url, key, 'POST', '/v1/memories/search', { query: 'vault passphrase hint marmoset-42 stairs', user_id: 'purge', ...(mode ? { mode } : {}) });
      assert.equal(s.status, 200, s.text);
      return s.text.includes(id) || s.text.includes('marmoset-42');
    };
    // B holds the memory in its resident view (its vector search loaded it).
    assert.ok(await found(b, 'vector'));
    assert.ok(await found(b));
    assert.equal((await call(b.url, key, 'GET', `/v1/memories/${id}`)).status, 200);
    const purge = await call(a.url, key, 'DELETE', `/v1/memories/${id}?purge=true`);
    assert.equal(purge.status, 200, purge.text);
    assert.equal((await call(b.url, key, 'GET', `/v1/memories/${id}`)).status, 404);
    assert.equal((await call(b.url, key, 'GET', `/v1/memories/${id}/history`)).status, 404);
    for (const mode of ['vector', 'text', undefined]) assert.ok(!(await found(b, mode)), `B's ${mode ?? 'hybrid'} search no longer finds the purged memory`);
    const list = await call(b.url, key, 'GET', '/v1/memories?user_id=purge');
    assert.ok(!list.text.includes('marmoset-42'), list.text);
    const feed = await call(b.url, key, 'GET', '/v1/events?limit=1000');
    assert.equal(feed.status, 200, feed.text);
    assert.ok(!feed.text.includes('marmoset-42'), 'the feed through B carries no purged content');
    assert.ok(feed.json.results.some((e: { type: string; memory_id?: string }) => e.type === 'memory.purged' && e.memory_id === id));
  });

  it('completes, on the next purge through B, a purge a replica that died mid-way left half done', async () => {
    const key = await fresh();
    const ids: string[] = [];
    for (const content of ['the escrow code is pangolin-9', 'the old intercom code is 4471']) {
      const r = await call(a.url, key, 'POST', '/v1/memories', { user_id: 'half', content });
      assert.equal(r.status, 201, r.text);
      ids.push(r.json.memory_id as string);
    }
    const [left, next] = ids as [string, string];
    // A replica recorded its intent to purge `left` two minutes ago and died before erasing anything.
    const sql = new pg.Client({ connectionString: db });
    await sql.connect();
    try {
      const project = (await call(a.url, key, 'GET', '/api/v1/verify')).json.project_id as string;
      await sql.query(`INSERT INTO ms_purge_intents (project_id, memory_id, at_ms) VALUES ($1, $2, extract(epoch from now()) * 1000 - 120000)`, [project, left]);
      assert.equal((await call(b.url, key, 'GET', `/v1/memories/${left}`)).status, 200, 'still there: the dead replica erased nothing');
      const purge = await call(b.url, key, 'DELETE', `/v1/memories/${next}?purge=true`);
      assert.equal(purge.status, 200, purge.text);
      for (const via of [a, b]) assert.equal((await call(via.url, key, 'GET', `/v1/memories/${left}`)).status, 404);
      const feed = await call(a.url, key, 'GET', '/v1/events?limit=1000');
      assert.ok(!feed.text.includes('pangolin-9'), 'the half-done purge is redacted from the feed');
      assert.ok(feed.json.results.some((e: { type: string; memory_id?: string }) => e.type === 'memory.purged' && e.memory_id === left));
      assert.equal((await sql.query(`SELECT count(*)::int AS n FROM ms_purge_intents`)).rows[0].n, 0, 'no intent left');
    } finally {
      await sql.end();
    }
  });

  it('stores concurrent edits of one memory through both replicas under distinct version numbers', async () => {
    const key = await fresh();
    const add = await call(a.url, key, 'POST', '/v1/memories', { user_id: 'u', content: 'edit race version zero' });
    const id = add.json.memory_id as string;
    const edits: Reply[] = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call(i % 2 ? b.url : a.url, key, 'PATCH', `/v1/memories/${id}`, { content: `edit race version ${i + 1}` })),
    );
    for (const e of edits) assert.ok(e.status === 200 || e.status === 409, `${e.status} ${e.text}`);
    const okCount = edits.filter((e) => e.status === 200).length;
    assert.ok(okCount >= 1);
    const hist = await call(b.url, key, 'GET', `/v1/memories/${id}/history`);
    const versions = hist.json.versions.map((v: { version: number }) => v.version) as number[];
    assert.deepEqual(
      versions,
      versions.map((_, i) => i + 1),
      'versions 1..n, none twice, none missing',
    );
    assert.equal(new Set(hist.json.versions.map((v: { tx: number }) => v.tx)).size, okCount + 1, 'one transaction per acknowledged edit');
  });

  it('draws both replicas from one rate-limit bucket per key', async () => {
    const key = await fresh();
    const statuses: number[] = [];
    for (let i = 0; i < RATE * 2; i += 8) {
      const batch = await Promise.all(Array.from({ length: 8 }, (_, j) => call((i + j) % 2 ? b.url : a.url, key, 'GET', '/api/v1/verify')));
      statuses.push(...batch.map((r) => r.status));
    }
    const allowed = statuses.filter((s) => s === 200).length;
    assert.ok(statuses.every((s) => s === 200 || s === 429));
    // One bucket of RATE tokens (plus what refills during the run), not one per replica.
    assert.ok(allowed >= RATE && allowed < RATE * 1.3, `allowed ${allowed} of ${statuses.length} with ${RATE}/min across two replicas`);
  });

  it('numbers the event feed once for both replicas: the same events through A and B, seqs 1..N, none twice', async () => {
    const key = await fresh();
    const before = (await call(a.url, key, 'GET', '/v1/events?limit=1')).json.last_seq as number;
    const writes = await Promise.all(
      Array.from({ length: 16 }, (_, i) => call(i % 2 ? b.url : a.url, key, 'POST', '/v1/memories', { user_id: 'feed', content: `event feed note ${i} written through ${i % 2 ? 'B' : 'A'}` })),
    );
    for (const w of writes) assert.equal(w.status, 201, w.text);
    const edit = await call(b.url, key, 'PATCH', `/v1/memories/${writes[0]!.json.memory_id}`, { content: 'event feed note 0, edited through B' });
    assert.equal(edit.status, 200, edit.text);
    const feed = async (r: Replica): Promise<{ seq: number; event_id: string; type: string; memory_id?: string }[]> => {
      const all: { seq: number; event_id: string; type: string; memory_id?: string }[] = [];
      for (let after = 0; ; ) {
        const page = await call(r.url, key, 'GET', `/v1/events?after=${after}&limit=7`);
        assert.equal(page.status, 200, page.text);
        all.push(...page.json.results);
        after = page.json.next_after;
        if (!page.json.has_more) return all;
      }
    };
    const [viaA, viaB] = [await feed(a), await feed(b)];
    assert.deepEqual(viaA, viaB, 'one feed through both replicas');
    const seqs = viaA.map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'seqs 1..N: no gap, none twice',
    );
    assert.equal(new Set(viaA.map((e) => e.event_id)).size, viaA.length);
    assert.ok(viaA.length >= before + 17);
    const mine = viaA.filter((e) => e.seq > before);
    for (const w of writes) assert.equal(mine.filter((e) => e.memory_id === w.json.memory_id && e.type === 'memory.added').length, 1, `one memory.added for ${w.json.memory_id}`);
    assert.equal(mine.filter((e) => e.type === 'memory.updated').length, 1);
    // A cursor taken on one replica continues on the other without skipping or repeating.
    const mid = viaA[Math.floor(viaA.length / 2)]!.seq;
    const rest = await call(b.url, key, 'GET', `/v1/events?after=${mid}&limit=1000`);
    assert.deepEqual(rest.json.results, viaA.filter((e) => e.seq > mid));
  });

  it('delivers each event to a webhook exactly once while writes go through both replicas', async () => {
    const key = await fresh();
    const r = await startReceiver();
    try {
      const h = await call(a.url, admin, 'POST', '/v1/webhooks', { url: r.url, events: ['memory.added'], description: 'replicas' });
      assert.equal(h.status, 201, h.text);
      r.secret = h.json.secret;
      const N = 40;
      const writes: Reply[] = [];
      for (let i = 0; i < N; i += 8) {
        writes.push(...(await Promise.all(Array.from({ length: 8 }, (_, j) => call((i + j) % 2 ? b.url : a.url, key, 'POST', '/v1/memories', { user_id: 'hooks', content: `webhook fan-out note ${i + j}` })))));
      }
      for (const w of writes) assert.equal(w.status, 201, w.text);
      const wanted = new Set(writes.map((w) => w.json.memory_id as string));
      const mine = () => r.received.filter((x) => wanted.has(x.json?.data?.memory_id));
      await eventually(async () => new Set(mine().map((x) => x.json.event_id)).size === N, 15_000, `${N} deliveries`);
      // Both replicas poll every second: give a duplicate time to show up.
      await new Promise((x) => setTimeout(x, 2500));
      const byEvent = new Map<string, number>();
      for (const x of mine()) byEvent.set(x.json.event_id, (byEvent.get(x.json.event_id) ?? 0) + 1);
      assert.equal(byEvent.size, N, 'every write delivered');
      assert.deepEqual([...byEvent.values()].filter((n) => n !== 1), [], 'no event delivered twice');
      assert.ok(r.received.every((x) => x.valid), 'every delivery signed with the secret shown at creation');
      assert.equal(new Set(mine().map((x) => x.json.data.memory_id)).size, N);
      // The delivery log is one for both replicas.
      const log = async (via: Replica): Promise<string[]> => {
        const d = await call(via.url, admin, 'GET', `/v1/webhooks/${h.json.webhook_id}/deliveries?limit=1000&status=SUCCEEDED`);
        assert.equal(d.status, 200, d.text);
        return d.json.results.map((x: { event_id: string }) => x.event_id).sort();
      };
      await eventually(async () => (await log(b)).length >= N, 5000, 'deliveries recorded');
      assert.deepEqual(await log(a), await log(b));
      assert.equal(new Set(await log(a)).size, (await log(a)).length, 'one delivery row per event');
      assert.equal((await call(b.url, admin, 'DELETE', `/v1/webhooks/${h.json.webhook_id}`)).status, 200);
    } finally {
      await r.close();
    }
  });

  it('shows a webhook created through A on B, and pauses and resumes it through B', async () => {
    const key = await fresh();
    const r = await startReceiver();
    try {
      const h = await call(a.url, admin, 'POST', '/v1/webhooks', { url: r.url, events: ['memory.added'] });
      assert.equal(h.status, 201, h.text);
      r.secret = h.json.secret;
      const id = h.json.webhook_id as string;
      const seen = await call(b.url, admin, 'GET', `/v1/webhooks/${id}`);
      assert.equal(seen.status, 200, seen.text);
      assert.equal(seen.json.url, r.url);
      assert.ok((await call(b.url, admin, 'GET', '/v1/webhooks')).json.results.some((x: { webhook_id: string }) => x.webhook_id === id));
      const paused = await call(b.url, admin, 'PATCH', `/v1/webhooks/${id}`, { active: false });
      assert.equal(paused.json.active, false, paused.text);
      assert.equal((await call(a.url, admin, 'GET', `/v1/webhooks/${id}`)).json.active, false, 'paused on A too');
      const during = await call(a.url, key, 'POST', '/v1/memories', { user_id: 'pause', content: 'written through A while paused' });
      assert.equal(during.status, 201);
      assert.equal((await call(b.url, admin, 'PATCH', `/v1/webhooks/${id}`, { active: true })).json.active, true);
      const afterResume = await call(a.url, key, 'POST', '/v1/memories', { user_id: 'pause', content: 'written through A after resuming' });
      assert.equal(afterResume.status, 201);
      const about = (m: Reply) => r.received.filter((x) => x.json?.data?.memory_id === m.json.memory_id);
      await eventually(async () => about(afterResume).length === 1, 10_000, 'the delivery after resuming');
      await new Promise((x) => setTimeout(x, 1500));
      assert.equal(about(during).length, 0, 'nothing written while paused is delivered');
      assert.equal(about(afterResume).length, 1);
      assert.equal((await call(b.url, admin, 'DELETE', `/v1/webhooks/${id}`)).status, 200);
      assert.equal((await call(a.url, admin, 'GET', `/v1/webhooks/${id}`)).status, 404, 'deleted through B, gone on A');
    } finally {
      await r.close();
    }
  });

  it('serves an export started on A from B (status and download), and erases a purged memory from it', async () => {
    const key = await fresh();
    const added: Reply[] = [];
    for (let i = 0; i < 6; i++) added.push(await call(i % 2 ? b.url : a.url, key, 'POST', '/v1/memories', { user_id: 'export', content: `exported note ${i} about the release train` }));
    for (const x of added) assert.equal(x.status, 201, x.text);
    const job = await call(a.url, key, 'POST', '/v1/exports', {});
    assert.equal(job.status, 202, job.text);
    const id = job.json.export_id as string;
    const done = await eventually(async () => {
      const j = await call(b.url, key, 'GET', `/v1/exports/${id}`);
      assert.equal(j.status, 200, j.text);
      return j.json.status === 'SUCCEEDED' ? j.json : null;
    }, 10_000, 'the export, seen through B');
    const download = async (via: Replica): Promise<string> => {
      const d = await call(via.url, key, 'GET', `/v1/exports/${id}/download`);
      assert.equal(d.status, 200, d.text);
      assert.equal(Number(d.headers.get('content-length')), Buffer.byteLength(d.text), 'Content-Length is the body');
      return d.text;
    };
    const viaB = await download(b);
    assert.equal(viaB, await download(a), 'the same file through both');
    const lines = viaB.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, done.count);
    for (const x of added) assert.ok(lines.some((l) => l.memory_id === x.json.memory_id), `${x.json.memory_id} exported`);
    // A purge through B erases the memory from the stored export too.
    const gone = added[0]!.json.memory_id as string;
    const purge = await call(b.url, key, 'DELETE', `/v1/memories/${gone}?purge=true`);
    assert.equal(purge.status, 200, purge.text);
    const after = await download(a);
    assert.ok(!after.includes(gone), 'the purged memory is no longer in the export');
    assert.equal(after.trim().split('\n').length, lines.length - lines.filter((l) => l.memory_id === gone).length);
    assert.equal((await call(a.url, key, 'GET', `/v1/exports/${id}`)).json.bytes, Buffer.byteLength(after));
  });

  it('answers a queued infer job accepted by A on B', async () => {
    const key = await fresh();
    const r = await call(a.url, key, 'POST', '/v1/memories', { user_id: 'infer', infer: true, async: true, messages: [{ role: 'user', content: 'Never deploy the billing service on Fridays; that is a hard rule.' }] });
    assert.equal(r.status, 202, r.text);
    const job = await eventually(async () => {
      const j = await call(b.url, key, 'GET', `/v1/jobs/${r.json.job_id}`);
      assert.equal(j.status, 200, j.text);
      return j.json.status === 'SUCCEEDED' || j.json.status === 'FAILED' ? j.json : null;
    }, 15_000, 'the job, seen through B');
    assert.equal(job.status, 'SUCCEEDED', JSON.stringify(job));
    assert.match(job.results[0].content, /Fridays/);
    assert.equal(job.input, undefined, 'the stored request is never shown');
  });

  it('adds telemetry taken by both replicas into one set of counts', async () => {
    const key = await fresh();
    const before = (await call(a.url, admin, 'GET', '/v1/telemetry/summary')).json;
    const installs = Array.from({ length: 3 }, () => randomUUID());
    const batch = (i: number) => ({
      events: Array.from({ length: 5 }, (_, j) => ({ event: 'replica.check', plugin_version: '9.9.9', runtime: { node: 'v20.11.1', os: 'linux', arch: 'x64' }, duration_ms: i * 5 + j, install_id: installs[(i + j) % 3]! })),
    });
    const sent = await Promise.all(Array.from({ length: 8 }, (_, i) => call(i % 2 ? b.url : a.url, key, 'POST', '/v1/telemetry', batch(i))));
    for (const r of sent) assert.equal(r.status, 202, r.text);
    const [viaA, viaB] = [(await call(a.url, admin, 'GET', '/v1/telemetry/summary')).json, (await call(b.url, admin, 'GET', '/v1/telemetry/summary')).json];
    assert.deepEqual(viaA, viaB, 'one set of counts through both');
    assert.equal(viaA.events_total, before.events_total + 40);
    assert.equal(viaA.installs, before.installs + 3);
    const mine = viaA.by_event.find((e: { event: string }) => e.event === 'replica.check');
    assert.equal(mine.count, 40);
    assert.deepEqual(mine.duration_ms, { count: 40, mean: 19.5, max: 39 });
  });

  it('retries on the other replica a delivery whose replica was killed mid-attempt, once its lease expires', async () => {
    const key = await fresh();
    const r = await startReceiver();
    r.script = [0]; // the first attempt hangs: its sender is killed while waiting
    const sql = new pg.Client({ connectionString: db });
    await sql.connect();
    try {
      const h = await call(a.url, admin, 'POST', '/v1/webhooks', { url: r.url, events: ['memory.added'] });
      assert.equal(h.status, 201, h.text);
      r.secret = h.json.secret;
      const m = await call(b.url, key, 'POST', '/v1/memories', { user_id: 'lease', content: 'delivered although its first sender died' });
      assert.equal(m.status, 201, m.text);
      await eventually(async () => r.received.length === 1, 10_000, 'the first attempt');
      const owner = (await sql.query(`SELECT lease_owner FROM ms_deliveries WHERE webhook_id = $1`, [h.json.webhook_id])).rows[0]?.lease_owner as string;
      const pid = Number(owner.split(':')[1]);
      const victim = [a, b].find((x) => x.child.pid === pid);
      assert.ok(victim, `the lease is held by one of the replicas: ${owner}`);
      const survivor = victim === a ? b : a;
      const gone = new Promise((res) => victim.child.once('exit', res));
      victim.child.kill('SIGKILL');
      await gone;
      const killedAt = Date.now();
      await eventually(async () => r.received.length === 2, 30_000, 'the retry by the other replica');
      assert.ok(Date.now() - killedAt >= 6000, 'not before the dead replica’s lease expired');
      assert.equal(r.received[1]!.json.event_id, r.received[0]!.json.event_id, 'the same event again: receivers dedupe by event_id');
      assert.equal(r.received[1]!.headers['x-memory-delivery'], r.received[0]!.headers['x-memory-delivery']);
      assert.ok(r.received[1]!.valid);
      const d = await eventually(async () => {
        const list = await call(survivor.url, admin, 'GET', `/v1/webhooks/${h.json.webhook_id}/deliveries`);
        return list.json.results[0]?.status === 'SUCCEEDED' ? list.json.results[0] : null;
      }, 5000, 'the delivery recorded');
      assert.deepEqual(
        d.attempts.map((x: { status_code: number | null }) => x.status_code),
        [200],
        'the killed attempt was never recorded',
      );
      // Bring the killed replica back for the tests after this one.
      const again = await serve(path.join(root, victim === a ? 'a' : 'b'), db);
      if (victim === a) a = again;
      else b = again;
      assert.equal((await call(survivor.url, admin, 'DELETE', `/v1/webhooks/${h.json.webhook_id}`)).status, 200);
    } finally {
      await sql.end();
      await r.close();
    }
  });

  it('loses nothing acknowledged when a replica is killed with SIGKILL mid-write', async () => {
    const key = await fresh();
    const acked: string[] = [];
    let stopWriting = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stopWriting; i++) {
        const r = await call(a.url, key, 'POST', '/v1/memories', { user_id: 'crash', content: `crash test writer ${w} note ${i}` }).catch(() => null);
        if (!r) return; // the replica is gone
        if (r.status === 201) acked.push(r.json.memory_id);
      }
    };
    const writers = Array.from({ length: 4 }, (_, w) => writer(w));
    while (acked.length < 10) await new Promise((r) => setTimeout(r, 20));
    a.child.kill('SIGKILL');
    stopWriting = true;
    await Promise.all(writers);
    assert.ok(acked.length >= 10);
    for (const id of acked) {
      const r = await call(b.url, key, 'GET', `/v1/memories/${id}`);
      assert.equal(r.status, 200, `acknowledged ${id} is readable through B: ${r.text}`);
    }
    const listed = await call(b.url, key, 'GET', '/v1/memories?user_id=crash&limit=1000');
    const ids = listed.json.results.map((x: { id?: string; memory_id?: string }) => x.id ?? x.memory_id);
    assert.equal(new Set(ids).size, ids.length, 'no memory twice');
    // B keeps serving writes after A died mid-transaction (its locks were released).
    assert.equal((await call(b.url, key, 'POST', '/v1/memories', { user_id: 'crash', content: 'after the crash' })).status, 201);
  });
});
