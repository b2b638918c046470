/**
 * `service plugin install|update|uninstall|status claude-code` against a temp HOME without
 * `claude` on PATH: Claude Code's settings file is edited instead, unrelated settings stay intact
 * and the previous file is backed up. (plugin-register.test.ts: through a stand-in claude.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '../../daemon/client.js';
import { resolvePaths } from '../../engine/index.js';
import { cli, makeRepo, runHook } from '../helpers/daemon.js';
import { backups, check, pluginStatus, pluginUser, UNRELATED, type PluginUser } from '../helpers/plugin.js';
import { startTestServer } from '../helpers/server.js';
import { repoRoot } from '../helpers/tmp.js';

describe('plugin lifecycle without claude on PATH (settings file)', () => {
  let user: PluginUser;
  const original = JSON.stringify(UNRELATED, null, 2);
  before(() => {
    user = pluginUser({ settings: original });
    fs.chmodSync(user.settings, 0o640);
    // A data dir from before schema versions (version 0), readable by others.
    fs.mkdirSync(path.join(user.data, 'state'), { recursive: true, mode: 0o755 });
    fs.chmodSync(user.data, 0o755);
    fs.writeFileSync(path.join(user.data, 'state', 'pause.json'), '{"all":false,"sessions":{}}', { mode: 0o644 });
  });
  after(async () => {
    await cli(['daemon', 'stop'], user.env);
  });

  it('install registers the plugin in the settings file, keeps every other key, backs the old file up', async () => {
    const r = await cli(['plugin', 'install', 'claude-code', '--json'], user.env);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.method, 'settings');
    assert.equal(out.dir, path.join(user.data, 'plugins', 'claude-code'));
    assert.match(out.next_step, /restart Claude Code.*service plugin status/);
    assert.ok(out.warnings.some((w: string) => /claude is not on PATH/.test(w)));
    const doc = JSON.parse(fs.readFileSync(user.settings, 'utf8'));
    assert.equal(doc.theme, 'dark');
    assert.deepEqual(doc.permissions, { allow: [...UNRELATED.permissions.allow, 'mcp__plugin_memory_memory__search'] }, 'the memory tool is allowed, the user rules kept');
    assert.deepEqual(doc.enabledPlugins, { 'other@elsewhere': true, 'memory@memory-service': true });
    const known = JSON.parse(fs.readFileSync(path.join(user.home, '.claude', 'plugins', 'known_marketplaces.json'), 'utf8'));
    assert.deepEqual(known['memory-service'].source, { source: 'directory', path: out.dir }, 'Claude Code knows the marketplace before its first session');
    assert.deepEqual(doc.extraKnownMarketplaces, { ...UNRELATED.extraKnownMarketplaces, 'memory-service': { source: { source: 'directory', path: out.dir } } });
    assert.deepEqual(doc.env, { SERVICE_TOP_K: '3', EDITOR: 'vim' }, 'the renamed key was migrated, the rest kept');
    assert.equal(fs.statSync(user.settings).mode & 0o777, 0o640, 'the file keeps its mode');
    assert.deepEqual(backups(user.settings).map((b) => fs.readFileSync(path.join(path.dirname(user.settings), b), 'utf8')), [original]);
    const service = JSON.parse(fs.readFileSync(path.join(out.dir, 'service.json'), 'utf8'));
    assert.equal(service.cli, repoRoot('dist', 'cli', 'main.js'));
    assert.ok(fs.existsSync(path.join(out.dir, 'mcp', 'server.cjs')));
    assert.equal(out.daemon.pid > 0, true, 'the daemon was started');
    assert.deepEqual(out.schema, { from: 0, to: 1, applied: ['1: owner-only data dir'] });
    assert.equal(JSON.parse(fs.readFileSync(path.join(user.data, 'schema.json'), 'utf8')).version, 1);
    assert.equal(fs.statSync(user.data).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(user.data, 'state', 'pause.json')).mode & 0o777, 0o600);
  });

  it('status verifies install, registration, daemon, schema and says why there is no memory yet', async () => {
    const repo = makeRepo();
    const first = await pluginStatus(user, { SERVICE_TELEMETRY: 'true' }, repo);
    let s = first.s;
    assert.equal(first.code, 0, JSON.stringify(s.checks));
    assert.match(check(s, 'telemetry').summary, /on, but no server is configured.*nothing is recorded or sent/);
    assert.equal(check(s, 'plugin').level, 'ok');
    assert.match(check(s, 'registration').summary, /memory@memory-service enabled .*through the settings file/);
    assert.equal(check(s, 'agent').level, 'warn');
    assert.match(check(s, 'daemon').summary, /running, pid \d+, version 1\.2\.0/);
    assert.match(check(s, 'schema').summary, /schema 1$/);
    assert.match(check(s, 'server').summary, /local only/);
    assert.match(check(s, 'capture').summary, /no agent session has reached the daemon/);

    const sid = '0b0b0b0b-1111-4222-8333-444444444444';
    await runHook('SessionStart', { session_id: sid, hook_event_name: 'SessionStart', source: 'startup', cwd: repo }, user.env, repo);
    await runHook('PostToolUse', { session_id: sid, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: 'x', cwd: repo }, user.env, repo);
    ({ s } = await pluginStatus(user, {}, repo));
    assert.match(check(s, 'capture').summary, /no memory yet: 2 captured events wait to be flushed/);
    assert.match(check(s, 'capture').fix!, /Stop, compaction or end/);

    // /memory:pause and /memory:status, run as their files say, through a `service` on PATH.
    const bin = path.join(user.home, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'service'), `#!/bin/sh\nexec "${process.execPath}" "${repoRoot('dist', 'cli', 'main.js')}" "$@"\n`, { mode: 0o755 });
    const onPath = { ...user.env, PATH: `${bin}${path.delimiter}${user.env.PATH}` };
    for (const name of ['pause', 'status']) {
      const line = /^!`([^`]+)`$/m.exec(fs.readFileSync(path.join(user.data, 'plugins', 'claude-code', 'commands', `${name}.md`), 'utf8'))![1]!;
      const r = spawnSync('/bin/sh', ['-c', line], { env: onPath, cwd: repo, encoding: 'utf8' });
      assert.equal(r.status, 0, `/memory:${name} runs "${line}": ${r.stderr}`);
      if (name === 'pause') assert.match(r.stdout, /Capture paused for repository .*every session there/);
      else assert.match(r.stdout, /warn {2}capture {6}paused for this session/);
    }
    ({ s } = await pluginStatus(user, {}, repo));
    assert.match(check(s, 'capture').fix!, /memory:resume/);
    await cli(['resume'], user.env, repo);
  });

  it('status names an invalid setting, a missing API key, a refused key, and the telemetry setting', async () => {
    let r = await pluginStatus(user, { SERVICE_SEARCH_SCOPE: 'galaxy', SERVICE_TOP_K: '0' });
    assert.equal(r.code, 4);
    assert.match(check(r.s, 'config').summary, /SERVICE_SEARCH_SCOPE="galaxy" is not valid: use one of repo, dir, user, session/);
    assert.doesNotMatch(check(r.s, 'config').summary, /SERVICE_TOP_K/, 'the env block of the settings (3) wins over the shell, as in Claude Code');
    r = await pluginStatus(user, { SERVICE_BASE_URL: 'http://127.0.0.1:9', SERVICE_TELEMETRY: 'false' });
    assert.equal(r.code, 4);
    assert.match(check(r.s, 'server').fix!, /export SERVICE_API_KEY=<your key> and restart Claude Code/);
    assert.match(check(r.s, 'telemetry').summary, /off \(SERVICE_TELEMETRY=false\)/);
    r = await pluginStatus(user, { DO_NOT_TRACK: '1', SERVICE_TELEMETRY: 'true', SERVICE_SCOPE: 'user' });
    assert.match(check(r.s, 'telemetry').summary, /off \(DO_NOT_TRACK=1\)/);
    assert.ok(r.s.checks.some((c) => c.level === 'warn' && /SERVICE_SCOPE is an old name/.test(c.summary) && /SERVICE_SEARCH_SCOPE/.test(c.fix!)));
    const server = await startTestServer({ embedder: null });
    try {
      r = await pluginStatus(user, { SERVICE_BASE_URL: server.url, SERVICE_API_KEY: 'msk_not_a_key' });
      assert.equal(r.code, 6);
      assert.match(check(r.s, 'server').summary, /refused SERVICE_API_KEY \(401 unauthorized/);
      assert.match(check(r.s, 'server').fix!, /check the key and the account's permissions with GET \/api\/v1\/verify: curl .*\/api\/v1\/verify/);
      r = await pluginStatus(user, { SERVICE_BASE_URL: server.url, SERVICE_API_KEY: server.key });
      assert.equal(r.code, 0, JSON.stringify(r.s.checks));
      assert.match(check(r.s, 'server').summary, /key \S+ is valid for project \S+ \(read, write, admin\)/);
    } finally {
      await server.close();
    }
  });

  it('update replaces an older install in place', async () => {
    const dir = path.join(user.data, 'plugins', 'claude-code');
    const manifest = path.join(dir, '.claude-plugin', 'plugin.json');
    fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('"1.2.0"', '"1.1.0"'));
    const record = path.join(user.data, 'plugins', 'claude-code.json');
    fs.writeFileSync(record, fs.readFileSync(record, 'utf8').replace('"version": "1.2.0"', '"version": "1.1.0"'));
    fs.writeFileSync(path.join(dir, 'stale-file-from-1.1'), 'x');
    const s = (await pluginStatus(user)).s;
    assert.equal(check(s, 'plugin').level, 'warn');
    assert.match(check(s, 'plugin').fix!, /service plugin update claude-code/);
    const r = await cli(['plugin', 'update', 'claude-code'], user.env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /updated the memory plugin 1\.2\.0 \(from 1\.1\.0\)/);
    assert.doesNotMatch(r.stdout, /migrated the data dir/, 'the schema is current: nothing to migrate again');
    assert.match(r.stdout, /Next: restart Claude Code .* service plugin status/);
    assert.equal(JSON.parse(fs.readFileSync(manifest, 'utf8')).version, '1.2.0');
    assert.ok(!fs.existsSync(path.join(dir, 'stale-file-from-1.1')), 'the folder was replaced, not merged');
    assert.equal(check((await pluginStatus(user)).s, 'plugin').level, 'ok');
    assert.deepEqual(Object.keys(JSON.parse(fs.readFileSync(user.settings, 'utf8'))).sort(), ['enabledPlugins', 'env', 'extraKnownMarketplaces', 'permissions', 'theme']);
  });

  it('uninstall removes the registration and keeps memories; --purge erases them', async () => {
    const repo = makeRepo();
    assert.equal((await cli(['remember', 'Staging deploys go through Argo CD.'], user.env, repo)).code, 0);
    const before = backups(user.settings).length;
    const r = await cli(['plugin', 'uninstall', 'claude-code'], user.env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /memories are kept in .*--purge/);
    const doc = JSON.parse(fs.readFileSync(user.settings, 'utf8'));
    assert.deepEqual(doc.enabledPlugins, UNRELATED.enabledPlugins);
    assert.deepEqual(doc.extraKnownMarketplaces, UNRELATED.extraKnownMarketplaces);
    assert.deepEqual(doc.permissions, UNRELATED.permissions, 'the allow rule is gone, the user rules kept');
    assert.equal(doc.theme, 'dark');
    assert.equal(backups(user.settings).length, before + 1);
    const known = JSON.parse(fs.readFileSync(path.join(user.home, '.claude', 'plugins', 'known_marketplaces.json'), 'utf8'));
    assert.ok(!('memory-service' in known), 'Claude Code no longer knows the marketplace');
    const health = await new DaemonClient({ socketPath: resolvePaths(user.data).socket, timeoutMs: 1000 }).request('GET', '/health').then(
      () => 'answers',
      () => 'gone',
    );
    assert.equal(health, 'gone', 'uninstall stopped the daemon');
    assert.ok(!fs.existsSync(path.join(user.data, 'plugins', 'claude-code')));
    const found = JSON.parse((await cli(['search', 'staging deploys Argo', '--json'], user.env, repo)).stdout);
    assert.ok(found.results.some((m: { content: string }) => /Argo CD/.test(m.content)), 'the memory is still there');
    const s = (await pluginStatus(user)).s;
    assert.match(check(s, 'plugin').summary, /not installed/);
    const purge = await cli(['plugin', 'uninstall', 'claude-code', '--purge'], user.env);
    assert.equal(purge.code, 0, purge.stderr);
    assert.ok(!fs.existsSync(user.data), 'the data dir is gone');
    assert.deepEqual(JSON.parse(fs.readFileSync(user.settings, 'utf8')).env, { SERVICE_TOP_K: '3', EDITOR: 'vim' });
  });
});
