/**
 * Malformed input over every route the server serves (read from the app, so a new route is fuzzed
 * too): broken and mistyped bodies, corrupt compression, wrong media types, deep nesting, broken
 * %-encoding and junk in path ids, bad query parameters and impossible dates, oversized URLs. At
 * least 2,000 requests; every answer must be a documented 4xx with the error body, and the store,
 * the event feed, webhooks and tenancy must be exactly as before.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { appRoutes, startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../helpers/team.js';

let s: TestServer;
const ids: Record<string, string> = {};

before(async () => {
  s = await startTestServer({ embedder: null, config: { webhookAllowPrivate: true, rateLimitPerMinute: 1_000_000 } });
  const v = ok(await s.req('GET', '/api/v1/verify'));
  ids.org = v.org_id;
  ids.project = v.project_id;
  ids.member = v.member_id;
  ids.key = v.key_id;
  ids.memory = ok(await s.req('POST', '/v1/memories', { user_id: 'u', content: 'the fuzz target memory' }), 201).memory_id;
  ids.webhook = ok(await s.req('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] }), 201).webhook_id;
});
after(async () => {
  await s.close();
});

const DOCUMENTED = new Set([400, 401, 403, 404, 405, 409, 413, 415, 422, 431]);

interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

function send(r: Req): Promise<{ status: number; text: string }> {
  const u = new URL(s.url);
  return new Promise((resolve) => {
    const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
    const req = http.request(
      { host: u.hostname, port: u.port, method: r.method, path: r.path, headers: { Authorization: `Bearer ${s.key}`, ...(body ? { 'Content-Length': String(body.length) } : {}), ...r.headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', (err) => resolve({ status: -1, text: err.message }));
    if (body) req.write(body);
    req.end();
  });
}

/** A real value for each path parameter, so only the part being fuzzed is wrong. */
function fill(route: string, junk?: { param: string; value: string }): string {
  return `/v1${route.replace(/:(\w+)/g, (_m, p: string) => {
    if (junk && junk.param === p) return junk.value;
    return { org: ids.org, project: ids.project, member: ids.member, key: ids.key, id: ids.memory, type: 'user', }[p] ?? ids.memory!;
  })}`;
}

let deep = '1';
for (let i = 0; i < 5_000; i++) deep = `{"a":${deep}}`;
const BAD_JSON = ['{', '{"a":', '{"a" 1}', "{'a':1}", '{"a":1,}', '[1,2', 'nul', '{"a":NaN}', '{"a":Infinity}', '{"a":undefined}', '\u0000', '{"a":"\\x41"}', '{"a":"\\uZZZZ"}', '{} {}', '{"a":1}}'];
const NOT_OBJECTS = ['[]', '[{}]', '1', '-1e999', '"string"', 'true', 'null', '[[[[[[]]]]]]'];
const BAD_IDS = ['%', '%E0%A4%A', '%ZZ', '%C0%AF', 'x'.repeat(300), '..%2F..%2Fetc%2Fpasswd', '%00', "'%20OR%201=1--", '%F0%9F%92%A9', '-1', '00000000-0000-0000-0000-00000000000g', '%uD800'];
const BAD_QUERIES = ['limit=-1', 'limit=abc', 'limit=100000000', 'limit=1.5', 'cursor=%%%', 'cursor=not-a-cursor', 'created_after=2026-02-30', 'valid_at=2026-13-01', 'after=-5', 'after=abc', 'zz_unknown=1', 'limit=1&limit=2', 'purge=maybe', 'type=%FF', 'limit=0', 'limit=', 'created_before=yesterday', 'updated_after=2026-04-31', 'valid_at=2026-02-29T25:00:00Z', 'known_at=0000-00-00', '%ZZ=1', 'limit[]=1'];

function mutations(route: string): Req[] {
  const [method, path] = route.split(' ') as [string, string];
  const out: Req[] = [];
  const params = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  for (const param of params) for (const value of BAD_IDS) out.push({ method, path: fill(path, { param, value }) });
  for (const q of BAD_QUERIES) out.push({ method, path: `${fill(path)}?${q}` });
  out.push({ method, path: `${fill(path)}?q=${'a'.repeat(100_000)}` });
  if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
    const json = { 'Content-Type': path === '/imports' ? 'application/x-ndjson' : 'application/json' };
    for (const b of [...BAD_JSON, ...NOT_OBJECTS]) out.push({ method, path: fill(path), headers: json, body: b });
    out.push({ method, path: fill(path), headers: { ...json, 'Content-Encoding': 'gzip' }, body: Buffer.from('not gzip at all') });
    out.push({ method, path: fill(path), headers: { ...json, 'Content-Encoding': 'br' }, body: Buffer.from('not brotli') });
    out.push({ method, path: fill(path), headers: { ...json, 'Content-Encoding': 'deflate' }, body: gzipSync('{"a":1}') });
    out.push({ method, path: fill(path), headers: { ...json, 'Content-Encoding': 'x-unknown' }, body: '{}' });
    out.push({ method, path: fill(path), headers: { 'Content-Type': 'application/json' }, body: `{"x":${deep}}` });
    out.push({ method, path: fill(path), headers: { 'Content-Type': 'application/json' }, body: `{"valid_from":"2026-02-30T00:00:00Z","x":{"y":[${'1,'.repeat(10)}1]}}` });
    out.push({ method, path: fill(path), headers: { 'Content-Type': 'application/json' }, body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) });
    out.push({ method, path: fill(path), headers: { 'Content-Type': 'text/plain' }, body: '{"a":1}' });
    out.push({ method, path: fill(path), headers: { 'Content-Type': 'application/xml' }, body: '<a/>' });
    out.push({ method, path: fill(path), headers: { 'Content-Type': 'application/json' }, body: `{"a":"${'z'.repeat(2 * 1024 * 1024)}"}` });
  }
  return out;
}

/** Everything a malformed request must leave alone, as the owner sees it. */
async function state(): Promise<string> {
  return JSON.stringify([
    (await s.req('GET', '/v1/memories?limit=1000')).json,
    (await s.req('GET', `/v1/memories/${ids.memory}/history`)).json,
    (await s.req('GET', '/v1/events?limit=1000')).json?.last_seq,
    (await s.req('GET', '/v1/webhooks')).json,
    (await s.req('GET', `/v1/orgs/${ids.org}`)).json,
    (await s.req('GET', `/v1/orgs/${ids.org}/projects`)).json,
    (await s.req('GET', `/v1/orgs/${ids.org}/members`)).json,
    (await s.req('GET', `/v1/orgs/${ids.org}/projects/${ids.project}/keys`)).json.results.map((k: any) => [k.key_id, k.revoked_at]),
    (await s.req('GET', '/v1/telemetry/summary')).json?.events_total,
  ]);
}

describe('fuzz: malformed input over every route', () => {
  it('answers 2,000+ malformed requests with documented 4xx and changes nothing', async (t) => {
    const routes = [...appRoutes(s.server)].map((r) => r.replace(/^(\w+) /, (_m, m: string) => `${m.toUpperCase()} `)).filter((r) => r !== 'GET /health' && r !== 'GET /api/v1/verify');
    const all = routes.flatMap(mutations);
    assert.ok(all.length >= 2000, `${all.length} inputs`);
    const before = await state();
    const wrong: string[] = [];
    for (const r of all) {
      const res = await send(r);
      const label = `${r.method} ${r.path.slice(0, 90)} [${r.headers?.['Content-Type'] ?? ''} ${r.headers?.['Content-Encoding'] ?? ''}] ${String(r.body ?? '').slice(0, 40)} → ${res.status} ${res.text.slice(0, 120)}`;
      if (!DOCUMENTED.has(res.status)) wrong.push(label);
      else {
        let body: any = null;
        try {
          body = JSON.parse(res.text);
        } catch {
          body = null;
        }
        if (typeof body?.error?.code !== 'string' || typeof body.error.message !== 'string') wrong.push(`no error body: ${label}`);
      }
    }
    t.diagnostic(`${all.length} malformed inputs over ${routes.length} routes: ${wrong.length} not a documented 4xx, ${wrong.filter((w) => / → 5\d\d /.test(w)).length} 5xx`);
    assert.deepEqual(wrong, []);
    assert.equal(await state(), before, 'nothing changed');
  });
});
