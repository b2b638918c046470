/**
 * The daemon end to end: a real daemon process with a temp SERVICE_HOME, driven only through the
 * hook scripts (real child processes fed recorded payloads and transcripts) and the CLI.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, loadSession, makeRepo, replaySession, runHook, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { filesUnder, tempDir } from '../helpers/tmp.js';

function contextOf(stdout: string): string {
  if (!stdout.trim()) return '';
  const parsed = JSON.parse(stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  return parsed.hookSpecificOutput.additionalContext;
}

describe('daemon end to end through the hooks', () => {
  let d: TestDaemon;
  let repo: string;
  before(async () => {
    d = await startTestDaemon();
    repo = makeRepo();
  });
  after(async () => {
    await d.stop();
  });

  it('recalls in session two what session one decided', async () => {
    const t1 = path.join(tempDir('cc-'), 'one.jsonl');
    const runs = await replaySession(loadSession('session-one'), { env: d.env, cwd: repo, transcript: t1 });
    for (const r of runs) assert.equal(r.run.code, 0, `${r.event} exits 0 (${r.run.stderr})`);
    await d.client.flush();
    const search = await cli(['search', 'session store database', '--json'], d.env, repo);
    assert.equal(search.code, 0, search.stderr);
    const found = JSON.parse(search.stdout) as { results: { content: string; category: string }[]; scope: string; repo: string };
    assert.equal(found.repo, 'github.com/acme/shop');
    assert.ok(found.results.some((m) => /PostgreSQL/.test(m.content)), `search finds the decision: ${search.stdout}`);

    const t2 = path.join(tempDir('cc-'), 'two.jsonl');
    const two = loadSession('session-two');
    const outs = await replaySession(two, { env: d.env, cwd: repo, transcript: t2 });
    const start = outs.find((o) => o.event === 'SessionStart')!;
    assert.equal(start.run.stdout, '', 'SessionStart prints nothing: its block opens the first prompt');
    const prompt = outs.find((o) => o.event === 'UserPromptSubmit')!;
    const first = contextOf(prompt.run.stdout);
    assert.match(first, /## Last session here\n(- [^\n]*\n)*- \[decision\][^\n]*PostgreSQL/, `the first prompt opens with the session block, which carries the decision: ${first}`);
    const items = first.split('\n').filter((l) => l.startsWith('- '));
    assert.equal(new Set(items).size, items.length, 'no memory twice in one request');
    assert.ok(first.length <= 9500, 'both blocks fit the hook output');
    const next = await runHook('UserPromptSubmit', { session_id: two.session_id, cwd: repo, transcript_path: t2, hook_event_name: 'UserPromptSubmit', prompt: 'Where do user sessions live, PostgreSQL or Redis?' }, d.env, repo);
    // The decision itself is not injected twice (the episode of session one, a different record, may be).
    assert.doesNotMatch(contextOf(next.stdout), /\[decision\][^\n]*PostgreSQL/, `a later prompt does not repeat what this session was shown: ${contextOf(next.stdout)}`);
    // A session whose start did not recall it (started before the decision) gets it with the prompt.
    const late = await runHook('UserPromptSubmit', { session_id: 'late-session', cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: 'How should I store user sessions in this app?' }, d.env, repo);
    const ctx = contextOf(late.stdout);
    assert.match(ctx, /<memory-context/);
    assert.match(ctx, /PostgreSQL/, 'prompt recall carries the decision');
    assert.ok(ctx.length < 9000);
    // Noise stays out.
    const all = await cli(['search', 'thanks', '--json', '--scope', 'repo'], d.env, repo);
    assert.ok(!(JSON.parse(all.stdout) as { results: { content: string }[] }).results.some((m) => /^ok thanks/i.test(m.content)));
  });

  it('keeps a secret pasted in a prompt off the disk', async () => {
    const secret = 'AKIAZ7Q3EXAMPLE4KEY9';
    const token = 'ghp_Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0HgFeDcBa9876';
    const sid = 'aaaaaaaa-1111-4222-8333-444444444444';
    const transcript = path.join(tempDir('cc-'), 'secret.jsonl');
    const prompt = `We decided to deploy with the key ${secret} and token ${token} from now on, using the eu-west-1 region.`;
    fs.writeFileSync(transcript, JSON.stringify({ type: 'user', uuid: 'u-secret', parentUuid: null, message: { role: 'user', content: prompt } }) + '\n');
    const base = { session_id: sid, cwd: repo, transcript_path: transcript };
    await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt }, d.env, repo);
    await runHook('PostToolUse', { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: `aws configure set aws_access_key_id ${secret}` }, tool_response: { stdout: `export GITHUB_TOKEN=${token}` } }, d.env, repo);
    await runHook('Stop', { ...base, hook_event_name: 'Stop', last_assistant_message: `Configured ${secret}.` }, d.env, repo);
    await d.client.flush({ session_id: sid });
    const found = await cli(['search', 'deploy region key', '--json'], d.env, repo);
    assert.ok((JSON.parse(found.stdout) as { results: { content: string }[] }).results.some((m) => /eu-west-1/.test(m.content)), 'the decision itself was kept');
    for (const f of filesUnder(d.home)) {
      if (f.endsWith('.sock')) continue;
      const bytes = fs.readFileSync(f);
      assert.ok(!bytes.includes(secret), `AWS key found in ${f}`);
      assert.ok(!bytes.includes(token), `GitHub token found in ${f}`);
    }
  });

  it('captures nothing from a paused session while remember still works', async () => {
    const sid = 'bbbbbbbb-1111-4222-8333-444444444444';
    const transcript = path.join(tempDir('cc-'), 'paused.jsonl');
    const base = { session_id: sid, cwd: repo, transcript_path: transcript };
    await runHook('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
    const paused = await cli(['pause', '--session', sid, '--json'], d.env, repo);
    assert.equal(paused.code, 0, paused.stderr);
    const words = 'We decided to use Kubernetes with Argo Rollouts for canary deploys.';
    fs.appendFileSync(transcript, JSON.stringify({ type: 'user', uuid: 'p1', parentUuid: null, message: { role: 'user', content: words } }) + '\n');
    await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: words }, d.env, repo);
    await runHook('Stop', { ...base, hook_event_name: 'Stop', last_assistant_message: 'Decision: canary deploys use Argo Rollouts.' }, d.env, repo);
    await d.client.flush({ session_id: sid });
    const status = JSON.parse((await cli(['status', '--json', '--session', sid], d.env, repo)).stdout) as { capture: { session: string } };
    assert.equal(status.capture.session, 'paused');
    const remembered = await cli(['remember', 'Staging runs on a single t3.small instance.', '--json'], d.env, repo);
    assert.equal(remembered.code, 0, remembered.stderr);
    await cli(['resume', '--session', sid], d.env, repo);
    await runHook('Stop', { ...base, hook_event_name: 'Stop', last_assistant_message: 'ok' }, d.env, repo);
    await d.client.flush({ session_id: sid });
    const argo = JSON.parse((await cli(['search', 'Argo Rollouts canary Kubernetes', '--json'], d.env, repo)).stdout) as { results: { content: string }[] };
    assert.ok(!argo.results.some((m) => /Argo/.test(m.content)), `paused content was captured: ${JSON.stringify(argo.results)}`);
    const staging = JSON.parse((await cli(['search', 'staging instance', '--json'], d.env, repo)).stdout) as { results: { content: string }[] };
    assert.ok(staging.results.some((m) => /t3\.small/.test(m.content)), 'remember works while paused');
  });

  it('accepts 20 concurrent sessions through the hooks without losing an event', async () => {
    const sessions = Array.from({ length: 20 }, (_, i) => `cccccccc-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const runs = await Promise.all(
      sessions.flatMap((sid, i) =>
        [0, 1, 2].map((k) => runHook('PostToolUse', { session_id: sid, cwd: repo, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: `echo ${i}-${k}` }, tool_response: { stdout: `out ${i}-${k}` } }, d.env, repo)),
      ),
    );
    for (const r of runs) assert.equal(r.code, 0);
    const status = JSON.parse((await cli(['status', '--json'], d.env, repo)).stdout) as { capture: { sessions: { session_id: string; pending: number }[] } };
    for (const sid of sessions) {
      const s = status.capture.sessions.find((x) => x.session_id === sid);
      assert.equal(s?.pending, 3, `session ${sid} has its 3 events`);
    }
  });

  it('ignores sessions inside the data dir, the sidekick subagent and the memory tools themselves', async () => {
    const inside = await d.client.capture({ hook_event_name: 'UserPromptSubmit', session_id: 'dddddddd-0000-4000-8000-000000000001', cwd: path.join(d.home, 'logs'), prompt: 'we decided x' });
    assert.equal(inside.captured, false);
    const sidekick = await d.client.capture({ hook_event_name: 'SubagentStop', session_id: 'dddddddd-0000-4000-8000-000000000002', cwd: repo, agent_type: 'memory:sidekick', last_assistant_message: 'found it' });
    assert.equal(sidekick.captured, false);
    const mcp = await d.client.capture({ hook_event_name: 'PostToolUse', session_id: 'dddddddd-0000-4000-8000-000000000003', cwd: repo, tool_name: 'mcp__plugin_memory_memory__search', tool_input: { query: 'db' }, tool_response: { results: [] } });
    assert.equal(mcp.captured, false, 'the memory tool\'s own answers are not captured');
    const cli = await d.client.capture({ hook_event_name: 'PostToolUse', session_id: 'dddddddd-0000-4000-8000-000000000003', cwd: repo, tool_name: 'Bash', tool_input: { command: 'service search "session store" --json' }, tool_response: { stdout: '{}' } });
    assert.equal(cli.captured, false, 'nor the service CLI\'s');
    const other = await d.client.capture({ hook_event_name: 'PostToolUse', session_id: 'dddddddd-0000-4000-8000-000000000003', cwd: repo, tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: { stdout: 'ok' } });
    assert.equal(other.captured, true);
  });

  it('creates its socket owner-only', () => {
    const sock = fs.readdirSync(d.home).find((f) => f.endsWith('.sock'));
    assert.ok(sock);
    assert.equal(fs.statSync(path.join(d.home, sock)).mode & 0o777, 0o600);
  });
});

describe('hooks when the daemon is down', () => {
  it('exit 0 fast, print nothing, and start the daemon for next time', async () => {
    const home = path.join(tempDir('down-'), 'home');
    fs.mkdirSync(home, { recursive: true });
    const { testEnv } = await import('../helpers/daemon.js');
    const env = testEnv(home, { SERVICE_CAPTURE_RETRY_MS: '20000' });
    const recall = await runHook('UserPromptSubmit', { session_id: 's', hook_event_name: 'UserPromptSubmit', prompt: 'hello there', cwd: home + '-x' }, env);
    assert.equal(recall.code, 0);
    assert.equal(recall.stdout, '');
    assert.ok(recall.ms < 2000, `recall hook returned in ${recall.ms} ms`);
    // A capture hook that finds no daemon spools the event durably and is done at once.
    const capture = await runHook('PostToolUse', { session_id: 's2', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: 'x', cwd: home + '-x' }, env);
    assert.equal(capture.code, 0);
    assert.ok(capture.ms < 2000, `capture hook returned in ${capture.ms} ms`);
    const { DaemonClient } = await import('../../daemon/client.js');
    const { resolvePaths } = await import('../../engine/index.js');
    const paths = resolvePaths(home);
    const client = new DaemonClient({ socketPath: paths.socket });
    let up = false;
    for (let i = 0; i < 60 && !up; i++) {
      up = await client.ping(500);
      if (!up) await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(up, `the hook started the daemon: ${fs.existsSync(path.join(paths.logDir, 'daemon.log')) ? fs.readFileSync(path.join(paths.logDir, 'daemon.log'), 'utf8').slice(-1500) : 'no log'}`);
    // The daemon ingested the spool when it started: both events reached it, and the spool is empty.
    const status = await client.status<{ capture: { sessions: { session_id: string; pending: number; last_flush: string | null }[] } }>();
    const s2 = status.capture.sessions.find((s) => s.session_id === 's2');
    assert.ok(s2 && (s2.pending === 1 || s2.last_flush !== null), 'the spooled capture reached the journal');
    assert.ok(status.capture.sessions.some((s) => s.session_id === 's'), 'the prompt the recall hook could not deliver was spooled and captured too');
    assert.deepEqual(fs.readdirSync(paths.spoolDir), []);
    await cli(['daemon', 'stop'], env);
  });
});
