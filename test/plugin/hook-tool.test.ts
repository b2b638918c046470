/**
 * The MCP server's unlisted `hook` tool, which the plugin's mcp_tool hooks call: the templated
 * arguments turn back into the hook input, and through the built server an event the daemon cannot
 * take (it is down) is spooled durably, as a hook script would spool it. test/e2e/claude-code.test.ts
 * proves the real Claude Code delivers every event this way.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ClaudeCodeSim, fillTemplate } from '../helpers/claude-code.js';
import { testEnv } from '../helpers/daemon.js';
import { repoRoot, tempDir } from '../helpers/tmp.js';

const ROOT = repoRoot('dist', 'plugin');
const hooksDoc = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { type: string; input?: Record<string, unknown> }[] }[]> };
const template = (event: string): Record<string, unknown> => hooksDoc.hooks[event]![0]!.hooks[0]!.input!;

/** The events spooled in `home` (the daemon is down), oldest first, without the capture id the hook adds. */
function spooled(home: string): Record<string, unknown>[] {
  const dir = path.join(home, 'spool');
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => {
      assert.equal(fs.statSync(path.join(dir, f)).mode & 0o777, 0o600, `${f} is the user's only`);
      const { memory_capture_id: id, ...rest } = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
      assert.match(String(id), /^[\w-]{8,}$/, 'every event carries a capture id');
      return rest;
    });
}

describe('the MCP server\'s hook tool', () => {
  it('turns the arguments Claude Code fills from hooks.json back into the hook input, and spools what the daemon cannot take', async () => {
    const scratch = tempDir('hook-tool-');
    const home = path.join(scratch, 'home');
    // No daemon, and none started: every event must wait in the spool, as Claude Code sent it.
    const sim = new ClaudeCodeSim(ROOT, { ...testEnv(home), SERVICE_AUTOSTART: 'false' }, scratch);
    const base = { session_id: 'abc', transcript_path: path.join(scratch, 'abc.jsonl'), cwd: scratch };
    const events: (Record<string, unknown> & { hook_event_name: string })[] = [
      { ...base, hook_event_name: 'UserPromptSubmit', permission_mode: 'default', prompt: 'we decided to keep sessions in PostgreSQL' },
      { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'npm test', description: 'run "the" tests' }, tool_response: { stdout: 'ok\n', stderr: '', interrupted: false }, tool_use_id: 'toolu_1' },
      { ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'false' }, error: 'exit 1', is_interrupt: false, tool_use_id: 'toolu_2' },
      { ...base, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done: we keep sessions in {PostgreSQL}.' },
    ];
    try {
      // What Claude Code sends for a template: every value a string, objects as JSON, missing fields empty.
      const args = fillTemplate(template('PostToolUse'), events[1]!) as Record<string, unknown>;
      assert.equal(args.tool_input, JSON.stringify(events[1]!.tool_input));
      assert.equal(args.prompt, '');
      for (const e of events) {
        const [run, ...more] = await sim.fire(e.hook_event_name, e);
        assert.equal(more.length, 0);
        assert.equal(run!.code, 0, run!.stderr);
        assert.equal(run!.stdout, '', 'nothing to recall while the daemon is down');
      }
      assert.deepEqual(spooled(home), events);
    } finally {
      await sim.close();
    }
  });

  it('refuses an event it does not serve, and is not offered to the model', async () => {
    const scratch = tempDir('hook-tool-');
    const client = await new ClaudeCodeSim(ROOT, { ...testEnv(path.join(scratch, 'home')), SERVICE_AUTOSTART: 'false' }, scratch).mcp('memory');
    try {
      const bad = (await client.callTool({ name: 'hook', arguments: { event: 'SessionStart' } })) as { isError?: boolean; content: { text: string }[] };
      assert.equal(bad.isError, true);
      assert.match(bad.content[0]!.text, /one of UserPromptSubmit, PostToolUse.*not "SessionStart"/);
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['search']);
    } finally {
      await client.close();
    }
  });
});
