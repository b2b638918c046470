/**
 * The built plugin, installed by `service plugin install claude-code` into a temp HOME and played
 * the way Claude Code plays it: the two recorded sessions go through the hook commands of its
 * hooks.json (async hooks not awaited, sync hooks under their timeouts), then the MCP server
 * starts as its .mcp.json says and the SDK's client calls memory.search in every scope.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DaemonClient } from '../../daemon/client.js';
import { loadConfig, resolvePaths } from '../../engine/index.js';
import { ClaudeCodeSim, type HookRun } from '../helpers/claude-code.js';
import { cli, loadSession, makeRepo, type SessionFixture } from '../helpers/daemon.js';
import { pluginUser, type PluginUser } from '../helpers/plugin.js';
import { repoRoot, tempDir } from '../helpers/tmp.js';

interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: { results: { memory_id: string; content: string; score: number }[] };
}

async function search(client: Client, query: string, scope?: string): Promise<ToolAnswer> {
  return (await client.callTool({ name: 'search', arguments: { query, ...(scope ? { scope } : {}) } })) as ToolAnswer;
}

function texts(a: ToolAnswer): string[] {
  return (a.structuredContent?.results ?? []).map((r) => r.content);
}

function contextOf(run: HookRun): string {
  return run.stdout.trim() ? (JSON.parse(run.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext : '';
}

/** Play recorded steps: transcript lines are appended, hook events fired through hooks.json. */
async function play(sim: ClaudeCodeSim, steps: SessionFixture['steps'], vars: Record<string, string>): Promise<HookRun[]> {
  const sub = <T>(v: T): T => JSON.parse(JSON.stringify(v).replace(/\$\{(\w+)\}/g, (m, k: string) => (k in vars ? JSON.stringify(vars[k]).slice(1, -1) : m))) as T;
  const runs: HookRun[] = [];
  for (const step of steps) {
    if ('append' in step) fs.appendFileSync(vars.TRANSCRIPT!, step.append.map((e) => JSON.stringify(sub(e)) + '\n').join(''));
    else runs.push(...(await sim.fire(step.hook, sub(step.payload))));
  }
  return runs;
}

/** Until the daemon has flushed every captured event and holds at least `min` memories. */
async function flushed(client: DaemonClient, min: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const s = await client.status<{ journal: { pending_events: number }; memories: { total: number } }>();
    if (s.journal.pending_events === 0 && s.memories.total >= min) return;
    if (Date.now() > deadline) throw new Error(`the daemon did not flush: ${JSON.stringify(s.journal)} ${s.memories.total} memories`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the installed plugin played like Claude Code plays it', () => {
  let user: PluginUser;
  let root: string;
  let repo: string;
  let sim: ClaudeCodeSim;
  let daemon: DaemonClient;
  let scratch: string;
  const clients: Client[] = [];

  before(async () => {
    // Recall hooks use their timeouts' defaults scaled to a loaded test machine, inside hooks.json's limits.
    user = pluginUser({ env: { SERVICE_RECALL_TIMEOUT_MS: '2500' } });
    const installed = await cli(['plugin', 'install', 'claude-code', '--json'], user.env);
    assert.equal(installed.code, 0, installed.stderr);
    root = (JSON.parse(installed.stdout) as { dir: string }).dir;
    repo = makeRepo();
    scratch = tempDir('replay-');
    sim = new ClaudeCodeSim(root, user.env, repo);
    daemon = new DaemonClient({ socketPath: resolvePaths(user.data).socket, timeoutMs: 30_000 });
  });

  after(async () => {
    for (const c of clients) await c.close();
    await sim.close();
    await cli(['daemon', 'stop'], user.env);
  });

  it('installs the hooks.json that the build produced, pointing only inside the plugin', () => {
    assert.equal(fs.readFileSync(path.join(root, 'hooks', 'hooks.json'), 'utf8'), fs.readFileSync(repoRoot('dist', 'plugin', 'hooks', 'hooks.json'), 'utf8'));
    assert.ok(root.startsWith(user.data), 'the plugin lives in the data dir');
  });

  it('starts the daemon from a hook through the service.json of the installed plugin', async () => {
    await cli(['daemon', 'stop'], user.env);
    assert.equal(await daemon.ping(300), false);
    const [start] = await sim.fire('SessionStart', { session_id: 'warmup', hook_event_name: 'SessionStart', source: 'startup', cwd: scratch });
    assert.equal(start!.code, 0);
    assert.equal(start!.stdout, '', 'a recall hook prints nothing while the daemon is down');
    const deadline = Date.now() + 20_000;
    while (!(await daemon.ping(300))) {
      assert.ok(Date.now() < deadline, 'the hook started the daemon');
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('returns in session two what session one decided, in each scope as defined', async () => {
    const one = loadSession('session-one');
    const v1 = { SESSION_ID: one.session_id, CWD: repo, TRANSCRIPT: path.join(scratch, 'one.jsonl') };
    const beforeEnd = one.steps.slice(0, -1);
    const runs = await play(sim, beforeEnd, v1);
    runs.push(...(await sim.settle()));
    for (const r of runs) {
      assert.equal(r.code, 0, `${r.event} exits 0: ${r.stderr}`);
      assert.ok(!r.timedOut, `${r.event} finished within its ${r.timeoutS}s timeout`);
    }
    const events = new Set(runs.map((r) => r.event));
    for (const e of ['SessionStart', 'UserPromptSubmit', 'PostToolUseFailure', 'Stop']) assert.ok(events.has(e), `${e} ran (command and mcp_tool hooks both): ${[...events].join(', ')}`);
    await flushed(daemon, 2);

    const mcpOne = await sim.mcp('memory');
    clients.push(mcpOne);
    const own = await search(mcpOne, 'session store PostgreSQL Redis', 'session');
    assert.ok(!own.isError, JSON.stringify(own));
    assert.ok(texts(own).some((t) => /PostgreSQL/.test(t)), `session scope in session one holds its decision: ${JSON.stringify(own)}`);

    runs.push(...(await play(sim, one.steps.slice(-1), v1)), ...(await sim.settle()));
    await flushed(daemon, 2);

    const two = loadSession('session-two');
    const v2 = { SESSION_ID: two.session_id, CWD: repo, TRANSCRIPT: path.join(scratch, 'two.jsonl') };
    const upToPrompt = two.steps.findIndex((s) => 'hook' in s && s.hook === 'UserPromptSubmit') + 1;
    const early = await play(sim, two.steps.slice(0, upToPrompt), v2);
    const start = early.find((r) => r.event === 'SessionStart')!;
    const prompt = early.find((r) => r.event === 'UserPromptSubmit')!;
    // SessionStart runs in the background and prints nothing; the session's first prompt opens with its block.
    assert.equal(start.stdout, '', 'SessionStart prints nothing');
    assert.match(contextOf(prompt), /\[decision\][^\n]*PostgreSQL/, `the first prompt's recall carries the decision: ${contextOf(prompt)}`);
    const lines = contextOf(prompt).split('\n').filter((l) => l.startsWith('- '));
    assert.equal(new Set(lines).size, lines.length, 'no memory twice in one request (the opening block and the prompt\'s)');
    const [again] = await sim.fire('UserPromptSubmit', { session_id: two.session_id, cwd: repo, transcript_path: v2.TRANSCRIPT, hook_event_name: 'UserPromptSubmit', prompt: 'Which database holds the user sessions, PostgreSQL or Redis?' });
    assert.doesNotMatch(contextOf(again!), /\[decision\][^\n]*PostgreSQL/, `a later prompt does not repeat what this session was shown (recall once per session): ${contextOf(again!)}`);

    const mcp = await sim.mcp('memory');
    clients.push(mcp);
    const tools = await mcp.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name), ['search']);

    const repoScope = await search(mcp, 'session store database', 'repo');
    assert.ok(texts(repoScope).some((t) => /PostgreSQL/.test(t)), `repo scope: ${JSON.stringify(repoScope)}`);
    for (const r of repoScope.structuredContent!.results) {
      assert.deepEqual(Object.keys(r).sort(), ['content', 'memory_id', 'score']);
      assert.match(r.memory_id, /^[0-9a-f-]{36}$/);
      assert.ok(r.score > 0 && r.score <= 1);
    }
    assert.deepEqual(JSON.parse(repoScope.content[0]!.text), repoScope.structuredContent, 'the text block carries the same JSON');
    assert.deepEqual(texts(await search(mcp, 'session store database')), texts(repoScope), 'scope defaults to repo');
    assert.ok(texts(await search(mcp, 'session store database', 'dir')).some((t) => /PostgreSQL/.test(t)), 'dir scope: captured in this directory');
    const userScope = await search(mcp, 'commit messages', 'user');
    assert.ok(texts(userScope).some((t) => /imperative/.test(t)), `user scope holds the personal preference: ${JSON.stringify(userScope)}`);
    assert.ok(!texts(userScope).some((t) => /PostgreSQL/.test(t)), 'user scope holds no project decision');

    const sessionScope = await search(mcp, 'session store PostgreSQL Redis', 'session');
    assert.ok(!sessionScope.isError, JSON.stringify(sessionScope));
    // Session two has flushed nothing yet: its own scope is empty, and the answer says where session one's memories are.
    assert.deepEqual(sessionScope.structuredContent, { results: [] }, 'session scope in session two does not return session one');
    assert.match(sessionScope.content[1]!.text, /No memories found in scope "session" \(this session\).*Other scopes hold: repo [1-9]\d*, dir [1-9]\d*, user [1-9]/s);

    const rest = [...(await play(sim, two.steps.slice(upToPrompt), v2)), ...(await sim.settle())];
    for (const r of [...early, ...rest]) assert.equal(r.code, 0, `${r.event} exits 0: ${r.stderr}`);
  });

  it('limits answers to SERVICE_TOP_K and defaults the scope to SERVICE_SEARCH_SCOPE', async () => {
    const one = await sim.mcp('memory', { SERVICE_TOP_K: '1' });
    clients.push(one);
    const r = await search(one, 'session store commit messages pull request main');
    assert.equal(r.structuredContent!.results.length, 1);
    const personal = await sim.mcp('memory', { SERVICE_SEARCH_SCOPE: 'user' });
    clients.push(personal);
    const p = await search(personal, 'session store commit messages');
    assert.ok(p.structuredContent!.results.length > 0);
    assert.ok(texts(p).every((t) => !/PostgreSQL/.test(t)), `user is the default scope now: ${JSON.stringify(p)}`);
  });

  it('says which scope was searched and what the other scopes hold when it finds nothing', async () => {
    const src = path.join(repo, 'src');
    const sub = await sim.mcp('memory', { CLAUDE_PROJECT_DIR: src });
    clients.push(sub);
    const r = await search(sub, 'session store database', 'dir');
    assert.ok(!r.isError, JSON.stringify(r));
    assert.deepEqual(r.structuredContent, { results: [] });
    assert.match(r.content[1]!.text, /No memories found in scope "dir" \(github\.com\/acme\/shop, directory src\)/);
    assert.match(r.content[1]!.text, /Other scopes hold: repo [1-9]\d*, user [1-9]/);
    assert.match(r.content[1]!.text, /Search again with scope "repo"/);
    // /memory:search runs `service search`, which says the same.
    const viaCli = await cli(['search', 'session store database', '--scope', 'dir'], user.env, src);
    assert.equal(viaCli.code, 0, viaCli.stderr);
    assert.match(viaCli.stdout, /No memories found in scope "dir" \(github\.com\/acme\/shop\); it holds 0\.\nOther scopes hold repo: [1-9]\d*, user: [1-9]/);
  });

  it('answers every call with the invalid setting, its variable and allowed values', async () => {
    const bad = await sim.mcp('memory', { SERVICE_SEARCH_SCOPE: 'galaxy' });
    clients.push(bad);
    const r = await search(bad, 'anything');
    assert.equal(r.isError, true);
    assert.match(r.content[0]!.text, /SERVICE_SEARCH_SCOPE="galaxy" is not valid: use one of repo, dir, user, session/);
  });

  it('reads its settings as the engine does: the same message for every bad value, the config file under the environment', async () => {
    const engineMessage = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error(`the engine accepts ${JSON.stringify(env)}`);
    };
    for (const env of [{ SERVICE_TOP_K: '0' }, { SERVICE_TOP_K: '101' }, { SERVICE_TOP_K: '2.5' }, { SERVICE_TOP_K: 'many' }, { SERVICE_SEARCH_SCOPE: 'Repo' }] as Record<string, string>[]) {
      const bad = await sim.mcp('memory', env);
      clients.push(bad);
      const r = await search(bad, 'anything');
      assert.equal(r.isError, true, JSON.stringify(env));
      assert.ok(r.content[0]!.text.startsWith(engineMessage(env)), `${JSON.stringify(env)}: ${r.content[0]!.text} | engine: ${engineMessage(env)}`);
    }
    // A data dir of its own (no daemon there): its config file is read, and the environment wins over it.
    const home = path.join(tempDir('mcp-settings-'), 'home');
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ SERVICE_TOP_K: '0', SERVICE_SEARCH_SCOPE: 'galaxy' }));
    const fromFile = await sim.mcp('memory', { SERVICE_HOME: home, SERVICE_TOP_K: '3' });
    clients.push(fromFile);
    const r = await search(fromFile, 'anything');
    assert.equal(r.isError, true);
    assert.match(r.content[0]!.text, /^SERVICE_SEARCH_SCOPE="galaxy" is not valid/, 'the file is read; SERVICE_TOP_K from the environment overrides the file');
    fs.writeFileSync(path.join(home, 'config.json'), '{"SERVICE_TOP_K": ');
    const damaged = await sim.mcp('memory', { SERVICE_HOME: home });
    clients.push(damaged);
    assert.match((await search(damaged, 'anything')).content[0]!.text, /config\.json is not valid JSON; fix it or remove it/);
  });
});
