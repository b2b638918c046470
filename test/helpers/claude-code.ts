/**
 * Plays a plugin the way Claude Code does, from its own files: hooks from `hooks/hooks.json`
 * (the plugin variables substituted, matchers applied; `command` hooks with the event JSON on
 * stdin, synchronous ones awaited and killed at their timeout, `async` ones started and not awaited;
 * `mcp_tool` hooks as a tool call to the plugin's MCP server, started once for the session the
 * first time a hook needs it and closed before SessionEnd, its arguments filled from the event by
 * `${field}` templates), and the MCP servers of `.mcp.json` over stdio with the SDK's client.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface HookHandler {
  type: string;
  command?: string;
  timeout?: number;
  async?: boolean;
  /** mcp_tool: the MCP server as Claude Code names it (`plugin:<plugin>:<server>`), the tool, its templated input. */
  server?: string;
  tool?: string;
  input?: Record<string, unknown>;
}

export interface HooksDoc {
  description?: string;
  hooks: Record<string, { matcher?: string; hooks: HookHandler[] }[]>;
}

export interface HookRun {
  event: string;
  async: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Killed at its timeout. */
  timedOut: boolean;
  /** The hooks.json timeout in seconds (Claude Code's default: 600). */
  timeoutS: number;
}

/** `${CLAUDE_PLUGIN_ROOT}` and friends, as Claude Code substitutes them. */
export function substitute(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

/** What a matcher is compared with, per event (events without one match every handler group). */
function matchTarget(event: string, payload: Record<string, unknown>): string | null {
  if (event === 'PostToolUse' || event === 'PostToolUseFailure' || event === 'PreToolUse') return String(payload.tool_name ?? '');
  if (event === 'SessionStart') return String(payload.source ?? '');
  if (event === 'PreCompact') return String(payload.trigger ?? '');
  if (event === 'SessionEnd') return String(payload.reason ?? '');
  return null;
}

/**
 * An mcp_tool hook's arguments, as Claude Code fills them: in every string, `${a.b}` becomes that
 * field of the hook input (objects as JSON, a missing field as "").
 */
export function fillTemplate(value: unknown, input: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([a-zA-Z_][a-zA-Z0-9_.]*)\}/g, (_m, ref: string) => {
      let v: unknown = input;
      for (const part of ref.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
      if (v === undefined || v === null) return '';
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fillTemplate(v, input));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillTemplate(v, input)]));
  return value;
}

function matches(matcher: string | undefined, target: string | null): boolean {
  if (!matcher || matcher === '*' || target === null) return true;
  return new RegExp(`^(?:${matcher})$`).test(target);
}

export class ClaudeCodeSim {
  readonly hooks: HooksDoc;
  private readonly background: Promise<HookRun>[] = [];
  /** The session's MCP servers that mcp_tool hooks reach, by Claude Code's name for them. */
  private readonly hookServers = new Map<string, Promise<Client>>();

  constructor(
    readonly pluginRoot: string,
    readonly env: NodeJS.ProcessEnv,
    readonly projectDir: string,
  ) {
    this.hooks = JSON.parse(fs.readFileSync(path.join(pluginRoot, 'hooks', 'hooks.json'), 'utf8')) as HooksDoc;
  }

  private get vars(): Record<string, string> {
    return { CLAUDE_PLUGIN_ROOT: this.pluginRoot, CLAUDE_PROJECT_DIR: this.projectDir };
  }

  private runOne(event: string, handler: HookHandler, input: string): Promise<HookRun> {
    const timeoutS = handler.timeout ?? 600;
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const child = spawn('/bin/sh', ['-c', substitute(handler.command ?? '', this.vars)], { cwd: this.projectDir, env: { ...this.env, ...this.vars }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutS * 1000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ event, async: handler.async === true, code, stdout, stderr, ms: performance.now() - t0, timedOut, timeoutS });
      });
      child.stdin.end(input);
    });
  }

  /** An mcp_tool hook: the tool called on the session's server, its text content as the hook's stdout. */
  private async callTool(event: string, handler: HookHandler, payload: Record<string, unknown>): Promise<HookRun> {
    const timeoutS = handler.timeout ?? 600;
    const t0 = performance.now();
    try {
      const res = (await (await this.hookServer(handler.server ?? '')).callTool({ name: handler.tool ?? '', arguments: fillTemplate(handler.input ?? {}, payload) as Record<string, unknown> }, undefined, { timeout: timeoutS * 1000 })) as { content?: { type: string; text?: string }[]; isError?: boolean };
      const stdout = (res.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`)).join('\n');
      return { event, async: false, code: res.isError ? 1 : 0, stdout, stderr: res.isError ? stdout : '', ms: performance.now() - t0, timedOut: false, timeoutS };
    } catch (err) {
      const timedOut = /timed out|timeout/i.test(String(err));
      return { event, async: false, code: 1, stdout: '', stderr: String(err), ms: performance.now() - t0, timedOut, timeoutS };
    }
  }

  /**
   * Fire one event: every matching handler runs (commands with the event JSON on stdin, mcp_tool
   * hooks as a tool call). Synchronous handlers are awaited (their runs are returned); async ones
   * run on in the background. Before SessionEnd the session's MCP servers are closed, as Claude
   * Code closes them.
   */
  async fire(event: string, payload: Record<string, unknown>): Promise<HookRun[]> {
    if (event === 'SessionEnd') await this.close();
    const input = JSON.stringify(payload);
    const sync: Promise<HookRun>[] = [];
    for (const group of this.hooks.hooks[event] ?? []) {
      if (!matches(group.matcher, matchTarget(event, payload))) continue;
      for (const h of group.hooks) {
        if (h.type === 'mcp_tool') {
          sync.push(this.callTool(event, h, payload));
          continue;
        }
        if (h.type !== 'command') continue;
        const run = this.runOne(event, h, input);
        if (h.async) this.background.push(run);
        else sync.push(run);
      }
    }
    return Promise.all(sync);
  }

  /**
   * Start the MCP servers that the plugin's mcp_tool hooks call, as Claude Code connects them at
   * the start of a session (so the first hook does not pay for the start).
   */
  async connectHookServers(): Promise<void> {
    const names = new Set(Object.values(this.hooks.hooks).flatMap((groups) => groups.flatMap((g) => g.hooks.filter((h) => h.type === 'mcp_tool').map((h) => h.server ?? ''))));
    for (const name of names) await this.hookServer(name);
  }

  private hookServer(name: string): Promise<Client> {
    let client = this.hookServers.get(name);
    if (!client) {
      // Claude Code names a plugin's servers plugin:<plugin>:<server>.
      client = this.mcp(name.split(':').at(-1) ?? name);
      this.hookServers.set(name, client);
    }
    return client;
  }

  /** Close the MCP servers that hooks started (the session is over). */
  async close(): Promise<void> {
    const clients = [...this.hookServers.values()];
    this.hookServers.clear();
    for (const c of clients) await (await c.catch(() => null))?.close();
  }

  /** Wait for every async hook started so far; their runs. */
  async settle(): Promise<HookRun[]> {
    return Promise.all(this.background.splice(0));
  }

  /** Start an MCP server of `.mcp.json` as Claude Code does and connect the SDK's client. */
  async mcp(server: string, extraEnv: Record<string, string> = {}): Promise<Client> {
    const doc = JSON.parse(fs.readFileSync(path.join(this.pluginRoot, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args?: string[]; env?: Record<string, string> }> };
    const spec = doc.mcpServers[server];
    if (!spec) throw new Error(`.mcp.json has no server "${server}"`);
    const sub = (s: string): string => substitute(s, this.vars);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...this.env, ...Object.fromEntries(Object.entries(spec.env ?? {}).map(([k2, v2]) => [k2, sub(v2)])), ...extraEnv })) if (v !== undefined) env[k] = v;
    const transport = new StdioClientTransport({ command: sub(spec.command), args: (spec.args ?? []).map(sub), env, cwd: this.projectDir, stderr: 'pipe' });
    const client = new Client({ name: 'claude-code-sim', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }
}
