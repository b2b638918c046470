/**
 * The plugin driven by the real Claude Code client, both pinned versions (what `npm i` resolves on
 * Node 20, and the latest), against the Messages API stand-in on 127.0.0.1. Every assertion is
 * about what Claude Code actually sent (request bodies the stand-in logged) or what reached the
 * daemon. One world per version: install → sessions → slash commands → update → uninstall.
 * Registration alternates: the first version finds `claude` on PATH (the CLI registers), the
 * second does not (the settings file registers, and its first session must still load the plugin).
 * Never skipped: a missing client fails the suite (it is a devDependency).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DaemonClient } from '../../daemon/client.js';
import { resolvePaths } from '../../engine/index.js';
import { runHook } from '../helpers/daemon.js';
import { directiveScript, offeredTools, systemText, textOf, userText, type ApiRequest, type Reply } from '../helpers/messages-api.js';
import { CLAUDE_VERSIONS, claudeWorld, type ClaudeRun, type ClaudeWorld } from '../helpers/real-claude.js';

const TOOL = 'mcp__plugin_memory_memory__search';
const DECISION = 'We decided to store sessions in PostgreSQL, never in Redis.';
/** The user's Claude Code settings before install: after uninstall they must read the same. */
const BEFORE = { theme: 'dark', permissions: { allow: ['Bash(ls:*)'] }, env: { EDITOR: 'vim' } };

function bash(command: string): Reply {
  return { tools: [{ name: 'Bash', input: { command, description: 'Run the memory service CLI' } }] };
}

/**
 * The model: the sidekick searches memory first; the slash commands' prompts get the `service`
 * call they ask for; everything else follows `[[tool …]]` directives.
 */
function script(body: any): Reply {
  const last = ((body?.messages ?? []) as any[]).filter((m) => m.role === 'user').at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b: any) => b?.type === 'tool_result');
  if (!Array.isArray(body?.tools) || body.tools.length === 0 || answered) return directiveScript(body);
  if (/You are the sidekick/.test(systemText(body))) return { tools: [{ name: TOOL, input: { query: 'how are sessions stored', scope: 'repo' } }] };
  const text = textOf(last);
  // The installed commands name the CLI by the absolute command recorded at install (never `service` from PATH).
  const cli = /([^\s`(]+ [^\s`(]+\/cli\/main\.js) (?:remember|search|forget)\b/.exec(text)?.[1] ?? 'service';
  let m: RegExpExecArray | null;
  if ((m = /Store this in memory: (.+)/.exec(text))) return bash(`${cli} remember ${JSON.stringify(m[1]!.trim())}`);
  if ((m = /Search the memory service for: (.+?) --scope (\w+)/.exec(text))) return bash(`${cli} search ${JSON.stringify(m[1]!.trim())} --scope ${m[2]}`);
  if ((m = /The user wants to forget: ([0-9a-f-]{36})/.exec(text))) return bash(`${cli} forget ${m[1]}`);
  return directiveScript(body);
}

/** The requests of one claude run that offered tools (the agent's turns, its subagents' too). */
function turnsSince(world: ClaudeWorld, from: number): ApiRequest[] {
  return world.api.requests.slice(from).filter((r) => r.path === '/v1/messages' && Array.isArray(r.body?.tools) && r.body.tools.length > 0);
}

function offered(r: ApiRequest): string[] {
  return offeredTools(r.body);
}

/** tool_result texts of a request's newest user message. */
function toolResults(r: ApiRequest): string[] {
  const last = (r.body.messages as any[]).filter((m) => m.role === 'user').at(-1);
  return Array.isArray(last?.content) ? last.content.filter((b: any) => b?.type === 'tool_result').map((b: any) => textOf({ content: [b] })) : [];
}

function ok(r: ClaudeRun): void {
  assert.equal(r.code, 0, `claude -p exited ${r.code}: ${r.stderr.slice(-2000)} ${r.stdout.slice(-1000)}`);
  assert.ok(r.result && !r.result.is_error, r.stdout.slice(-2000));
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

interface Recent {
  session_id: string;
  event: string;
  /** The start of what the event said (prompt, message, tool input, reason …). */
  summary: string;
}

for (const [i, claude] of CLAUDE_VERSIONS.entries()) {
  const viaCli = i === 0;
  describe(`Claude Code ${claude.version} (${viaCli ? 'registered through the claude CLI' : 'registered through the settings file'})`, () => {
    let world: ClaudeWorld;
    let client: DaemonClient;
    const recent = async (): Promise<Recent[]> => (await client.status<{ recent: Recent[] }>({ cwd: world.repo })).recent;
    const captureOf = async (session: string): Promise<string | null> => (await client.status<{ capture: { session: string | null } }>({ cwd: world.repo, session_id: session })).capture.session;
    const eventsOf = async (session: string): Promise<string[]> => [...new Set((await recent()).filter((e) => e.session_id === session).map((e) => e.event))].sort();
    let decisionSession = '';

    before(async () => {
      world = await claudeWorld(claude, { claudeOnPath: viaCli, settings: BEFORE });
      world.api.respond = script;
      client = new DaemonClient({ socketPath: resolvePaths(world.data).socket, timeoutMs: 10_000 });
      const r = await world.service(['plugin', 'install', 'claude-code', '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).method, viaCli ? 'claude-cli' : 'settings');
      assert.equal(JSON.parse(r.stdout).claude.version, viaCli ? claude.version : null);
    });

    after(async () => {
      await world?.close();
    });

    it('the first session after install loads the plugin: every hook reaches the daemon, and its decision is searchable within 2 s of exit', async () => {
      const from = world.api.requests.length;
      const prompt = `${DECISION} [[tool Read {"file_path":"${world.repo}/README.md"}]] [[tool Read {"file_path":"${world.repo}/missing.txt"}]] [[tool Agent {"description":"Quick check","prompt":"Reply in one word.","subagent_type":"general-purpose"}]]`;
      const r = await world.run(prompt);
      ok(r);
      decisionSession = r.session_id;
      const turns = turnsSince(world, from);
      assert.ok(turns.length >= 2, 'the tools ran and the model saw their results');
      // Claude Code does not wait for MCP servers before its first request (2.1.197 then offers
      // WaitForMcpServers): on a loaded machine the tool may join from the second request on.
      assert.ok(turns.some((t) => offered(t).includes(TOOL)), `the memory tool is offered in the first session: ${offered(turns.at(-1)!).join(', ')}`);
      // Searchable ≤ 2 s after exit: Stop and SessionEnd reached the daemon before claude exited.
      let found = -1;
      while (performance.now() - r.exitedAt < 5000) {
        const hits = await client.localSearch({ query: 'where are sessions stored PostgreSQL', cwd: world.repo, scope: 'repo' });
        if (hits.results.some((h) => /PostgreSQL/.test(h.content))) {
          found = performance.now() - r.exitedAt;
          break;
        }
        await new Promise((res) => setTimeout(res, 50));
      }
      assert.ok(found >= 0 && found <= 2000, `the decision was searchable ${found < 0 ? 'not within 5 s' : `${Math.round(found)} ms`} after exit`);
      const events = await eventsOf(r.session_id);
      for (const e of ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'SubagentStop', 'Stop', 'SessionEnd']) assert.ok(events.includes(e), `${e} reached the daemon (got ${events.join(', ')})`);
      // With what Claude Code said in it, not just the session id (a hook that lost its stdin still delivers the id).
      const mine = (await recent()).filter((e) => e.session_id === r.session_id);
      const said = (event: string, what: RegExp): boolean => mine.some((e) => e.event === event && what.test(e.summary));
      assert.ok(said('UserPromptSubmit', /PostgreSQL/), `the prompt: ${JSON.stringify(mine)}`);
      assert.ok(said('PostToolUse', /README/), 'the tool input');
      assert.ok(said('Stop', /\S/), 'the last assistant message');
      assert.ok(said('SessionEnd', /\S/), 'the reason the session ended');
    });

    it('PreCompact fires on /compact and reaches the daemon', async () => {
      const r = await world.run('/compact', ['--resume', decisionSession], { sessionId: null });
      assert.equal(r.code, 0, r.stderr.slice(-2000));
      const sessions = new Set([decisionSession, r.session_id]);
      const compacted = (await recent()).filter((e) => e.event === 'PreCompact' && sessions.has(e.session_id));
      assert.ok(compacted.length > 0, `PreCompact reached the daemon: ${JSON.stringify((await recent()).slice(-6))}`);
    });

    it('recall appears once per request, though SessionStart and UserPromptSubmit both recall', async () => {
      const from = world.api.requests.length;
      ok(await world.run('Where do we keep sessions?'));
      const memory = (await client.localSearch({ query: 'where are sessions stored PostgreSQL', cwd: world.repo, scope: 'repo' })).results.find((h) => /PostgreSQL/.test(h.content));
      assert.ok(memory);
      // Anywhere in the request: 2.1.197 puts hook context in user messages, 2.1.331 elsewhere.
      const body = JSON.stringify(turnsSince(world, from)[0]!.body);
      const shown = JSON.stringify(memory.content.replace(/\s+/g, ' ').trim().slice(0, 60)).slice(1, -1);
      assert.equal(occurrences(body, shown), 1, `the memory "${shown}" is in the request once`);
      assert.equal(occurrences(body, 'memory-context source'), 1, 'one recall block');
    });

    it('the memory tool is callable without a manual grant and its tool_result carries the memory', async () => {
      // The stand-in calls the tool only once Claude Code offers it; on a loaded machine the MCP
      // server may connect after the first request, so a run where it never did is tried again.
      let results: string[] = [];
      for (let attempt = 0; attempt < 3 && results.length === 0; attempt++) {
        const from = world.api.requests.length;
        const r = await world.run(`[[tool ${TOOL} {"query":"how are sessions stored"}]]`);
        ok(r);
        assert.deepEqual(r.result?.permission_denials ?? [], [], 'no permission was denied');
        results = turnsSince(world, from).flatMap(toolResults);
      }
      assert.ok(results.some((t) => /PostgreSQL/.test(t)), `the tool_result holds the memory: ${results.join(' | ').slice(0, 2000)}`);
    });

    it('the sidekick is offered with only tools that exist, and checks memory first', async () => {
      const from = world.api.requests.length;
      const r = await world.run('[[tool Agent {"description":"Memory check","prompt":"Find how sessions are stored.","subagent_type":"memory:sidekick"}]]');
      ok(r);
      const turns = turnsSince(world, from);
      const main = turns[0]!;
      const listing = /- memory:sidekick: [^\n]*\(Tools: ([^)]*)\)/.exec(JSON.stringify(main.body).replace(/\\n/g, '\n'));
      assert.ok(listing, 'the Agent tool offers memory:sidekick with its tools');
      const declared = listing[1]!.split(',').map((t) => t.trim());
      const everOffered = new Set(turns.flatMap(offered));
      for (const t of declared) assert.ok(t.startsWith('mcp__') ? everOffered.has(t) : offered(main).includes(t), `the sidekick's tool ${t} exists in Claude Code ${claude.version}`);
      assert.ok(declared.includes(TOOL));
      const sidekick = turns.filter((t) => /You are the sidekick/.test(systemText(t.body)));
      assert.ok(sidekick.length >= 2, 'the sidekick ran and called a tool');
      assert.ok(offered(sidekick[0]!).includes(TOOL));
      assert.ok(sidekick.flatMap(toolResults).some((t) => /PostgreSQL/.test(t)), 'the sidekick got the memory without a manual grant');
    });

    it('/memory:pause pauses its own repository (every session there) until /memory:resume, and only that repository', async () => {
      // Another live session in the same repository, active just before, and one in another folder.
      const other = `live-other-${i}`;
      const elsewhere = `live-elsewhere-${i}`;
      const away = fs.mkdtempSync(path.join(path.dirname(world.repo), 'elsewhere-'));
      for (const [session, cwd] of [[other, world.repo], [elsewhere, away]] as const) {
        const hook = await runHook('UserPromptSubmit', { session_id: session, cwd, hook_event_name: 'UserPromptSubmit', prompt: 'working on the cart' }, world.env, cwd);
        assert.equal(hook.code, 0);
      }
      const awayOf = async (session: string): Promise<string | null> => (await client.status<{ capture: { session: string | null } }>({ cwd: away, session_id: session })).capture.session;
      const paused = await world.run('/memory:pause');
      ok(paused);
      assert.equal(await captureOf(paused.session_id), 'paused', 'its own session is paused');
      assert.equal(await captureOf(other), 'paused', 'so is the other live session in the same repository');
      assert.notEqual(await awayOf(elsewhere), 'paused', 'a session in another folder still captures');
      const resumed = await world.run('/memory:resume', ['--resume', paused.session_id], { sessionId: null });
      ok(resumed);
      assert.equal(resumed.session_id, paused.session_id, 'the resumed session keeps its id');
      assert.notEqual(await captureOf(paused.session_id), 'paused', 'its own session captures again');
      assert.notEqual(await captureOf(other), 'paused', 'and so does the other one');
    });

    let remembered = '';
    it('/memory:remember stores in its session; /memory:search --scope session finds it there; /memory:forget forgets it', async () => {
      const r = await world.run('/memory:remember We deploy with Argo CD on Fridays');
      ok(r);
      const hits = await client.localSearch({ query: 'deploy Argo CD', cwd: world.repo, scope: 'session', session_id: r.session_id });
      const hit = hits.results.find((h) => /Argo CD/.test(h.content));
      assert.ok(hit, `remembered in its own session: ${JSON.stringify(hits.results)}`);
      remembered = hit.memory_id;
      let from = world.api.requests.length;
      ok(await world.run('/memory:search Argo CD deploys --scope session', ['--resume', r.session_id], { sessionId: null }));
      const found = turnsSince(world, from).flatMap(toolResults);
      assert.ok(found.some((t) => /Argo CD/.test(t) && t.includes(remembered)), `search --scope session found it in its session: ${found.join(' | ')}`);
      from = world.api.requests.length;
      ok(await world.run(`/memory:forget ${remembered}`));
      const forgot = turnsSince(world, from).flatMap(toolResults);
      assert.ok(forgot.some((t) => /forgot 1 memory/.test(t)), forgot.join(' | '));
      const gone = await client.localSearch({ query: 'deploy Argo CD', cwd: world.repo, scope: 'repo' });
      assert.ok(!gone.results.some((h) => h.memory_id === remembered), 'the memory is forgotten');
    });

    it('/memory:status runs the plugin status for its session', async () => {
      const from = world.api.requests.length;
      const r = await world.run('/memory:status');
      ok(r);
      const text = userText(turnsSince(world, from)[0]!.body);
      assert.match(text, /daemon/i);
      assert.match(text, /running, pid \d+/, 'the status output reached the model');
    });

    it('update then uninstall leave Claude Code\'s settings as they were before install, and no copy of the plugin', async () => {
      const up = await world.service(['plugin', 'update', 'claude-code', '--json']);
      assert.equal(up.code, 0, up.stderr);
      const down = await world.service(['plugin', 'uninstall', 'claude-code', '--json']);
      assert.equal(down.code, 0, down.stderr);
      assert.deepEqual(JSON.parse(fs.readFileSync(world.settings, 'utf8')), BEFORE);
      const plugins = path.join(world.configDir, 'plugins');
      const trace = (rel: string): boolean => fs.existsSync(path.join(plugins, rel));
      assert.ok(!trace('cache/memory-service'), 'no cached copy');
      for (const f of ['known_marketplaces.json', 'installed_plugins.json']) {
        if (trace(f)) assert.ok(!/memory-service/.test(fs.readFileSync(path.join(plugins, f), 'utf8')), `${f} forgot the plugin`);
      }
      const health = await client.request('GET', '/health').then(
        () => 'answers',
        () => 'gone',
      );
      assert.equal(health, 'gone', 'the daemon was stopped');
      // Claude Code itself runs without the plugin again.
      const from = world.api.requests.length;
      ok(await world.run('hello'));
      assert.ok(!offered(turnsSince(world, from)[0]!).includes(TOOL));
    });
  });
}
