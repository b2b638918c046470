/**
 * Anonymous telemetry end to end: a real daemon driven through hooks and the CLI, a loopback
 * receiver in place of the server. Events arrive in the server's exact intake schema and carry no
 * content, path, repository or id beyond the random install id; with telemetry off, or no server,
 * nothing is written or sent.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, runHook, startTestDaemon } from '../helpers/daemon.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function receiver(): Promise<{ url: string; got: Received[]; status: { code: number }; close(): Promise<void> }> {
  const got: Received[] = [];
  const status = { code: 202 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      // A configured server also turns sync on; only telemetry intake is this receiver's business.
      if (!(req.url ?? '').startsWith('/v1/telemetry')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NOT_FOUND","message":"not here","request_id":"x"}}');
        return;
      }
      got.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(status.code, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, got, status, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const PROMPT = 'We decided the zebra-banana-42 queue lives in Kafka';
const SID = 'eeeeeeee-1111-4222-8333-444444444444';

/** Hooks, a search, a remember and a bad CLI call: the things telemetry times. */
async function work(env: NodeJS.ProcessEnv, repo: string): Promise<void> {
  const base = { session_id: SID, cwd: repo };
  assert.equal((await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: PROMPT }, env, repo)).code, 0);
  assert.equal((await runHook('PostToolUse', { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'cat zebra-banana-42.txt' }, tool_response: 'ok' }, env, repo)).code, 0);
  assert.equal((await cli(['search', 'zebra-banana-42 queue'], env, repo)).code, 0);
  assert.equal((await cli(['remember', 'The zebra-banana-42 queue is partitioned by tenant.'], env, repo)).code, 0);
  assert.equal((await cli(['search', 'zebra', '--scope', 'galaxy'], env, repo)).code, 2);
}

describe('telemetry', () => {
  let rx: Awaited<ReturnType<typeof receiver>>;
  let repo: string;
  let root: string;
  before(async () => {
    rx = await receiver();
    repo = makeRepo();
    root = tempDir('telemetry-');
  });
  after(() => rx.close());

  it('sends batches of anonymous events, keeps them across a failed send and a restart', async () => {
    const home = path.join(root, 'on');
    const env = { SERVICE_TELEMETRY: 'true', SERVICE_BASE_URL: rx.url, SERVICE_API_KEY: 'msk_telemetry_test' };
    rx.status.code = 503;
    let d = await startTestDaemon({ home, env });
    await work(d.env, repo);
    await d.stop();
    const spool = JSON.parse(fs.readFileSync(path.join(home, 'telemetry', 'spool.json'), 'utf8'));
    assert.ok(spool.pending.length >= 6, `kept what the server refused: ${spool.pending.length}`);
    assert.match(spool.last_error.message, /503/);
    assert.equal(rx.got.length, 1, 'one attempt at stop');

    rx.status.code = 202;
    d = await startTestDaemon({ home, env });
    await work(d.env, repo);
    await d.stop();
    const sent = rx.got.slice(1);
    assert.ok(sent.length >= 1);
    const events: Record<string, any>[] = [];
    const installId = fs.readFileSync(path.join(home, 'telemetry', 'install-id'), 'utf8');
    for (const r of sent) {
      assert.equal(r.method, 'POST');
      assert.equal(r.url, '/v1/telemetry');
      assert.equal(r.headers.authorization, 'Bearer msk_telemetry_test');
      assert.match(String(r.headers['content-type']), /application\/json/);
      for (const leak of ['zebra', 'Kafka', 'partitioned', repo, 'acme', 'shop', 'tester', home, SID, 'cat ']) assert.ok(!r.body.includes(leak), `the batch carries "${leak}"`);
      const body = JSON.parse(r.body) as { events: Record<string, any>[] };
      assert.deepEqual(Object.keys(body), ['events']);
      assert.ok(body.events.length <= 100);
      events.push(...body.events);
    }
    assert.ok(events.length >= 2 * spool.pending.length - 1, `both lifetimes' events arrived: ${events.length}`);
    for (const e of events) {
      for (const k of Object.keys(e)) assert.ok(['event', 'plugin_version', 'runtime', 'duration_ms', 'error_class', 'install_id'].includes(k), `field ${k}`);
      assert.deepEqual(Object.keys(e.runtime).sort(), ['arch', 'node', 'os']);
      assert.equal(e.plugin_version, '1.2.0');
      assert.equal(e.install_id, installId);
    }
    const names = new Set(events.map((e) => e.event));
    for (const n of ['recall.user_prompt_submit', 'capture.post_tool_use', 'search.repo', 'remember', 'cli.search', 'cli.remember']) assert.ok(names.has(n), `${n} in ${[...names].join(', ')}`);
    assert.ok(events.some((e) => e.event === 'cli.search' && e.error_class === 'UsageError'), 'a failed command carries its error class');
    assert.ok(events.filter((e) => e.event.startsWith('search.')).every((e) => typeof e.duration_ms === 'number'));
    const after = JSON.parse(fs.readFileSync(path.join(home, 'telemetry', 'spool.json'), 'utf8'));
    assert.equal(after.pending.length, 0);
    assert.equal(after.sent_total, events.length);

    // The server takes the batch exactly as sent (its schema refuses any other field).
    const s = await startTestServer({ embedder: null });
    try {
      const r = await s.req('POST', '/v1/telemetry', JSON.parse(sent[0]!.body));
      assert.equal(r.status, 202, r.text);
    } finally {
      await s.close();
    }
  });

  it('records, writes and sends nothing when off or when no server is configured', async () => {
    const before = rx.got.length;
    const variants: Record<string, string>[] = [
      { SERVICE_TELEMETRY: 'false', SERVICE_BASE_URL: rx.url, SERVICE_API_KEY: 'k' },
      { SERVICE_TELEMETRY: 'true', DO_NOT_TRACK: '1', SERVICE_BASE_URL: rx.url, SERVICE_API_KEY: 'k' },
      { SERVICE_TELEMETRY: 'true' },
    ];
    await Promise.all(
      variants.map(async (env, i) => {
        const d = await startTestDaemon({ home: path.join(root, `off-${i}`), env });
        await work(d.env, repo);
        await d.stop();
        assert.ok(!fs.existsSync(path.join(d.home, 'telemetry')), `no telemetry files with ${JSON.stringify(env)}`);
      }),
    );
    assert.equal(rx.got.length, before, 'nothing was sent');
  });
});
