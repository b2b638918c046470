/**
 * `service plugin …` through a stand-in `claude` on PATH that records its arguments, and the bad
 * input the plugin commands refuse without changing anything.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, runHook } from '../helpers/daemon.js';
import { backups, check, pluginUser, UNRELATED, type PluginUser, type Status } from '../helpers/plugin.js';
import { repoRoot } from '../helpers/tmp.js';

describe('plugin lifecycle through a stand-in claude on PATH', () => {
  let user: PluginUser;
  before(() => {
    user = pluginUser({ claude: {}, settings: UNRELATED });
  });
  after(async () => {
    await cli(['daemon', 'stop'], user.env);
  });

  it('install, status, update and uninstall call the claude CLI with the documented arguments', async () => {
    const r = await cli(['plugin', 'install', 'claude-code', '--json'], user.env);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.method, 'claude-cli');
    assert.equal(out.claude.version, '2.1.9');
    const id = 'memory@memory-service';
    assert.deepEqual(user.claudeCalls(), [['--version'], ['plugin', 'marketplace', 'add', out.dir], ['plugin', 'install', id, '--scope', 'user']]);
    const doc = JSON.parse(fs.readFileSync(user.settings, 'utf8'));
    assert.deepEqual(doc.extraKnownMarketplaces, UNRELATED.extraKnownMarketplaces, 'no settings fallback entries');
    assert.equal(doc.permissions.allow[0], 'Bash(ls:*)');

    const s = JSON.parse((await cli(['plugin', 'status', '--json'], user.env)).stdout) as Status;
    assert.equal(check(s, 'agent').level, 'ok');
    assert.match(check(s, 'agent').summary, /Claude Code 2\.1\.9/);
    assert.match(check(s, 'registration').summary, /through the claude CLI/);

    const calls = user.claudeCalls().length;
    assert.equal((await cli(['plugin', 'update', 'claude-code'], user.env)).code, 0);
    assert.deepEqual(user.claudeCalls().slice(calls + 1), [
      ['plugin', 'marketplace', 'update', 'memory-service'],
      ['plugin', 'update', id],
    ]);

    const before = user.claudeCalls().length;
    assert.equal((await cli(['plugin', 'uninstall', 'claude-code'], user.env)).code, 0);
    assert.deepEqual(user.claudeCalls().slice(before + 1), [
      ['plugin', 'uninstall', id, '--scope', 'user'],
      ['plugin', 'marketplace', 'remove', 'memory-service'],
    ]);
    assert.deepEqual(JSON.parse(fs.readFileSync(user.settings, 'utf8')).enabledPlugins, UNRELATED.enabledPlugins);
  });
});

describe('plugin commands refuse bad input and change nothing', () => {
  it('names the supported agent plugins', async () => {
    const user = pluginUser();
    for (const args of [['plugin', 'install', 'cursor'], ['plugin', 'update', 'vscode'], ['plugin', 'install']]) {
      const r = await cli(args, user.env);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /supported: claude-code/);
    }
    assert.equal((await cli(['plugin', 'update', 'claude-code'], user.env)).code, 5, 'update before install');
    assert.ok(!fs.existsSync(user.data));
  });

  it('refuses an invalid setting, an unsupported Claude Code, a newer data dir and an unreadable settings file', async () => {
    let user = pluginUser({ env: { SERVICE_TOP_K: 'lots' } });
    let r = await cli(['plugin', 'install', 'claude-code'], user.env);
    assert.equal(r.code, 4);
    assert.match(r.stderr, /SERVICE_TOP_K="lots" is not valid: use a whole number from 1 to 100/);

    user = pluginUser({ claude: { version: '1.0.80' }, settings: UNRELATED });
    r = await cli(['plugin', 'install', 'claude-code'], user.env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Claude Code 1\.0\.80 is older than 2\.1\.0.*claude update/);
    assert.deepEqual(user.claudeCalls(), [['--version']]);
    assert.ok(!fs.existsSync(user.data), 'nothing was installed');

    user = pluginUser({ settings: UNRELATED });
    fs.mkdirSync(user.data, { recursive: true });
    fs.writeFileSync(path.join(user.data, 'schema.json'), '{"version":99}');
    r = await cli(['plugin', 'install', 'claude-code'], user.env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /written by a newer memory service \(schema 99; this CLI knows up to 1\); update the service CLI/);
    assert.deepEqual(fs.readdirSync(user.data), ['schema.json'], 'nothing else was written');
    assert.deepEqual(JSON.parse(fs.readFileSync(user.settings, 'utf8')), UNRELATED);

    user = pluginUser({ settings: '{ "theme": "dark", ' });
    r = await cli(['plugin', 'install', 'claude-code'], user.env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /settings\.json is not valid JSON .*nothing was changed/);
    assert.equal(fs.readFileSync(user.settings, 'utf8'), '{ "theme": "dark", ');
    assert.deepEqual(backups(user.settings), []);
    assert.ok(!fs.existsSync(user.data));
  });

  it('keeps hooks silent with exit 0 when an invalid setting stops the daemon from starting', async () => {
    const user = pluginUser({ env: { SERVICE_SEARCH_SCOPE: 'galaxy', SERVICE_CLI: repoRoot('dist', 'cli', 'main.js'), SERVICE_CAPTURE_RETRY_MS: '1500' } });
    for (const event of ['UserPromptSubmit', 'PostToolUse']) {
      const r = await runHook(event, { session_id: 's', hook_event_name: event, prompt: 'hi', cwd: user.home }, user.env);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, '');
    }
    assert.ok(!fs.existsSync(path.join(user.data, 'daemon.sock')), 'no daemon runs with the invalid setting');
    const run = await cli(['daemon', 'run'], user.env);
    assert.equal(run.code, 4, 'the daemon names the setting instead');
    assert.match(run.stderr, /SERVICE_SEARCH_SCOPE="galaxy" is not valid: use one of repo, dir, user, session/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  });

  it('reports a failed registration as a failed install in status', async () => {
    const user = pluginUser({ claude: { failInstall: true } });
    try {
      const r = await cli(['plugin', 'install', 'claude-code'], user.env);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /"claude plugin install memory@memory-service --scope user" failed \(Plugin "memory@memory-service" failed to install: manifest rejected\)/);
      const s = await cli(['plugin', 'status', '--json'], user.env);
      assert.equal(s.code, 1);
      const plugin = check(JSON.parse(s.stdout) as Status, 'plugin');
      assert.equal(plugin.level, 'fail');
      assert.match(plugin.summary, /the last install failed, so Claude Code will not start the plugin: .*manifest rejected/);
      const old = JSON.parse((await cli(['plugin', 'status', '--json'], { ...user.env, CLAUDE_STANDIN_VERSION: '2.0.1' })).stdout) as Status;
      assert.match(check(old, 'agent').summary, /Claude Code 2\.0\.1 is older than 2\.1\.0.*will not start/);
      assert.match(check(old, 'agent').fix!, /claude update/);
    } finally {
      await cli(['daemon', 'stop'], user.env);
    }
  });
});
