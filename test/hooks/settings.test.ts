/**
 * Settings that stick reach the hooks: a hook reads `<data dir>/config.json` (what `service config
 * set` writes) under its environment, which wins. Real hook bundles as child processes, a stand-in
 * CLI that notes being started, and a stand-in daemon on the hook's socket that answers late.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, it } from 'node:test';
import { boolSetting, hookSettings } from '../../hooks/lib/settings.js';
import { hookSocketPath } from '../../hooks/lib/paths.js';
import { cli, runHook, testEnv } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

function home(config?: Record<string, string>): string {
  const h = path.join(tempDir('hook-settings-'), 'home');
  fs.mkdirSync(h, { recursive: true, mode: 0o700 });
  if (config) fs.writeFileSync(path.join(h, 'config.json'), JSON.stringify(config));
  return h;
}

/** A stand-in CLI: notes that it was started (the hook starts `SERVICE_CLI daemon run --background`). */
function standInCli(h: string): { env: Record<string, string>; started: () => Promise<boolean> } {
  const flag = path.join(h, 'started');
  const file = path.join(h, 'cli.cjs');
  fs.writeFileSync(file, `require('node:fs').writeFileSync(${JSON.stringify(flag)}, 'yes');`);
  return {
    env: { SERVICE_CLI: file },
    started: async () => {
      for (let i = 0; i < 50 && !fs.existsSync(flag); i++) await new Promise((r) => setTimeout(r, 20));
      return fs.existsSync(flag);
    },
  };
}

const PROMPT = { hook_event_name: 'UserPromptSubmit', session_id: '5e771e75-0000-4000-8000-000000000001', prompt: 'which database do we use?', cwd: '/tmp' };

describe('hook settings from the config file', () => {
  it('reads the environment first, then the file; a damaged file is no file', () => {
    const h = home({ SERVICE_AUTOSTART: 'false', SERVICE_RECALL_TIMEOUT_MS: '1234' });
    const s = hookSettings({ SERVICE_RECALL_TIMEOUT_MS: '99' }, h);
    assert.equal(s('SERVICE_RECALL_TIMEOUT_MS'), '99');
    assert.equal(s('SERVICE_AUTOSTART'), 'false');
    assert.equal(hookSettings({ SERVICE_AUTOSTART: '' }, h)('SERVICE_AUTOSTART'), 'false', 'an empty variable is unset');
    fs.writeFileSync(path.join(h, 'config.json'), '{ not json');
    assert.equal(hookSettings({}, h)('SERVICE_AUTOSTART'), undefined);
    assert.equal(boolSetting('off', true), false);
    assert.equal(boolSetting('YES', false), true);
    assert.equal(boolSetting('maybe', true), true);
  });

  it('does not start the daemon when the file says SERVICE_AUTOSTART=false, and keeps the event in the spool', async () => {
    const h = home();
    const c = standInCli(h);
    // Written the way a user does it.
    assert.equal((await cli(['config', 'set', 'autostart', 'false'], testEnv(h))).code, 0);
    const r = await runHook('UserPromptSubmit', PROMPT, testEnv(h, c.env));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(await c.started(), false, 'no daemon started');
    const spooled = fs.readdirSync(path.join(h, 'spool'));
    assert.equal(spooled.length, 1, 'the prompt waits in the spool for the daemon');
    // The environment overrides the file.
    const again = await runHook('UserPromptSubmit', PROMPT, testEnv(h, { ...c.env, SERVICE_AUTOSTART: 'true' }));
    assert.equal(again.code, 0, again.stderr);
    assert.equal(await c.started(), true, 'SERVICE_AUTOSTART=true in the environment wins');
  });

  it('waits for recall as long as the file says, unless the environment says otherwise', async () => {
    const h = home({ SERVICE_RECALL_TIMEOUT_MS: '3000' });
    const socket = await hookSocketPath(h);
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.end(JSON.stringify({ context: 'Remembered: we use PostgreSQL.', count: 1 })), 1000));
    });
    await new Promise<void>((r) => server.listen(socket, r));
    try {
      const env = testEnv(h);
      delete env.SERVICE_RECALL_TIMEOUT_MS;
      const patient = await runHook('UserPromptSubmit', PROMPT, env);
      assert.match(patient.stdout, /we use PostgreSQL/, 'the file’s 3,000 ms outlast the late answer (the default 800 ms would not)');
      const hasty = await runHook('UserPromptSubmit', PROMPT, { ...env, SERVICE_RECALL_TIMEOUT_MS: '200' });
      assert.equal(hasty.code, 0);
      assert.equal(hasty.stdout, '', 'the environment’s 200 ms win: no context, the agent goes on');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
