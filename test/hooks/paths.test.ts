import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { callerCaEnv, daemonProcessEnv } from '../../daemon/process-env.js';
import { socketPath } from '../../engine/paths.js';
import { hookSocketPath } from '../../hooks/lib/paths.js';
import { callerEnv as hookCallerEnv, daemonProcessEnv as hookDaemonEnv } from '../../hooks/lib/run.js';

const bundles = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'hooks-bundle');

test('hooks find the socket where the daemon puts it, for short and too-long data dirs', async () => {
  for (const home of ['/tmp/h', `/tmp/${'x'.repeat(120)}/home`, path.join('/var', 'a'.repeat(80), 'b'.repeat(30))]) {
    assert.equal(await hookSocketPath(home), socketPath(home), home);
  }
});

test('a hook loads child_process and crypto only on demand, and still starts a missing daemon', async () => {
  // Every built-in loaded at start is paid on every prompt; child_process and crypto are only
  // needed to start a missing daemon or hash a long data dir path.
  const probe = `
    const Module = require('node:module');
    const seen = new Set();
    const orig = Module.prototype.require;
    Module.prototype.require = function (id) { seen.add(id); return orig.apply(this, arguments); };
    process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify([...seen])));
    require(${JSON.stringify(path.join(bundles, 'user-prompt-submit.cjs'))});
  `;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hook-loads-'));
  const started = path.join(home, 'started');
  fs.writeFileSync(path.join(home, 'cli.js'), `require('node:fs').writeFileSync(${JSON.stringify(started)}, process.argv.slice(2).join(' '));`);
  const r = spawnSync(process.execPath, ['-e', probe], {
    input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'hi there', session_id: 's' }),
    // The "CLI" it starts only notes how it was started.
    env: { ...process.env, SERVICE_HOME: home, SERVICE_CLI: path.join(home, 'cli.js'), SERVICE_RECALL_TIMEOUT_MS: '200' },
    encoding: 'utf8',
  });
  // The CLI runs detached and may finish after the hook.
  const read = (): string | null => (fs.existsSync(started) ? fs.readFileSync(started, 'utf8') : null);
  for (let i = 0; i < 100 && !read(); i++) await new Promise((res) => setTimeout(res, 20));
  const spawned = read();
  fs.rmSync(home, { recursive: true, force: true });
  const loaded = JSON.parse(/LOADED (.*)$/.exec(r.stderr)?.[1] ?? 'null') as string[] | null;
  assert.ok(loaded, r.stderr);
  assert.ok(loaded.includes('node:net'), 'the hook talks to the socket');
  for (const heavy of ['node:crypto', 'node:child_process']) assert.ok(!loaded.includes(heavy), `loaded ${loaded.join(', ')}`);
  // The daemon is missing here: starting it (child_process, imported on demand) must still work.
  assert.equal(spawned, 'daemon run --background', 'a missing daemon is started');
});

test('hooks start the daemon with the same process environment as the CLI', () => {
  for (const env of [{}, { NODE_OPTIONS: '--enable-source-maps' }, { NODE_OPTIONS: '--max-semi-space-size=8', MALLOC_ARENA_MAX: '4' }, { PATH: '/bin' }]) {
    assert.deepEqual(hookDaemonEnv(env), daemonProcessEnv(env), JSON.stringify(env));
  }
  const tuned = daemonProcessEnv({ NODE_OPTIONS: '--enable-source-maps' });
  assert.equal(tuned.NODE_OPTIONS, '--enable-source-maps --max-semi-space-size=2 --expose-gc');
  assert.equal(daemonProcessEnv({ NODE_OPTIONS: '--max-semi-space-size=8' }).NODE_OPTIONS, '--max-semi-space-size=8 --expose-gc');
  assert.equal(tuned.MALLOC_ARENA_MAX, '2');
  assert.equal(daemonProcessEnv({ MALLOC_ARENA_MAX: '4' }).MALLOC_ARENA_MAX, '4', 'what the user set wins');
});

test('hooks and the MCP server hand NODE_EXTRA_CA_CERTS back the same way', () => {
  for (const env of [{}, { SERVICE_HOOK_CA_CERTS: '/etc/corp/ca.pem', NODE_EXTRA_CA_CERTS: '' }, { SERVICE_HOOK_CA_CERTS: '', NODE_EXTRA_CA_CERTS: '' }, { NODE_EXTRA_CA_CERTS: '/x.pem' }]) {
    assert.deepEqual(hookCallerEnv(env), callerCaEnv(env), JSON.stringify(env));
  }
  assert.equal(callerCaEnv({ SERVICE_HOOK_CA_CERTS: '/etc/corp/ca.pem', NODE_EXTRA_CA_CERTS: '' }).NODE_EXTRA_CA_CERTS, '/etc/corp/ca.pem');
  assert.ok(!('NODE_EXTRA_CA_CERTS' in callerCaEnv({ SERVICE_HOOK_CA_CERTS: '', NODE_EXTRA_CA_CERTS: '' })));
});

test('hooks.json starts a hook without NODE_EXTRA_CA_CERTS and the daemon it starts gets it back', async () => {
  const plugin = path.resolve(bundles, '..', 'plugin');
  const hooksDoc = JSON.parse(fs.readFileSync(path.join(plugin, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  // SessionStart is a command hook (the other events reach the MCP server, started the same way: test/plugin/manifest.test.ts).
  const command = hooksDoc.hooks.SessionStart![0]!.hooks[0]!.command;
  for (const ca of ['/etc/corp/ca.pem', undefined]) {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hook-ca-'));
    // A plugin root whose hook notes the environment it runs in, then runs the real hook.
    fs.mkdirSync(path.join(home, 'plugin', 'hooks'), { recursive: true });
    const seen = path.join(home, 'hook-env.json');
    fs.writeFileSync(
      path.join(home, 'plugin', 'hooks', 'session-start.cjs'),
      `require('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ ca: process.env.NODE_EXTRA_CA_CERTS ?? null }));\nrequire(${JSON.stringify(path.join(bundles, 'session-start.cjs'))});`,
    );
    const started = path.join(home, 'daemon-env.json');
    fs.writeFileSync(path.join(home, 'cli.js'), `require('node:fs').writeFileSync(${JSON.stringify(started)}, JSON.stringify({ ca: process.env.NODE_EXTRA_CA_CERTS ?? null, saved: process.env.SERVICE_HOOK_CA_CERTS ?? null }));`);
    const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PLUGIN_ROOT: path.join(home, 'plugin'), SERVICE_HOME: home, SERVICE_CLI: path.join(home, 'cli.js'), SERVICE_RECALL_TIMEOUT_MS: '200' };
    delete env.NODE_EXTRA_CA_CERTS;
    if (ca) env.NODE_EXTRA_CA_CERTS = ca;
    const r = spawnSync('/bin/sh', ['-c', command], { input: JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', session_id: 's' }), env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    // The hook runs in the background (hooks.json): wait for it and for the daemon it starts, and
    // for each note to be written whole (a file seen between its creation and its write is empty).
    const note = async <T>(file: string): Promise<T> => {
      for (let i = 0; ; i++) {
        try {
          return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
        } catch (e) {
          if (i >= 750) throw e;
          await new Promise((res) => setTimeout(res, 20));
        }
      }
    };
    const hook = await note<{ ca: string | null }>(seen);
    const daemon = await note<{ ca: string | null; saved: string | null }>(started);
    fs.rmSync(home, { recursive: true, force: true });
    assert.equal(hook.ca, '', 'the hook\'s Node starts without the extra CA file');
    assert.deepEqual(daemon, { ca: ca ?? null, saved: null }, `the daemon gets the caller's NODE_EXTRA_CA_CERTS back (${ca})`);
  }
});
