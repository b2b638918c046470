/**
 * Settings that stick: `service config` keeps SERVICE_* settings in the data dir's config.json,
 * validated like the environment variables; the environment overrides the file; a running daemon
 * restarts on a change that matters; `service daemon restart` applies this shell's environment;
 * and a command warns when its environment disagrees with the running daemon's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '../../daemon/client.js';
import { resolvePaths } from '../../engine/index.js';
import { cli, startTestDaemon, testEnv, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

async function settingsOf(client: DaemonClient): Promise<Record<string, string>> {
  return (await client.request<{ settings: Record<string, string> }>('GET', '/v1/local/config')).settings;
}

async function until<T>(what: string, probe: () => Promise<T | null>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('service config', () => {
  it('sets, gets, lists and unsets settings in the data dir, validated like the environment', async () => {
    const env = testEnv(path.join(tempDir('config-'), 'home'));
    const file = path.join(env.SERVICE_HOME!, 'config.json');
    const set = await cli(['config', 'set', 'top_k', '8'], env);
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { SERVICE_TOP_K: '8' });
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal((await cli(['config', 'get', 'SERVICE_TOP_K'], env)).stdout.trim(), '8  (file)');
    assert.equal((await cli(['config', 'get', 'topK'], { ...env, SERVICE_TOP_K: '3' })).stdout.trim(), '3  (env)', 'the environment overrides the file');

    for (const [args, why] of [
      [['config', 'set', 'top_k', 'many'], /SERVICE_TOP_K="many" is not valid: use a whole number/],
      [['config', 'set', 'SERVICE_HOME', '/tmp/x'], /SERVICE_HOME cannot be set in the config file/],
      [['config', 'set', 'colour', 'blue'], /there is no setting "colour"/],
    ] as const) {
      const r = await cli([...args], env);
      assert.equal(r.code, 4, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, why);
      const j = await cli([...args, '--json'], env);
      assert.equal(j.code, 4);
      assert.equal((JSON.parse(j.stdout) as { error: { code: string } }).error.code, 'CONFIG');
    }
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { SERVICE_TOP_K: '8' }, 'a refused value changes nothing');

    const key = `msk_${'a1B2c3D4'.repeat(4)}`;
    assert.equal((await cli(['config', 'set', 'api_key', key], env)).code, 0);
    const list = await cli(['config', 'list', '--json'], env);
    assert.equal(list.code, 0, list.stderr);
    assert.ok(!list.stdout.includes(key), 'config list never shows a secret');
    const rows = (JSON.parse(list.stdout) as { settings: { name: string; value: string; source: string }[] }).settings;
    assert.equal(rows.find((r) => r.name === 'SERVICE_TOP_K')?.source, 'file');
    assert.match(rows.find((r) => r.name === 'SERVICE_API_KEY')!.value, /^…c3D4 \(sha256 [0-9a-f]{8}\)$/);
    assert.equal(rows.find((r) => r.name === 'SERVICE_MODEL_DIR')?.source, 'env');

    const unset = await cli(['config', 'unset', 'top_k'], env);
    assert.equal(unset.code, 0, unset.stderr);
    assert.equal((await cli(['config', 'get', 'top_k'], env)).stdout.trim(), '5  (default)');

    // plugin status checks the file as the daemon and the hooks will read it.
    fs.writeFileSync(file, JSON.stringify({ SERVICE_TOP_K: 'many' }));
    const status = await cli(['plugin', 'status', '--json'], env);
    assert.equal(status.code, 4, status.stdout);
    const config = (JSON.parse(status.stdout) as { checks: { id: string; level: string; summary: string }[] }).checks.find((c) => c.id === 'config')!;
    assert.equal(config.level, 'fail');
    assert.match(config.summary, /SERVICE_TOP_K="many" is not valid/);
    assert.equal((await cli(['plugin', 'status', '--json'], { ...env, SERVICE_TOP_K: '4' })).code === 4, false, 'a valid value in the environment overrides the file');
    // plugin status starts the daemon it checks: stop it, or it outlives this test's data dir.
    assert.equal((await cli(['daemon', 'stop'], { ...env, SERVICE_TOP_K: '4' })).code, 0);

    fs.writeFileSync(file, '{ not json');
    const broken = await cli(['config', 'get', 'top_k'], env);
    assert.equal(broken.code, 4);
    assert.match(broken.stderr, /config\.json is not valid JSON/);
  });

  describe('with a running daemon', () => {
    let d: TestDaemon;
    before(async () => {
      d = await startTestDaemon();
    });
    after(async () => {
      await cli(['daemon', 'stop'], d.env);
      await d.stop();
    });

    it('the daemon restarts on a config file change that matters, and ignores a broken file', async () => {
      assert.equal((await settingsOf(d.client)).SERVICE_TOP_K, '5');
      const set = await cli(['config', 'set', 'top_k', '9'], d.env);
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stderr, /the running daemon restarts on the new setting/);
      await until('the daemon to run with top_k 9', async () => ((await settingsOf(d.client)).SERVICE_TOP_K === '9' ? true : null));
      assert.equal(d.proc.exitCode, null, 'restarted in place, same process');

      fs.writeFileSync(path.join(d.home, 'config.json'), '{"SERVICE_TOP_K": "nine"}');
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal((await settingsOf(d.client)).SERVICE_TOP_K, '9', 'an invalid file is not applied');
      fs.writeFileSync(path.join(d.home, 'config.json'), '{"SERVICE_TOP_K": "9"}');
    });

    it('warns when this shell disagrees with the daemon, and daemon restart applies the shell', async () => {
      const quiet = await cli(['status'], d.env);
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.doesNotMatch(quiet.stderr, /warning/);
      const env = { ...d.env, SERVICE_TOP_K: '3' };
      const warned = await cli(['status'], env);
      assert.equal(warned.code, 0, warned.stderr);
      assert.match(warned.stderr, /warning: SERVICE_TOP_K is 3 in this shell but 9 in the running daemon, which uses its own\. Apply yours: service daemon restart/);
      const before = await cli(['daemon', 'status', '--json'], env);
      const r = await cli(['daemon', 'restart', '--json'], env);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { stopped_pid: number; pid: number };
      assert.equal(out.stopped_pid, (JSON.parse(before.stdout) as { pid: number }).pid);
      assert.notEqual(out.pid, out.stopped_pid);
      const client = new DaemonClient({ socketPath: resolvePaths(d.home).socket });
      assert.equal((await settingsOf(client)).SERVICE_TOP_K, '3');
      const after = await cli(['status'], env);
      assert.doesNotMatch(after.stderr, /warning/);
    });
  });
});
