/**
 * The built plugin (dist/plugin) against Claude Code's documented plugin format: manifest,
 * marketplace, hooks.json, .mcp.json, command and agent frontmatter. Every path they name exists
 * inside the plugin, the bundles need nothing outside it, and each command's permission is scoped
 * to exactly the `service` commands it runs.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS } from '../../cli/registry.js';
import { CAPTURE_EVENTS } from '../../daemon/capture.js';
import { ClaudeCodeSim } from '../helpers/claude-code.js';
import { testEnv } from '../helpers/daemon.js';
import { repoRoot, tempDir } from '../helpers/tmp.js';

const ROOT = repoRoot('dist', 'plugin');
const read = (rel: string): string => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const json = (rel: string): Record<string, any> => JSON.parse(read(rel)) as Record<string, any>;

/** Documented fields of plugin.json, marketplace.json and a marketplace plugin entry. */
const PLUGIN_FIELDS = ['$schema', 'name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords', 'commands', 'agents', 'skills', 'hooks', 'mcpServers', 'outputStyles', 'lspServers', 'userConfig', 'channels'];
const MARKETPLACE_FIELDS = ['$schema', 'name', 'owner', 'plugins', 'metadata', 'description', 'version'];
const ENTRY_FIELDS = [...PLUGIN_FIELDS, 'source', 'category', 'tags', 'strict'];
const RESERVED_MARKETPLACES = ['claude-code-marketplace', 'claude-code-plugins', 'claude-plugins-official', 'anthropic-marketplace', 'anthropic-plugins', 'agent-skills', 'life-sciences'];
const HOOK_EVENTS = ['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'Notification', 'Stop', 'SubagentStart', 'SubagentStop', 'PreCompact'];
const COMMAND_FIELDS = ['description', 'argument-hint', 'allowed-tools', 'model', 'disable-model-invocation'];
const AGENT_FIELDS = ['name', 'description', 'tools', 'model', 'color', 'permissionMode', 'skills'];
/**
 * Built-in tools both pinned Claude Code versions offer the model (2.1.197 and 2.1.331 have no Grep
 * or Glob: an agent listing them gets them silently dropped). test/e2e/claude-code.test.ts checks
 * the sidekick against the tools the real client sends.
 */
const AGENT_TOOLS = ['Read', 'Write', 'Edit', 'Bash', 'WebFetch', 'Agent', 'Skill'];
const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** YAML frontmatter of the simple `key: value` form Claude Code reads, and the body after it. */
function frontmatter(text: string): { fields: Record<string, string>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  assert.ok(m, 'starts with a frontmatter block');
  const fields: Record<string, string> = {};
  for (const line of m[1]!.split('\n')) {
    const kv = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
    assert.ok(kv, `frontmatter line "${line}" is key: value`);
    fields[kv[1]!] = kv[2]!;
  }
  return { fields, body: m[2]! };
}

/** Paths after `${CLAUDE_PLUGIN_ROOT}/` in every string of a JSON value. */
function rootPaths(v: unknown): string[] {
  if (typeof v === 'string') return [...v.matchAll(/\$\{CLAUDE_PLUGIN_ROOT\}\/([^"'\s]+)/g)].map((m) => m[1]!);
  return v && typeof v === 'object' ? Object.values(v).flatMap(rootPaths) : [];
}

function assertInside(rel: string, where: string): void {
  const full = path.resolve(ROOT, rel);
  assert.ok(full.startsWith(ROOT + path.sep), `${where} names ${rel}, outside the plugin`);
  assert.ok(fs.existsSync(full), `${where} names ${rel}, which the built plugin lacks`);
}

describe('the built plugin follows the documented format', () => {
  const pkg = JSON.parse(fs.readFileSync(repoRoot('package.json'), 'utf8')) as { version: string };

  it('plugin.json: documented fields, name memory, version 1.2.0 like the package', () => {
    const m = json('.claude-plugin/plugin.json');
    for (const k of Object.keys(m)) assert.ok(PLUGIN_FIELDS.includes(k), `plugin.json field ${k} is not documented`);
    assert.equal(m.name, 'memory');
    assert.match(m.name, KEBAB);
    assert.equal(m.version, '1.2.0');
    assert.equal(m.version, pkg.version);
    assert.equal(typeof m.description, 'string');
    assert.equal(typeof m.author.name, 'string');
    assert.deepEqual(fs.readdirSync(path.join(ROOT, '.claude-plugin')).sort(), ['marketplace.json', 'plugin.json']);
  });

  it('marketplace.json: a local marketplace whose one entry is this folder', () => {
    const mk = json('.claude-plugin/marketplace.json');
    for (const k of Object.keys(mk)) assert.ok(MARKETPLACE_FIELDS.includes(k), `marketplace.json field ${k} is not documented`);
    assert.match(mk.name, KEBAB);
    assert.ok(!RESERVED_MARKETPLACES.includes(mk.name));
    assert.equal(typeof mk.owner.name, 'string');
    assert.equal(mk.plugins.length, 1);
    const entry = mk.plugins[0];
    for (const k of Object.keys(entry)) assert.ok(ENTRY_FIELDS.includes(k), `plugin entry field ${k} is not documented`);
    assert.equal(entry.name, 'memory');
    assert.match(entry.source, /^\.\//, 'a relative source starts with ./');
    assert.equal(path.resolve(ROOT, entry.source), ROOT);
    assert.equal(entry.version, json('.claude-plugin/plugin.json').version);
  });

  it('hooks.json: SessionStart and SessionEnd commands inside the plugin, every other event an mcp_tool hook to the plugin\'s own server', () => {
    const doc = json('hooks/hooks.json');
    const mcp = json('.mcp.json');
    const plugin = json('.claude-plugin/plugin.json');
    assert.deepEqual(Object.keys(doc).sort(), ['description', 'hooks']);
    assert.deepEqual(Object.keys(doc.hooks).sort(), [...CAPTURE_EVENTS].sort(), 'one entry per event the daemon accepts');
    for (const [event, groups] of Object.entries(doc.hooks as Record<string, any[]>)) {
      assert.ok(HOOK_EVENTS.includes(event), `${event} is not a hook event`);
      for (const g of groups) {
        for (const k of Object.keys(g)) assert.ok(['matcher', 'hooks'].includes(k), `${event}: unknown key ${k}`);
        for (const h of g.hooks) {
          assert.ok(typeof h.timeout === 'number' && h.timeout > 0 && h.timeout <= 5, `${event} fails fast`);
          assert.notEqual(h.async, true, `${event} is synchronous: \`claude -p\` kills async hooks as it exits`);
          if (event === 'SessionStart' || event === 'SessionEnd') {
            // Claude Code connects MCP servers after SessionStart and closes them before SessionEnd.
            for (const k of Object.keys(h)) assert.ok(['type', 'command', 'timeout'].includes(k), `${event}: unknown handler key ${k}`);
            assert.equal(h.type, 'command');
            const script = `SERVICE_HOOK_CA_CERTS="\\$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= node "\\$\\{CLAUDE_PLUGIN_ROOT\\}\\/hooks\\/[a-z-]+\\.cjs"`;
            // Handed to a process in the background, its stdin kept: no session waits for it (sh gives a
            // background command /dev/null for stdin unless it is passed on explicitly, here through fd 3).
            assert.match(h.command, new RegExp(`^exec 3<&0; ${script} <&3 3<&- >/dev/null 2>&1 &$`));
            for (const rel of rootPaths(h.command)) assertInside(rel, `hooks.json ${event}`);
            continue;
          }
          for (const k of Object.keys(h)) assert.ok(['type', 'server', 'tool', 'input', 'timeout'].includes(k), `${event}: unknown handler key ${k}`);
          assert.equal(h.type, 'mcp_tool');
          assert.equal(h.server, `plugin:${plugin.name}:${Object.keys(mcp.mcpServers)[0]}`, 'Claude Code names a plugin\'s server plugin:<plugin>:<server>');
          assert.equal(h.tool, 'hook');
          assert.equal(h.input.event, '${hook_event_name}');
          for (const [k, v] of Object.entries(h.input)) if (k !== 'event') assert.equal(v, `\${${k}}`, `${event}: ${k} is the hook input's own field`);
          for (const field of ['session_id', 'transcript_path', 'cwd']) assert.ok(field in h.input, `${event} passes ${field}`);
        }
      }
    }
    assert.ok('prompt' in doc.hooks.UserPromptSubmit[0].hooks[0].input);
    for (const field of ['tool_name', 'tool_input', 'tool_response']) assert.ok(field in doc.hooks.PostToolUse[0].hooks[0].input);
    assert.ok('last_assistant_message' in doc.hooks.Stop[0].hooks[0].input);
  });

  it('.mcp.json: the memory server runs the bundled file with node, started like the hooks (no NODE_EXTRA_CA_CERTS)', () => {
    const doc = json('.mcp.json');
    assert.deepEqual(Object.keys(doc), ['mcpServers']);
    assert.deepEqual(Object.keys(doc.mcpServers), ['memory']);
    const s = doc.mcpServers.memory;
    assert.equal(s.command, '/bin/sh');
    assert.deepEqual(s.args.slice(0, 2), ['-c', 'SERVICE_HOOK_CA_CERTS="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= exec node "$0"']);
    assert.deepEqual(rootPaths(s.args), ['mcp/server.cjs']);
    for (const rel of rootPaths(s)) assertInside(rel, '.mcp.json');
  });

  it('commands: six, documented frontmatter, permissions scoped to exactly the service commands they run', () => {
    const names = fs.readdirSync(path.join(ROOT, 'commands')).sort();
    assert.deepEqual(names, ['forget.md', 'pause.md', 'remember.md', 'resume.md', 'search.md', 'status.md']);
    const cliCommands = COMMANDS.map((c) => c.path.join(' '));
    for (const name of names) {
      const { fields, body } = frontmatter(read(`commands/${name}`));
      for (const k of Object.keys(fields)) assert.ok(COMMAND_FIELDS.includes(k), `${name}: ${k} is not a command field`);
      assert.ok(fields.description && fields.description.length > 10, `${name} has a description`);
      assert.equal(body.includes('$ARGUMENTS'), 'argument-hint' in fields, `${name}: argument-hint exactly when it takes arguments`);
      if ('disable-model-invocation' in fields) assert.equal(fields['disable-model-invocation'], 'true');
      const allowed = fields['allowed-tools']!.split(',').map((t) => t.trim());
      const granted = allowed.map((t) => {
        const m = /^Bash\(service ([a-z]+(?: [a-z]+)*):\*\)$/.exec(t);
        assert.ok(m, `${name}: "${t}" is scoped to one service command`);
        assert.ok(cliCommands.includes(m[1]!), `${name}: "service ${m[1]}" is a CLI command`);
        return m[1]!;
      });
      const used = [...body.matchAll(/`!?service ([a-z][^`]*)`/g)].map((m) => {
        const words = m[1]!.split(/\s+/);
        const cmd = cliCommands.filter((c) => c.split(' ').every((w, i) => words[i] === w)).sort((a, b) => b.length - a.length)[0];
        assert.ok(cmd, `${name}: "service ${m[1]}" is a CLI command`);
        return cmd;
      });
      assert.ok(used.length > 0, `${name} runs the service CLI`);
      assert.deepEqual([...new Set(used)].sort(), [...new Set(granted)].sort(), `${name}: it may run exactly what it uses`);
    }
  });

  it('agents/sidekick.md: documented frontmatter, its tools exist, the memory tool by its real MCP name', async () => {
    assert.deepEqual(fs.readdirSync(path.join(ROOT, 'agents')), ['sidekick.md']);
    const { fields, body } = frontmatter(read('agents/sidekick.md'));
    for (const k of Object.keys(fields)) assert.ok(AGENT_FIELDS.includes(k), `sidekick: ${k} is not an agent field`);
    assert.equal(fields.name, 'sidekick');
    assert.ok(fields.description!.length > 40);
    assert.ok(['inherit', 'sonnet', 'opus', 'haiku'].includes(fields.model!));
    assert.match(body, /only/i, 'it says it returns only its findings');
    // A copy outside the repository: the bundled server needs no node_modules.
    const scratch = tempDir('plugin-copy-');
    const copy = path.join(scratch, 'memory');
    fs.cpSync(ROOT, copy, { recursive: true });
    const client = await new ClaudeCodeSim(copy, testEnv(path.join(scratch, 'home')), scratch).mcp('memory');
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      const mcpNames = tools.map((t) => `mcp__plugin_${json('.claude-plugin/plugin.json').name}_memory__${t}`);
      const agentTools = fields.tools!.split(',').map((t) => t.trim());
      for (const t of agentTools) assert.ok(AGENT_TOOLS.includes(t) || mcpNames.includes(t), `sidekick tool ${t} exists`);
      assert.ok(agentTools.includes('mcp__plugin_memory_memory__search'), 'it can search memory');
      assert.ok(body.includes('mcp__plugin_memory_memory__search'));
    } finally {
      await client.close();
    }
  });

  it('is self-contained: bundles require only node: built-ins, no file points outside, nothing to install', () => {
    const all = files(ROOT);
    assert.ok(!all.some((f) => /package\.json$|node_modules/.test(f)), 'no package to install');
    for (const f of all) {
      const text = fs.readFileSync(f, 'utf8');
      assert.ok(!text.includes(repoRoot()), `${path.relative(ROOT, f)} names the source checkout`);
      if (!f.endsWith('.cjs')) continue;
      const bad = [...text.matchAll(/(?<![\w.$'"`])require\("([^"]+)"\)/g)].map((m) => m[1]).filter((m) => !m!.startsWith('node:'));
      assert.deepEqual(bad, [], `${path.relative(ROOT, f)} requires only node: built-ins`);
    }
    for (const hook of CAPTURE_EVENTS) assertInside(`hooks/${hook.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}.cjs`, 'the hook bundles');
  });
});
