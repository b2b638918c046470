/**
 * Plays a plugin the way Claude Code does, from its own files: hooks from `hooks/hooks.json`
 * (the plugin variables substituted, the event JSON on stdin, matchers applied, synchronous hooks
 * awaited and killed at their timeout, `async` hooks started and not awaited), and the MCP
 * servers of `.mcp.json` over stdio with the SDK's client.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface HookHandler {
  type: string;
  command: string;
  timeout?: number;
  async?: boolean;
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

function matches(matcher: string | undefined, target: string | null): boolean {
  if (!matcher || matcher === '*' || target === null) return true;
  return new RegExp(`^(?:${matcher})$`).test(target);
}

export class ClaudeCodeSim {
  readonly hooks: HooksDoc;
  private readonly background: Promise<HookRun>[] = [];

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
      const child = spawn('/bin/sh', ['-c', substitute(handler.command, this.vars)], { cwd: this.projectDir, env: { ...this.env, ...this.vars }, stdio: ['pipe', 'pipe', 'pipe'] });
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

  /**
   * Fire one event: every matching handler starts with the event JSON on stdin. Synchronous
   * handlers are awaited (their runs are returned); async ones run on in the background.
   */
  async fire(event: string, payload: Record<string, unknown>): Promise<HookRun[]> {
    const input = JSON.stringify(payload);
    const sync: Promise<HookRun>[] = [];
    for (const group of this.hooks.hooks[event] ?? []) {
      if (!matches(group.matcher, matchTarget(event, payload))) continue;
      for (const h of group.hooks) {
        if (h.type !== 'command') continue;
        const run = this.runOne(event, h, input);
        if (h.async) this.background.push(run);
        else sync.push(run);
      }
    }
    return Promise.all(sync);
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
