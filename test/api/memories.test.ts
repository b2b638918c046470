/**
 * The /v1 memories API through the real server on 127.0.0.1 with a temp data dir and the tiny
 * random-weight model: every route's happy path and each kind of bad input.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

const UNKNOWN = '01890a5d-ac96-774b-bcce-b302099a8057';

async function add(body: Record<string, unknown>): Promise<any> {
  const r = await s.req('POST', '/v1/memories', { user_id: 'alice', ...body });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

/** Everything stored, to prove a rejected request changed nothing. */
async function snapshot(): Promise<string> {
  const all: unknown[] = [];
  let cursor: string | null = null;
  do {
    const r = await s.req('GET', `/v1/memories?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.status, 200);
    all.push(...r.json.results);
    cursor = r.json.next_cursor;
  } while (cursor);
  return JSON.stringify(all);
}

function assertError(r: { status: number; json: any }, status: number, code: string): void {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.error.code, code);
  assert.equal(typeof r.json.error.message, 'string');
  assert.ok(r.json.error.message.length > 0);
  assert.equal(typeof r.json.error.request_id, 'string');
  assert.ok(!JSON.stringify(r.json).includes('    at '), 'no stack trace');
}

describe('POST /v1/memories', () => {
  it('adds a memory and returns it with UTC ISO timestamps', async () => {
    const m = await add({ content: 'We deploy with GitHub Actions to Fly.io', category: 'decision', repo: 'github.com/acme/app', metadata: { team: 'core' } });
    assert.match(m.memory_id, /^[0-9a-f-]{36}$/);
    assert.equal(m.content, 'We deploy with GitHub Actions to Fly.io');
    assert.equal(m.category, 'decision');
    assert.equal(m.space, 'project');
    assert.deepEqual(m.metadata, { team: 'core' });
    for (const k of ['created_at', 'updated_at', 'valid_from']) assert.match(m[k], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const got = await s.req('GET', `/v1/memories/${m.memory_id}`);
    assert.equal(got.status, 200);
    assert.equal(got.json.content, m.content);
  });

  it('is findable by search as soon as the add returns', async () => {
    const m = await add({ content: 'The billing service talks to Stripe through a queue named invoices-v2' });
    const r = await s.req('POST', '/v1/memories/search', { query: 'billing stripe invoices queue' });
    assert.equal(r.status, 200);
    assert.equal(r.json.results[0].memory_id, m.memory_id);
    assert.ok(r.json.results[0].score > 0 && r.json.results[0].score <= 1);
    assert.equal(r.json.mode, 'hybrid');
  });

  it('splits text longer than max_content_chars into linked blocks instead of cutting it', async () => {
    const para = (i: number): string => `Paragraph ${i}: ${'the cache layer keeps hot keys in memory and evicts by LRU. '.repeat(12)}`;
    const text = Array.from({ length: 8 }, (_, i) => para(i)).join('\n\n');
    assert.ok(text.length > 4000);
    const m = await add({ content: text });
    assert.ok(Array.isArray(m.blocks) && m.blocks.length >= 2, 'several blocks');
    let joined = '';
    for (const id of m.blocks) {
      const b = await s.req('GET', `/v1/memories/${id}`);
      assert.ok(b.json.content.length <= 4000);
      assert.equal(b.json.block.group_id, m.block.group_id);
      joined += b.json.content + '\n\n';
    }
    for (let i = 0; i < 8; i++) assert.ok(joined.includes(`Paragraph ${i}:`), `paragraph ${i} kept`);
  });

  it('stores messages one per memory with infer: false', async () => {
    const r = await s.req('POST', '/v1/memories', { user_id: 'alice', infer: false, messages: [{ role: 'user', content: 'Use tabs in Makefiles' }, { role: 'assistant', content: 'Noted: Makefiles need tabs' }] });
    assert.equal(r.status, 201);
    assert.equal(r.json.results.length, 2);
    assert.deepEqual(
      r.json.results.map((x: any) => x.event),
      ['ADD', 'ADD'],
    );
  });

  it('extracts and consolidates memories from messages with infer: true', async () => {
    const say = (text: string) => s.req('POST', '/v1/memories', { user_id: 'infer-user', repo: 'github.com/acme/infer', infer: true, messages: [{ role: 'user', content: text }, { role: 'assistant', content: 'Sure.' }] });
    const first = await say('We decided to use npm as the package manager for this repo.');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.results.length, 1);
    assert.equal(first.json.results[0].event, 'ADD');
    const again = await say('We decided to use npm as the package manager for this repo.');
    assert.equal(again.json.results[0].event, 'NOOP');
    assert.equal(again.json.results[0].memory_id, first.json.results[0].memory_id);
    const switched = await say('We switched to pnpm as the package manager for this repo.');
    assert.equal(switched.json.results[0].event, 'UPDATE');
    assert.equal(switched.json.results[0].memory_id, first.json.results[0].memory_id);
    const hist = await s.req('GET', `/v1/memories/${first.json.results[0].memory_id}/history`);
    assert.ok(hist.json.versions.length >= 2, 'the old value stays in history');
    const noise = await say('ok thanks!');
    assert.deepEqual(noise.json.results, []);
  });

  it('queues infer work with async: true and reports PENDING → RUNNING → SUCCEEDED', async () => {
    const r = await s.req('POST', '/v1/memories', { user_id: 'infer-user', repo: 'github.com/acme/infer', infer: true, async: true, messages: [{ role: 'user', content: 'Never deploy on Fridays; that is a hard rule for this team.' }] });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.json.status, 'PENDING');
    let job = r.json;
    for (let i = 0; i < 200 && job.status !== 'SUCCEEDED' && job.status !== 'FAILED'; i++) {
      await new Promise((res) => setTimeout(res, 25));
      job = (await s.req('GET', `/v1/jobs/${r.json.job_id}`)).json;
    }
    assert.equal(job.status, 'SUCCEEDED');
    assert.equal(job.results[0].event, 'ADD');
    assert.match(job.results[0].content, /Fridays/);
    const events = await s.req('GET', '/v1/events?limit=1000');
    const mine = events.json.results.filter((e: any) => e.type.startsWith('infer.') && e.data.job_id === r.json.job_id).map((e: any) => e.status);
    assert.deepEqual(mine, ['PENDING', 'RUNNING', 'SUCCEEDED']);
  });

  it('honours Idempotency-Key: a retry replays, a different body conflicts', async () => {
    const headers = { 'Idempotency-Key': 'add-once-123' };
    const a = await s.req('POST', '/v1/memories', { user_id: 'alice', content: 'idempotent memory about rate limits' }, headers);
    const b = await s.req('POST', '/v1/memories', { user_id: 'alice', content: 'idempotent memory about rate limits' }, headers);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal(b.json.memory_id, a.json.memory_id);
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    const before = await snapshot();
    const c = await s.req('POST', '/v1/memories', { user_id: 'alice', content: 'something else entirely' }, headers);
    assertError(c, 409, 'CONFLICT');
    assert.equal(await snapshot(), before);
  });
});

describe('updates, history and the bitemporal model', () => {
  it('keeps the Adidas fact for the past when Hoka is a change in the world', async () => {
    const m = await add({ content: 'I love Adidas running shoes', space: 'personal', category: 'preference', valid_from: '2026-03-01T00:00:00Z' });
    const p = await s.req('PATCH', `/v1/memories/${m.memory_id}`, { content: 'I switched to Hoka running shoes', valid_from: '2026-05-04T00:00:00Z' });
    assert.equal(p.status, 200, p.text);
    assert.equal(p.json.content, 'I switched to Hoka running shoes');
    const now = await s.req('GET', `/v1/memories/${m.memory_id}`);
    assert.equal(now.json.content, 'I switched to Hoka running shoes');
    const april = await s.req('GET', `/v1/memories/${m.memory_id}?valid_at=2026-04-01T00:00:00Z`);
    assert.equal(april.json.content, 'I love Adidas running shoes');
    const h = await s.req('GET', `/v1/memories/${m.memory_id}/history`);
    assert.equal(h.json.versions.length, 3);
    assert.deepEqual(
      h.json.versions.map((v: any) => v.event),
      ['ADD', 'UPDATE', 'UPDATE'],
    );
    assert.notEqual(h.json.versions[0].superseded_at, null);
    const search = await s.req('POST', '/v1/memories/search', { query: 'running shoes', valid_at: '2026-04-01T00:00:00Z', filters: { memory_ids: [m.memory_id] } });
    assert.equal(search.json.results[0].content, 'I love Adidas running shoes');
  });

  it('treats PATCH without valid_from as a correction for all valid time', async () => {
    const m = await add({ content: 'The staging DB is on port 5433' });
    const p = await s.req('PATCH', `/v1/memories/${m.memory_id}`, { content: 'The staging DB is on port 5434' });
    assert.equal(p.status, 200);
    const past = await s.req('GET', `/v1/memories/${m.memory_id}?valid_at=${m.valid_from}`);
    assert.equal(past.json.content, 'The staging DB is on port 5434');
    const believed = await s.req('GET', `/v1/memories/${m.memory_id}?known_at=${m.created_at}`);
    assert.equal(believed.json.content, 'The staging DB is on port 5433');
  });

  it('changes metadata and category without touching content', async () => {
    const m = await add({ content: 'Prefer small PRs' });
    const p = await s.req('PATCH', `/v1/memories/${m.memory_id}`, { metadata: { reviewed: true }, category: 'convention' });
    assert.equal(p.json.content, 'Prefer small PRs');
    assert.deepEqual(p.json.metadata, { reviewed: true });
    assert.equal(p.json.category, 'convention');
    assert.equal(p.json.version, 2);
  });
});

describe('GET /v1/memories', () => {
  it('pages with a cursor until every memory is seen, newest first', async () => {
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push((await add({ user_id: 'pager', content: `paging memory number ${i}` })).memory_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await s.req('GET', `/v1/memories?user_id=pager&limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(r.status, 200);
      assert.ok(r.json.results.length <= 5);
      seen.push(...r.json.results.map((m: any) => m.memory_id));
      cursor = r.json.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, [...ids].reverse());
  });

  it('filters by category, space, metadata and time range', async () => {
    const a = await add({ user_id: 'filt', content: 'filter A constraint', category: 'constraint', metadata: { level: 'high' } });
    await add({ user_id: 'filt', content: 'filter B note', category: 'note', space: 'personal' });
    const byCat = await s.req('GET', '/v1/memories?user_id=filt&category=constraint');
    assert.deepEqual(
      byCat.json.results.map((m: any) => m.memory_id),
      [a.memory_id],
    );
    const bySpace = await s.req('GET', '/v1/memories?user_id=filt&space=personal');
    assert.equal(bySpace.json.results.length, 1);
    const byMeta = await s.req('GET', '/v1/memories?user_id=filt&metadata.level=high');
    assert.deepEqual(
      byMeta.json.results.map((m: any) => m.memory_id),
      [a.memory_id],
    );
    const future = await s.req('GET', '/v1/memories?user_id=filt&created_after=2999-01-01T00:00:00Z');
    assert.equal(future.json.results.length, 0);
  });
});

describe('delete, purge and bulk delete', () => {
  it('tombstones a memory: gone from reads, kept in history', async () => {
    const m = await add({ content: 'temporary: the VPN is down today' });
    const d = await s.req('DELETE', `/v1/memories/${m.memory_id}`);
    assert.equal(d.status, 200);
    assertError(await s.req('GET', `/v1/memories/${m.memory_id}`), 404, 'NOT_FOUND');
    const h = await s.req('GET', `/v1/memories/${m.memory_id}/history`);
    assert.deepEqual(
      h.json.versions.map((v: any) => v.event),
      ['ADD', 'DELETE'],
    );
    const search = await s.req('POST', '/v1/memories/search', { query: 'VPN is down' });
    assert.ok(!search.json.results.some((r: any) => r.memory_id === m.memory_id));
  });

  it('purges every version with ?purge=true', async () => {
    const m = await add({ content: 'purge target: my home address is secret' });
    const d = await s.req('DELETE', `/v1/memories/${m.memory_id}?purge=true`);
    assert.equal(d.status, 200);
    assert.equal(d.json.purged, true);
    assertError(await s.req('GET', `/v1/memories/${m.memory_id}/history`), 404, 'NOT_FOUND');
  });

  it('bulk deletes by filter and refuses to delete without one', async () => {
    await add({ user_id: 'bulk', content: 'bulk one' });
    await add({ user_id: 'bulk', content: 'bulk two' });
    const before = await snapshot();
    assertError(await s.req('DELETE', '/v1/memories'), 400, 'INVALID_REQUEST');
    assert.equal(await snapshot(), before);
    const d = await s.req('DELETE', '/v1/memories?user_id=bulk');
    assert.equal(d.status, 200);
    assert.equal(d.json.deleted, 2);
    const left = await s.req('GET', '/v1/memories?user_id=bulk');
    assert.equal(left.json.results.length, 0);
  });
});

describe('bad input gets its documented 4xx and changes nothing', () => {
  it('answers each kind of bad input with its error body', async () => {
    await add({ content: 'a memory that must survive bad requests' });
    const before = await snapshot();
    const raw = async (method: string, p: string, body: string, type = 'application/json'): Promise<{ status: number; json: any }> => {
      const r = await fetch(s.url + p, { method, headers: { Authorization: `Bearer ${s.key}`, 'Content-Type': type }, body });
      return { status: r.status, json: await r.json() };
    };
    assertError(await raw('POST', '/v1/memories', '{"user_id": "a", "content": '), 400, 'INVALID_JSON');
    assertError(await raw('POST', '/v1/memories', 'content=hello', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertError(await s.req('POST', '/v1/memories', { user_id: 'a', content: 42 }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories', { user_id: 'a' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories', { content: 'no user' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories', { user_id: 'a', content: '   ' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories', { user_id: 'a', content: 'x', category: 'gossip' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories', { user_id: 'a', content: 'x', unknown_field: 1 }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories', { user_id: 'a', content: 'x', valid_from: 'yesterday' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories', [1, 2]), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories', { user_id: 'a', content: 'x', metadata: { blob: 'x'.repeat(20_000) } }), 413, 'PAYLOAD_TOO_LARGE');
    assertError(await s.req('POST', '/v1/memories', { user_id: 'a', content: 'x'.repeat(2_000_000) }), 413, 'PAYLOAD_TOO_LARGE');
    assertError(await s.req('POST', '/v1/memories/search', { query: '' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories/search', { query: 'x', top_k: 0 }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories/search', { query: 'x', scope: 'repo' }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('POST', '/v1/memories/search', { query: 'x', filters: { colour: 'red' } }), 422, 'VALIDATION_FAILED');
    assertError(await s.req('GET', `/v1/memories/${UNKNOWN}`), 404, 'NOT_FOUND');
    assertError(await s.req('GET', '/v1/memories/not-a-uuid'), 400, 'INVALID_REQUEST');
    assertError(await s.req('PATCH', `/v1/memories/${UNKNOWN}`, { content: 'x' }), 404, 'NOT_FOUND');
    assertError(await s.req('PATCH', '/v1/memories/12345', { content: 'x' }), 400, 'INVALID_REQUEST');
    assertError(await s.req('DELETE', `/v1/memories/${UNKNOWN}`), 404, 'NOT_FOUND');
    assertError(await s.req('GET', `/v1/memories/${UNKNOWN}/history`), 404, 'NOT_FOUND');
    assertError(await s.req('GET', '/v1/memories?cursor=bogus'), 400, 'INVALID_REQUEST');
    assertError(await s.req('GET', '/v1/memories?limit=0'), 400, 'INVALID_REQUEST');
    assertError(await s.req('GET', '/v1/memories?limit=abc'), 400, 'INVALID_REQUEST');
    assertError(await s.req('GET', '/v1/memories?colour=red'), 400, 'INVALID_REQUEST');
    assertError(await s.req('GET', '/v1/memories?created_after=tuesday'), 400, 'INVALID_REQUEST');
    assertError(await s.req('GET', '/v1/nothing-here'), 404, 'NOT_FOUND');
    assert.equal(await snapshot(), before);
  });

  it('treats injection attempts in filters as plain values', async () => {
    await add({ user_id: 'victim', content: 'victim memory about injection' });
    for (const attack of ["' OR '1'='1", "victim' OR user_id != '", "x') OR TRUE --"]) {
      const list = await s.req('GET', `/v1/memories?user_id=${encodeURIComponent(attack)}`);
      assert.equal(list.status, 200);
      assert.equal(list.json.results.length, 0, `list with ${attack}`);
      const search = await s.req('POST', '/v1/memories/search', { query: 'injection', filters: { user_id: attack, repo: attack, metadata: { [attack]: attack } } });
      assert.equal(search.status, 200);
      assert.equal(search.json.results.length, 0, `search with ${attack}`);
      const del = await s.req('DELETE', `/v1/memories?user_id=${encodeURIComponent(attack)}`);
      assert.equal(del.json.deleted, 0);
    }
    const still = await s.req('GET', '/v1/memories?user_id=victim');
    assert.equal(still.json.results.length, 1);
  });

  it('refuses requests without a valid key', async () => {
    const none = await fetch(`${s.url}/v1/memories`);
    assert.equal(none.status, 401);
    assert.equal(((await none.json()) as any).error.code, 'UNAUTHORIZED');
    assertError(await s.req('GET', '/v1/memories', undefined, { Authorization: 'Bearer msk_wrong' }), 401, 'UNAUTHORIZED');
    assertError(await s.req('GET', '/v1/memories', undefined, { Authorization: 'Basic abc' }), 401, 'UNAUTHORIZED');
    const token = await s.req('GET', '/v1/memories?limit=1', undefined, { Authorization: `Token ${s.key}` });
    assert.equal(token.status, 200);
    const v = await s.req('GET', '/api/v1/verify');
    assert.equal(v.status, 200);
    assert.equal(v.json.valid, true);
    assert.deepEqual(v.json.scopes, ['read', 'write', 'admin']);
    assertError(await s.req('GET', '/api/v1/verify', undefined, { Authorization: 'Bearer msk_nope' }), 401, 'UNAUTHORIZED');
  });

  it('tolerates trailing slashes', async () => {
    const r = await s.req('GET', '/v1/memories/?limit=1');
    assert.equal(r.status, 200);
  });
});

describe('exports and imports', () => {
  it('round-trips every version into an empty server with identical history and search results', async () => {
    const m = await add({ content: 'Exported fact: the queue is RabbitMQ', category: 'fact' });
    await s.req('PATCH', `/v1/memories/${m.memory_id}`, { content: 'Exported fact: the queue is now NATS', valid_from: '2026-06-01T00:00:00Z' });
    const job = await s.req('POST', '/v1/exports', {});
    assert.equal(job.status, 202);
    let status = job.json;
    for (let i = 0; i < 100 && status.status !== 'SUCCEEDED'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await s.req('GET', `/v1/exports/${job.json.export_id}`)).json;
    }
    assert.equal(status.status, 'SUCCEEDED');
    const file = await s.req('GET', `/v1/exports/${job.json.export_id}/download`);
    assert.equal(file.status, 200);
    assert.match(file.headers.get('content-type') ?? '', /ndjson/);
    const lines = file.text.trim().split('\n');
    assert.equal(lines.length, status.count);

    const other = await startTestServer();
    try {
      const imp = await other.req('POST', '/v1/imports', file.text, { 'Content-Type': 'application/x-ndjson' });
      assert.equal(imp.status, 200, imp.text);
      assert.equal(imp.json.imported, lines.length);
      const again = await other.req('POST', '/v1/imports', file.text, { 'Content-Type': 'application/x-ndjson' });
      assert.equal(again.json.imported, 0, 'import is idempotent');
      const strip = (h: any): any => h.json.versions.map(({ ...v }) => v);
      assert.deepEqual(strip(await other.req('GET', `/v1/memories/${m.memory_id}/history`)), strip(await s.req('GET', `/v1/memories/${m.memory_id}/history`)));
      for (const q of ['queue NATS', 'RabbitMQ', 'Adidas running shoes', 'deploy']) {
        const a = await s.req('POST', '/v1/memories/search', { query: q, top_k: 5 });
        const b = await other.req('POST', '/v1/memories/search', { query: q, top_k: 5 });
        assert.deepEqual(
          b.json.results.map((r: any) => [r.memory_id, r.content]),
          a.json.results.map((r: any) => [r.memory_id, r.content]),
          `same results for "${q}"`,
        );
      }
      const bad = await other.req('POST', '/v1/imports', '{"kind":"version"}\nnot json', { 'Content-Type': 'application/x-ndjson' });
      assertError(bad, 422, 'VALIDATION_FAILED');
    } finally {
      await other.close();
    }
  });

  it('reports unknown exports as 404', async () => {
    assertError(await s.req('GET', `/v1/exports/${UNKNOWN}`), 404, 'NOT_FOUND');
    assertError(await s.req('GET', `/v1/exports/${UNKNOWN}/download`), 404, 'NOT_FOUND');
  });
});
