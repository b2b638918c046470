/**
 * The dashboard in a real terminal: `service` runs inside tmux (80×24, private socket) against a
 * real daemon with a temp home; keys go in with `tmux send-keys`, the screen comes back with
 * `tmux capture-pane`, and every effect is checked through the CLI, as a user would.
 *
 * Set DASHBOARD_CAPTURE=<file> to keep the first dashboard screen (the README's capture).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import path from 'node:path';
import { CLI, cli, makeRepo, startTestDaemon, testEnv, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

const TMUX = '/usr/bin/tmux';
const SOCKET = `memory-tui-${process.pid}`;
const SESSION_ID = 'c0ffee00-1111-4222-8333-444444444444';
const MEMORY = 'We use PostgreSQL for the session store because Redis lost data twice';

// eslint-disable-next-line no-control-regex
const COLOUR = /\u001b\[(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/;

function tmux(env: NodeJS.ProcessEnv, ...args: string[]): string {
  const r = spawnSync(TMUX, ['-L', SOCKET, '-f', '/dev/null', ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args[0]} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

describe('the dashboard in a real terminal', { skip: fs.existsSync(TMUX) ? false : 'tmux is not installed' }, () => {
  let d: TestDaemon;
  let repo: string;
  let env: NodeJS.ProcessEnv;

  const screen = (target = 'dash', escapes = false): string => tmux(env, 'capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', target);
  const keys = (...k: string[]): void => void tmux(env, 'send-keys', '-t', 'dash', ...k);
  const text = (t: string): void => void tmux(env, 'send-keys', '-t', 'dash', '-l', t);
  async function until(what: string | RegExp, target = 'dash', ms = 15_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const s = screen(target);
      if (typeof what === 'string' ? s.includes(what) : what.test(s)) return s;
      if (Date.now() > deadline) assert.fail(`the screen never showed ${String(what)}:\n${s}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  async function status(): Promise<{ capture: { paused_all: boolean; paused_sessions: string[] } }> {
    const r = await cli(['status', '--json'], env, repo);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { capture: { paused_all: boolean; paused_sessions: string[] } };
  }
  async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) assert.fail(`never: ${what}\n${screen()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  function start(name: string, extra = ''): void {
    // The pane shows the exit status once the dashboard quits, then stays for the test to read.
    const cmd = `${extra}${quote(process.execPath)} ${quote(CLI)}; echo "dashboard exited $?"; sleep 600`;
    tmux(env, 'new-session', '-d', '-x', '80', '-y', '24', '-s', name, '-c', repo, cmd);
  }
  // A second home where no daemon runs until the dashboard starts one.
  const freshHome = path.join(tempDir('tui-fresh-'), 'home');
  const freshEnv = testEnv(freshHome);

  before(async () => {
    d = await startTestDaemon();
    repo = makeRepo();
    // tmux and the dashboard get the test's isolated environment (and no CI marker, which would
    // make Ink print frames instead of redrawing them).
    env = { ...d.env, TERM: 'xterm-256color', LANG: 'C.UTF-8' };
    const remembered = await cli(['remember', MEMORY], env, repo);
    assert.equal(remembered.code, 0, remembered.stderr);
    await d.client.capture({ hook_event_name: 'UserPromptSubmit', session_id: SESSION_ID, cwd: repo, prompt: 'move the checkout to Stripe and keep PayPal as a fallback' });
    await d.client.capture({ hook_event_name: 'PostToolUse', session_id: SESSION_ID, cwd: repo, tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: { stdout: 'ok' } });
    start('dash');
  });

  after(async () => {
    spawnSync(TMUX, ['-L', SOCKET, 'kill-server'], { env });
    await d?.stop();
    await cli(['daemon', 'stop'], freshEnv);
  });

  it('starts the daemon itself when none is running', async () => {
    assert.equal((await cli(['daemon', 'status'], freshEnv)).code, 3, 'no daemon in the fresh home');
    start('fresh', `SERVICE_HOME=${quote(freshHome)} `);
    await until(/memory daemon up · pid \d+/, 'fresh', 30_000);
    const s = JSON.parse((await cli(['daemon', 'status', '--json'], freshEnv)).stdout) as { running: boolean };
    assert.equal(s.running, true);
  });

  it('shows the dashboard at 80×24, then pauses and resumes capture with its keys', async () => {
    const s = await until('Recent captures');
    assert.match(s, /memory daemon up · pid \d+ · v[\d.]+ · up \d+s · acme\/shop/);
    assert.ok(s.includes('c0ffee00 acme/shop') && s.includes('capturing'), s);
    assert.ok(s.includes('Memories 1'), s);
    assert.ok(s.includes('UserPromptSubmit') && s.includes('move the checkout to Stripe'), s);
    assert.ok(s.includes('p pause/resume selected'), 'the help bar names the keys');
    const rows = s.replace(/\n$/, '').split('\n');
    assert.ok(rows.length <= 24 && rows.every((l) => [...l].length <= 80), 'nothing overflows 80×24');
    if (process.env.DASHBOARD_CAPTURE) fs.writeFileSync(process.env.DASHBOARD_CAPTURE, s);

    keys('j', 'p');
    await eventually(async () => (await status()).capture.paused_sessions.includes(SESSION_ID), 'the session is paused in the daemon');
    assert.equal((await status()).capture.paused_all, false);
    await until('capture paused for session c0ffee00');

    keys('a');
    await eventually(async () => (await status()).capture.paused_all, 'capture is paused for all sessions');
    await until('Capture · paused: all sessions');
    keys('a');
    await eventually(async () => {
      const c = (await status()).capture;
      return !c.paused_all && c.paused_sessions.length === 0;
    }, 'capture resumed everywhere');
  });

  it('says which pause applies: this repository, from service pause in it', async () => {
    assert.equal((await cli(['pause'], env, repo)).code, 0);
    const s = await until('Capture · paused: this repo');
    assert.match(s, /c0ffee00 acme\/shop repo paused/);
    assert.equal((await cli(['resume'], env, repo)).code, 0);
    await until(/c0ffee00 acme\/shop capturing/);
  });

  it('shows every key on ? and the newest memories on r', async () => {
    keys('?');
    const help = await until('Keys (esc or ? closes)');
    for (const t of ['Dashboard', 'Search', 'Recent memories', 'Memory details', 'recent memories', 'search (prefix too)']) assert.ok(help.includes(t), `${t}:\n${help}`);
    keys('Escape');
    await until('Recent captures');
    keys('r');
    const list = await until('Recent memories · 1 newest first');
    assert.ok(list.includes(MEMORY), list);
    keys('Enter');
    await until('History · 1 version');
    keys('Escape');
    await until('Recent memories · 1 newest first');
    keys('Escape');
    await until('Recent captures');
  });

  it('finds a remembered memory as you type, shows its history, and forgets it after confirming', async () => {
    keys('/');
    await until('Type to search');
    text('sess postg');
    await until(MEMORY);
    keys('C-u');
    // The screen still shows the last query's results until the TUI reads C-u: wait for the
    // cleared field, then for this query's own answer (enter does nothing while it is on its way).
    await until('Type to search');
    text('postgres session');
    const found = await until(/\/ postgres session[\s\S]*1 result · (hybrid|full-text) search · scope repo\n/);
    assert.ok(found.includes(MEMORY), found);
    assert.match(found, /1 result · (hybrid|full-text) search · scope repo/);
    assert.match(found, /› \d\.\d\d +(note|context|decision|fact|constraint|preference|convention) +project · acme\/shop +(just now|\d+s ago)/);
    const id = (JSON.parse((await cli(['search', 'postgres session', '--json'], env, repo)).stdout) as { results: { memory_id: string; content: string }[] }).results.find((m) => m.content === MEMORY)!.memory_id;

    keys('Enter');
    const detail = await until('History · 1 version');
    assert.ok(detail.includes(id), 'the details name the memory');
    keys('f');
    await until('Forget this memory?');
    keys('y');
    await until('forgot "We use PostgreSQL');
    await until('No matches in scope repo');
    const after = JSON.parse((await cli(['search', 'postgres session', '--json'], env, repo)).stdout) as { results: { memory_id: string }[] };
    assert.ok(!after.results.some((m) => m.memory_id === id), 'the daemon no longer finds it');
    keys('Escape');
    await until('Recent captures');
  });

  it('says when the daemon is down, how to start it, and reconnects once it is back', async () => {
    await d.stop();
    const down = await until('The memory daemon is down');
    assert.ok(down.includes('service daemon start'), down);
    assert.ok(down.includes('Reconnecting by itself'), down);
    d = await startTestDaemon({ home: d.home });
    await until(/daemon restarted \(pid \d+ → \d+\)/);
  });

  it('respects NO_COLOR', async () => {
    assert.match(screen('dash', true), COLOUR, 'the dashboard is coloured by default (so this check can fail)');
    start('plain', 'NO_COLOR=1 ');
    await until('Recent captures', 'plain');
    assert.doesNotMatch(screen('plain', true), COLOUR);
  });

  it('quits with q, giving the shell its screen back with nothing printed on it', async () => {
    keys('q');
    const s = await until('dashboard exited 0');
    assert.deepEqual(
      s.split('\n').filter((l) => l.trim() !== ''),
      ['dashboard exited 0'],
      'no log line, warning or frame left behind',
    );
  });
});
