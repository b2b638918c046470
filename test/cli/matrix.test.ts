/**
 * The CLI never surprises: every command × (ok, usage error, not found, daemon down, unauthorized)
 * × (text, --json) gives the documented exit code (README: 0 ok, 1 failed, 2 usage, 3 daemon
 * unreachable, 4 configuration, 5 not found, 6 unauthorized); with --json, stdout is one JSON
 * document (errors as {"error":{code,message}}), and in text a failure says why on stderr.
 * A case a command cannot meet is named with the reason (e.g. `serve` runs until stopped).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMANDS } from '../../cli/registry.js';
import { cli, makeRepo, startTestDaemon, testEnv, type TestDaemon } from '../helpers/daemon.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';

type Case = 'ok' | 'usage' | 'notFound' | 'down' | 'unauthorized';
const EXPECTED: Record<Case, number> = { ok: 0, usage: 2, notFound: 5, down: 3, unauthorized: 6 };
const UNKNOWN = '01234567-89ab-7def-8123-456789abcdef';

interface Ctx {
  env: NodeJS.ProcessEnv;
  down: NodeJS.ProcessEnv;
  badKey: NodeJS.ProcessEnv;
  cwd: string;
  id: string;
  /** A memory that stays current. */
  mem: string;
  data: string;
  tmp: string;
}

/** args per case; a string instead of args says why the case does not apply. */
/** `answers`: cases whose exit code is the answer to a question (daemon status: not running), not an error. */
type Row = Partial<Record<Case, ((c: Ctx) => string[]) | string>> & { answers?: Case[] };

const ROWS: Record<string, Row> = {
  tui: { usage: () => ['tui'], ok: 'needs a terminal (test/tui/terminal.test.ts)', notFound: 'finds nothing', down: 'shows a daemon-down screen (test/tui)', unauthorized: 'local only' },
  status: { ok: () => ['status'], usage: () => ['status', 'extra'], down: () => ['status'], notFound: 'nothing to find', unauthorized: 'local only' },
  search: { ok: () => ['search', 'postgres'], usage: () => ['search'], down: () => ['search', 'postgres'], notFound: 'no match is an answer, not an error', unauthorized: 'local only' },
  remember: { ok: () => ['remember', 'We pin Node 20 in CI.'], usage: () => ['remember', 'x', '--category', 'nonsense'], down: () => ['remember', 'x'], notFound: 'nothing to find', unauthorized: 'local only' },
  forget: { ok: () => ['forget', '--query', 'zzzz nothing matches', '--yes'], usage: () => ['forget'], notFound: () => ['forget', UNKNOWN], down: () => ['forget', UNKNOWN], unauthorized: 'local only' },
  undo: { ok: (c) => ['undo', c.id], usage: () => ['undo', 'a', 'b'], notFound: () => ['undo'], down: () => ['undo'], unauthorized: 'local only' },
  pause: { ok: () => ['pause', '--all'], usage: () => ['pause', 'extra'], down: () => ['pause'], notFound: 'nothing to find', unauthorized: 'local only' },
  resume: { ok: () => ['resume', '--all'], usage: () => ['resume', 'extra'], down: () => ['resume'], notFound: 'nothing to find', unauthorized: 'local only' },
  list: { ok: () => ['list', '--since', '7d'], usage: () => ['list', '--since', 'yesterday-ish'], down: () => ['list'], notFound: 'an empty list is an answer', unauthorized: 'local only' },
  show: { ok: (c) => ['show', c.mem], usage: () => ['show', 'nope'], notFound: () => ['show', UNKNOWN], down: () => ['show', UNKNOWN], unauthorized: 'local only' },
  edit: { ok: (c) => ['edit', c.mem, '--content', `We store sessions in PostgreSQL ${Date.now()}.`], usage: (c) => ['edit', c.mem, '--content', ' '], notFound: () => ['edit', UNKNOWN, '--content', 'x'], down: () => ['edit', UNKNOWN, '--content', 'x'], unauthorized: 'local only' },
  history: { ok: (c) => ['history', c.id], usage: () => ['history'], notFound: () => ['history', UNKNOWN], down: () => ['history', UNKNOWN], unauthorized: 'local only' },
  export: { ok: (c) => ['export', path.join(c.tmp, 'out.ndjson')], usage: () => ['export', 'a', 'b'], down: (c) => ['export', path.join(c.tmp, 'x.ndjson')], notFound: 'nothing to find', unauthorized: 'local only' },
  import: { ok: (c) => ['import', path.join(c.tmp, 'out.ndjson')], usage: () => ['import'], notFound: (c) => ['import', path.join(c.tmp, 'missing.ndjson')], down: (c) => ['import', path.join(c.tmp, 'out.ndjson')], unauthorized: 'local only' },
  sync: { ok: () => ['sync'], usage: () => ['sync', 'bogus'], down: () => ['sync'], notFound: 'nothing to find', unauthorized: 'reports the refusal (sync now exits 6)' },
  'sync status': { ok: () => ['sync', 'status'], usage: () => ['sync', 'status', 'x'], down: () => ['sync', 'status'], notFound: 'nothing to find', unauthorized: 'reports the refusal (sync now exits 6)' },
  'sync now': { usage: () => ['sync', 'now', 'x'], down: () => ['sync', 'now'], unauthorized: () => ['sync', 'now'], ok: 'needs a server (test/sync)', notFound: 'nothing to find' },
  config: { ok: () => ['config'], usage: () => ['config', 'bogus'], notFound: 'a setting name the schema lacks exits 4', down: 'no daemon needed', unauthorized: 'local only' },
  'config list': { ok: () => ['config', 'list', '--all'], usage: () => ['config', 'list', 'x'], notFound: 'nothing to find', down: 'no daemon needed', unauthorized: 'local only' },
  'config get': { ok: () => ['config', 'get', 'top_k'], usage: () => ['config', 'get'], notFound: 'unknown names exit 4 (configuration)', down: 'no daemon needed', unauthorized: 'local only' },
  'config set': { ok: () => ['config', 'set', 'context_tokens', '1500'], usage: () => ['config', 'set', 'top_k'], notFound: 'unknown names exit 4 (configuration)', down: 'no daemon needed', unauthorized: 'local only' },
  'config unset': { ok: () => ['config', 'unset', 'context_tokens'], usage: () => ['config', 'unset'], notFound: 'unsetting what is unset is fine', down: 'no daemon needed', unauthorized: 'local only' },
  'daemon start': { ok: () => ['daemon', 'start'], usage: () => ['daemon', 'start', 'x'], notFound: 'nothing to find', down: 'starts it', unauthorized: 'local only' },
  'daemon stop': { usage: () => ['daemon', 'stop', 'x'], ok: 'covered by daemon restart and test/daemon', notFound: 'nothing to find', down: 'says it was not running (exit 0)', unauthorized: 'local only' },
  'daemon restart': { usage: () => ['daemon', 'restart', 'x'], ok: 'test/cli/config.test.ts', notFound: 'nothing to find', down: 'starts it', unauthorized: 'local only' },
  'daemon status': { ok: () => ['daemon', 'status'], usage: () => ['daemon', 'status', 'x'], down: () => ['daemon', 'status'], notFound: 'nothing to find', unauthorized: 'local only', answers: ['down'] },
  'daemon run': { ok: () => ['daemon', 'run'], usage: () => ['daemon', 'run', 'x'], notFound: 'nothing to find', down: 'it is the daemon', unauthorized: 'local only' },
  serve: { usage: () => ['serve', '--port', 'many'], ok: 'runs until stopped (test/cli/team-walkthrough.test.ts)', notFound: 'nothing to find', down: 'no daemon needed', unauthorized: 'keys are checked per request' },
  'keys create': { ok: (c) => ['keys', 'create', '--data', c.data, '--project', 'shop'], usage: (c) => ['keys', 'create', '--data', c.data, '--permissions', 'everything'], notFound: (c) => ['keys', 'create', '--data', c.data, '--project', 'nope'], down: 'no daemon needed', unauthorized: 'local admin' },
  'keys list': { ok: (c) => ['keys', 'list', '--data', c.data], usage: (c) => ['keys', 'list', 'x', '--data', c.data], notFound: (c) => ['keys', 'list', '--data', path.join(c.tmp, 'no-server')], down: 'no daemon needed', unauthorized: 'local admin' },
  'keys revoke': { usage: (c) => ['keys', 'revoke', '--data', c.data], notFound: (c) => ['keys', 'revoke', 'key_nope', '--data', c.data], ok: 'test/server/verify.test.ts', down: 'no daemon needed', unauthorized: 'local admin' },
  'orgs create': { ok: (c) => ['orgs', 'create', 'acme', '--owner', 'alice', '--data', path.join(c.tmp, 'orgs')], usage: (c) => ['orgs', 'create', '--data', c.data], notFound: 'nothing to find', down: 'no daemon needed', unauthorized: 'local admin' },
  'orgs list': { ok: (c) => ['orgs', 'list', '--data', c.data], usage: (c) => ['orgs', 'list', 'x', '--data', c.data], notFound: (c) => ['orgs', 'list', '--data', path.join(c.tmp, 'no-server')], down: 'no daemon needed', unauthorized: 'local admin' },
  'plugin install': { usage: () => ['plugin', 'install', 'vim'], ok: 'test/cli/plugin-lifecycle.test.ts', notFound: 'nothing to find', down: 'starts it', unauthorized: 'checked by plugin status' },
  'plugin update': { usage: () => ['plugin', 'update'], notFound: () => ['plugin', 'update', 'claude-code'], ok: 'test/cli/plugin-lifecycle.test.ts', down: 'starts it', unauthorized: 'checked by plugin status' },
  'plugin uninstall': { usage: () => ['plugin', 'uninstall'], ok: 'test/cli/plugin-lifecycle.test.ts', notFound: 'uninstalling what is absent is fine', down: 'no daemon needed', unauthorized: 'local only' },
  'plugin status': { usage: () => ['plugin', 'status', 'x'], ok: 'test/cli/plugin-lifecycle.test.ts', notFound: 'reports a missing plugin as a failed check', down: 'reports it as a failed check', unauthorized: 'reports it as a failed check' },
};

describe('the CLI matrix', () => {
  let d: TestDaemon;
  let u: TestDaemon;
  let server: TestServer;
  const c = {} as Ctx;

  before(async () => {
    c.tmp = tempDir('matrix-');
    c.cwd = makeRepo();
    d = await startTestDaemon();
    c.env = d.env;
    server = await startTestServer();
    u = await startTestDaemon({ env: { SERVICE_BASE_URL: server.url, SERVICE_API_KEY: `msk_${'0'.repeat(40)}` } });
    c.badKey = u.env;
    c.down = testEnv(path.join(c.tmp, 'down-home'), { SERVICE_AUTOSTART: 'false' });
    const m = await d.client.remember({ text: 'We store sessions in PostgreSQL.', cwd: c.cwd });
    c.id = m.results[0]!.memory_id;
    await d.client.localForget({ memory_ids: [c.id] });
    c.mem = (await d.client.remember({ text: 'The checkout service retries Stripe calls three times.', cwd: c.cwd })).results[0]!.memory_id;
    c.data = path.join(c.tmp, 'server');
    const org = await cli(['orgs', 'create', 'matrix', '--owner', 'ann', '--project', 'shop', '--data', c.data], c.env);
    assert.equal(org.code, 0, org.stderr);
  });
  after(async () => {
    await d?.stop();
    await u?.stop();
    await server?.close();
  });

  it('has a row for every command', () => {
    assert.deepEqual(COMMANDS.map((x) => x.path.join(' ')).filter((p) => !(p in ROWS)), []);
  });

  for (const [name, row] of Object.entries(ROWS)) {
    for (const kase of Object.keys(EXPECTED) as Case[]) {
      const spec = row[kase];
      if (typeof spec !== 'function') continue;
      for (const json of [false, true]) {
        it(`${name} · ${kase} · ${json ? '--json' : 'text'}`, async () => {
          const env = kase === 'down' ? c.down : kase === 'unauthorized' ? c.badKey : c.env;
          // Undo needs something forgotten each time it succeeds.
          if (name === 'undo' && kase === 'ok') await d.client.localForget({ memory_ids: [c.id] }).catch(() => {});
          if (name === 'undo' && kase === 'notFound') while (await d.client.undo().then(() => true, () => false));
          const args = [...spec(c), ...(json ? ['--json'] : [])];
          const r = await cli(args, env, c.cwd);
          assert.equal(r.code, EXPECTED[kase], `service ${args.join(' ')} → ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
          if (json) {
            let doc: unknown;
            assert.doesNotThrow(() => (doc = JSON.parse(r.stdout)), `stdout is one JSON document: ${r.stdout}`);
            if (kase !== 'ok' && !row.answers?.includes(kase)) {
              const e = (doc as { error?: { code?: unknown; message?: unknown } }).error;
              assert.ok(e && typeof e.code === 'string' && typeof e.message === 'string' && e.message.length > 0, `an error object: ${r.stdout}`);
            }
          } else if (kase !== 'ok' && !row.answers?.includes(kase)) {
            assert.ok(r.stderr.trim().length > 0, `says why on stderr: ${args.join(' ')}`);
            assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
          }
        });
      }
    }
  }

  it('read-only commands create nothing', async () => {
    const home = path.join(c.tmp, 'untouched');
    const env = testEnv(home, { SERVICE_AUTOSTART: 'false' });
    for (const args of [['config', 'list'], ['config', 'get', 'top_k'], ['keys', 'list'], ['orgs', 'list'], ['daemon', 'status'], ['--version'], ['--help'], ['search', '--help'], ['status'], ['sync', 'status']]) {
      await cli(args, env, c.cwd);
      assert.equal(fs.existsSync(home), false, `service ${args.join(' ')} created ${home}`);
    }
  });

  it('stops quietly when the reader closes the pipe', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync('/bin/sh', ['-c', `"${process.execPath}" "${path.resolve('dist/cli/main.js')}" --help | head -1`], { env: c.env, encoding: 'utf8' });
    assert.equal(r.status, 0);
    assert.doesNotMatch(r.stderr, /EPIPE|Error/);
  });
});
