/**
 * Running the programs the plugin depends on: Claude Code's `claude` CLI and the `node` the hooks
 * run with, both found on PATH, each with a timeout so a hung program cannot hang the CLI.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Env } from '../../engine/index.js';

/**
 * Oldest Claude Code the plugin supports: its capture hooks use `async: true` and the
 * PostToolUseFailure event, both from the 2.1 line.
 */
export const MIN_CLAUDE_VERSION = '2.1.0';
/** SPEC §8: the plugin runtime (hooks, MCP server) needs Node.js 18 or later. */
export const MIN_NODE_MAJOR = 18;

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The executable `name` on env.PATH, or null. */
export function onPath(name: string, env: Env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

export function runProgram(file: string, args: string[], env: Env, timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { env: env as NodeJS.ProcessEnv, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (err && code === 1 && !stdout ? err.message : '') });
    });
  });
}

/** "2.1.9 (Claude Code)" → "2.1.9"; null when no version is in the text. */
export function parseVersion(text: string): string | null {
  return /\d+\.\d+\.\d+/.exec(text)?.[0] ?? null;
}

/** Negative when a < b, 0 when equal, positive when a > b (numeric x.y.z). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export interface ProgramInfo {
  path: string | null;
  version: string | null;
}

/** `claude` on PATH and its version. */
export async function claudeInfo(env: Env): Promise<ProgramInfo> {
  const file = onPath('claude', env);
  if (!file) return { path: null, version: null };
  const r = await runProgram(file, ['--version'], env, 20_000);
  return { path: file, version: r.code === 0 ? parseVersion(r.stdout) : null };
}

/** `node` on PATH (what the hooks and the MCP server run with) and its version. */
export async function nodeInfo(env: Env): Promise<ProgramInfo> {
  const file = onPath('node', env);
  if (!file) return { path: null, version: null };
  const r = await runProgram(file, ['--version'], env, 20_000);
  return { path: file, version: r.code === 0 ? parseVersion(r.stdout) : null };
}

/** Run `claude <args>`; failures come back as results, not exceptions. */
export function runClaude(claude: string, args: string[], env: Env): Promise<RunResult> {
  return runProgram(claude, args, env, 120_000);
}
