/**
 * Which session an event or a command belongs to, through the real hooks and CLI against a real
 * daemon: a final hook that got no stdin keeps its event (CLAUDE_CODE_SESSION_ID, else the latest
 * session in its folder); pause, resume and search --scope session act on CLAUDE_CODE_SESSION_ID
 * and fall back to the folder only without it, saying so; recall shows a memory once per session.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cli, hookFile, makeRepo, run, runHook, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

interface Recent {
  session_id: string;
  event: string;
}

describe('the caller\'s session', () => {
  let d: TestDaemon;
  let repo: string;
  const recent = async (): Promise<Recent[]> => (await d.client.status<{ recent: Recent[] }>({ cwd: repo })).recent;
  const captureOf = async (session: string): Promise<string | null> => (await d.client.status<{ capture: { session: string | null } }>({ cwd: repo, session_id: session })).capture.session;
  const prompt = (session: string, text: string) => runHook('UserPromptSubmit', { session_id: session, cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: text }, d.env, repo);

  before(async () => {
    d = await startTestDaemon();
    repo = makeRepo('git@github.com:acme/caller.git');
  });

  after(async () => {
    await d.stop();
  });

  it('a Stop hook with an empty stdin keeps its event: the session from CLAUDE_CODE_SESSION_ID, else the latest in its folder', async () => {
    assert.equal((await prompt('sess-a', 'working on checkout')).code, 0);
    const withEnv = await run(process.execPath, [hookFile('Stop')], { env: { ...d.env, CLAUDE_CODE_SESSION_ID: 'sess-a' }, input: '', cwd: repo });
    assert.equal(withEnv.code, 0);
    assert.equal((await recent()).filter((e) => e.session_id === 'sess-a' && e.event === 'Stop').length, 1, 'Stop from the environment\'s session id');
    assert.equal((await prompt('sess-b', 'working on the cart')).code, 0);
    const bare = await run(process.execPath, [hookFile('SessionEnd')], { env: d.env, input: '', cwd: repo });
    assert.equal(bare.code, 0);
    assert.equal((await recent()).filter((e) => e.session_id === 'sess-b' && e.event === 'SessionEnd').length, 1, 'SessionEnd attributed to the latest session in the folder');
  });

  it('pause and resume act on the caller\'s repository (every session there); --session narrows to one', async () => {
    assert.equal((await prompt('sess-c', 'first')).code, 0);
    assert.equal((await prompt('sess-d', 'second, more recent')).code, 0);
    const paused = await cli(['pause'], { ...d.env, CLAUDE_CODE_SESSION_ID: 'sess-c' }, repo);
    assert.equal(paused.code, 0, paused.stderr);
    assert.match(paused.stdout, /paused for repository .*every session there/);
    assert.doesNotMatch(paused.stderr, /most recently active/, 'no guess about a session');
    assert.equal(await captureOf('sess-c'), 'paused');
    assert.equal(await captureOf('sess-d'), 'paused', 'the repository pause covers the other live session too');
    const resumed = await cli(['resume'], { ...d.env, CLAUDE_CODE_SESSION_ID: 'sess-c' }, repo);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.notEqual(await captureOf('sess-c'), 'paused');
    assert.notEqual(await captureOf('sess-d'), 'paused');
    // --session narrows the pause to one session: the other keeps capturing.
    const one = await cli(['pause', '--session', 'sess-c'], d.env, repo);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /paused for session sess-c/);
    assert.equal(await captureOf('sess-c'), 'paused');
    assert.notEqual(await captureOf('sess-d'), 'paused', 'the other live session keeps capturing');
    assert.equal((await cli(['resume', '--session', 'sess-c'], d.env, repo)).code, 0);
    assert.notEqual(await captureOf('sess-c'), 'paused');
  });

  it('remember attaches to CLAUDE_CODE_SESSION_ID and search --scope session finds it from there only', async () => {
    const env = { ...d.env, CLAUDE_CODE_SESSION_ID: 'sess-e' };
    assert.equal((await cli(['remember', 'Invoices are rendered with Typst.'], env, repo)).code, 0);
    const mine = JSON.parse((await cli(['search', 'invoices rendered Typst', '--scope', 'session', '--json'], env, repo)).stdout);
    assert.ok(mine.results.some((m: { content: string }) => /Typst/.test(m.content)), JSON.stringify(mine));
    const other = JSON.parse((await cli(['search', 'invoices rendered Typst', '--scope', 'session', '--json'], { ...d.env, CLAUDE_CODE_SESSION_ID: 'sess-d' }, repo)).stdout);
    assert.ok(!other.results.some((m: { content: string }) => /Typst/.test(m.content)), 'another session does not see it');
  });

  it('recall shows a memory once per session: the first prompt opens with the SessionStart block, later prompts do not repeat it; a new SessionStart shows it again', async () => {
    assert.equal((await cli(['remember', 'Payments are retried three times with exponential backoff.'], d.env, repo)).code, 0);
    const hook = async (event: string, extra: Record<string, unknown>) => {
      const r = await runHook(event, { session_id: 'sess-f', cwd: repo, hook_event_name: event, ...extra }, d.env, repo);
      assert.equal(r.code, 0);
      return r.stdout;
    };
    const count = (out: string) => out.split('retried three times').length - 1;
    assert.equal(count(await hook('SessionStart', { source: 'startup' })), 0, 'SessionStart prints nothing');
    assert.equal(count(await hook('UserPromptSubmit', { prompt: 'how are payments retried with backoff?' })), 1, 'the first prompt shows it once (its opening block and its own recall)');
    assert.equal(count(await hook('UserPromptSubmit', { prompt: 'payments retried three times backoff' })), 0, 'a later prompt does not repeat it');
    assert.equal(count(await hook('SessionStart', { source: 'compact' })), 0, 'SessionStart after compaction prints nothing either');
    assert.equal(count(await hook('UserPromptSubmit', { prompt: 'what should I work on next?' })), 1, 'after compaction the context is new: the next prompt opens with it again');
    assert.equal(count(await hook('SessionStart', { source: 'startup' })), 0);
    assert.equal(count(await hook('UserPromptSubmit', { prompt: 'and the checkout page?' })), 0, 'a late startup of a session already recalled for changes nothing');
  });
});
