/**
 * What every hook does: hand the event to the daemon over its socket and, for recall, answer with
 * the context the way Claude Code expects (`handleHookEvent`). A hook script (`runHook`) reads the
 * event from stdin and prints the answer; the plugin's MCP server calls the same function for its
 * mcp_tool hooks (plugin/mcp/hook-tool.ts). Hooks never block the agent and never fail it: every
 * path ends in exit 0 (or an empty answer), silently, within the timeout.
 *
 * - capture (SessionStart, PostToolUse, PostToolUseFailure, SubagentStop): a connection reset
 *   mid-request is retried once; an event that cannot be handed over (daemon down or starting, reset
 *   twice, journal refused) goes to the durable spool (hooks/lib/spool.ts) and the daemon is
 *   started: it ingests the spool. Every event carries a capture id, so one sent twice is journaled
 *   once. Through the MCP server (Claude Code waits for it) the request budget is the final one.
 * - final (Stop, PreCompact, SessionEnd): the same journal append with a shorter request budget.
 *   No hook is `async` in hooks.json: `claude -p` kills async hooks as it exits, and with them the
 *   session's last events; SessionStart and SessionEnd hand their event to a background process.
 * - recall (UserPromptSubmit): one short attempt; if the daemon is down, the prompt is spooled for
 *   capture, the daemon started for next time, and nothing printed now.
 */
import fs from 'node:fs';
import path from 'node:path';
import { post, Reset, Unreachable } from './http.js';
import { hookSocketPath, serviceHome } from './paths.js';
import { boolSetting, hookSettings } from './settings.js';
import { CAPTURE_ID_FIELD, newCaptureId, spoolEvent } from './spool.js';

export type HookKind = 'capture' | 'final' | 'recall';

/** Keep below Claude Code's 10,000-character cap on hook output. */
const MAX_OUTPUT = 9500;
/** Don't try to start a failing daemon more than once per this many ms. */
const SPAWN_BACKOFF_MS = 10_000;

/**
 * The environment Claude Code gave the hook command (daemon/process-env.ts `callerCaEnv`, repeated
 * here: hooks import nothing of ours). hooks.json starts Node with
 * NODE_EXTRA_CA_CERTS emptied (Node 18-22 load that file at every start, before any script runs:
 * ~30 ms per hook, and a hook only talks to a local socket) and its value saved in
 * SERVICE_HOOK_CA_CERTS; a daemon started from here gets it back (it syncs and downloads over TLS).
 */
export function callerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!('SERVICE_HOOK_CA_CERTS' in env)) return env;
  const out: NodeJS.ProcessEnv = { ...env };
  const saved = out.SERVICE_HOOK_CA_CERTS;
  delete out.SERVICE_HOOK_CA_CERTS;
  if (saved) out.NODE_EXTRA_CA_CERTS = saved;
  else delete out.NODE_EXTRA_CA_CERTS;
  return out;
}

/** The daemon's process environment: daemon/process-env.ts `daemonProcessEnv`, repeated here. */
export function daemonProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [k, v] of Object.entries({ MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '65536', MALLOC_MMAP_THRESHOLD_: '65536' })) if (out[k] === undefined) out[k] = v;
  const opts = out.NODE_OPTIONS ?? '';
  const add = ['--max-semi-space-size=2', '--expose-gc'].filter((flag) => !opts.includes(flag.split('=')[0]!));
  if (add.length > 0) out.NODE_OPTIONS = [opts, ...add].join(' ').trim();
  return out;
}

function readStdin(timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    if (process.stdin.isTTY) {
      resolve('');
      return;
    }
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => resolve(Buffer.concat(chunks).toString('utf8')), timeoutMs);
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    process.stdin.on('error', () => {
      clearTimeout(timer);
      resolve('');
    });
  });
}

/** The `service` CLI to start the daemon with: SERVICE_CLI, the plugin's service.json, or PATH. */
function cliCommand(env: NodeJS.ProcessEnv): { cmd: string; args: string[] } {
  if (env.SERVICE_CLI) return { cmd: process.execPath, args: [env.SERVICE_CLI] };
  try {
    const dir = path.dirname(process.argv[1] ?? '.');
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, '..', 'service.json'), 'utf8')) as { cli?: string; node?: string };
    // `node` is the Node.js the CLI was installed with (it may need a newer one than the hooks).
    if (cfg.cli && fs.existsSync(cfg.cli)) return { cmd: cfg.node && fs.existsSync(cfg.node) ? cfg.node : process.execPath, args: [cfg.cli] };
  } catch {
    // no plugin config
  }
  return { cmd: 'service-cli', args: [] };
}

/**
 * Start the daemon in the background (detached; resolves once it is spawned, not once it runs).
 * Rate-limited by a marker file. node:child_process is loaded here, not at start: only a hook that
 * finds no daemon needs it.
 */
export async function startDaemon(home: string, env: NodeJS.ProcessEnv): Promise<void> {
  const marker = path.join(home, 'state', 'spawn.at');
  try {
    const last = Number(fs.readFileSync(marker, 'utf8'));
    if (Date.now() - last < SPAWN_BACKOFF_MS) return;
  } catch {
    // never spawned
  }
  try {
    fs.mkdirSync(path.dirname(marker), { recursive: true, mode: 0o700 });
    fs.writeFileSync(marker, String(Date.now()));
    const { cmd, args } = cliCommand(env);
    const { spawn } = await import('node:child_process');
    const child = spawn(cmd, [...args, 'daemon', 'run', '--background'], { detached: true, stdio: 'ignore', env: daemonProcessEnv(callerEnv(env)) });
    child.on('error', () => {});
    child.unref();
  } catch {
    // nothing more a hook can do
  }
}

function output(event: string, context: string): string {
  const text = context.length > MAX_OUTPUT ? context.slice(0, MAX_OUTPUT) : context;
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
}

/**
 * An event must not be lost for want of a session id: Claude Code has handed some hooks an empty
 * stdin (an async SessionEnd on 2.1.197). Then the id comes from CLAUDE_CODE_SESSION_ID when the
 * hook's environment has it, and the working directory is sent so the daemon can attribute the
 * event to the latest session there (it logs that it did). `session_id_source` says which.
 */
export function withSessionFallback(payload: Record<string, unknown>, env: NodeJS.ProcessEnv, raw: string): void {
  if (typeof payload.session_id === 'string' && payload.session_id) return;
  if (typeof payload.cwd !== 'string') payload.cwd = env.CLAUDE_PROJECT_DIR || process.cwd();
  const fromEnv = env.CLAUDE_CODE_SESSION_ID;
  if (fromEnv) payload.session_id = fromEnv;
  payload.session_id_source = fromEnv ? 'env' : 'cwd';
  payload.stdin_bytes = Buffer.byteLength(raw);
}

/**
 * How each Claude Code event is handled: UserPromptSubmit answers with recall (opening the session
 * with its SessionStart block the first time), the others are captured.
 */
export function hookKind(eventName: string): HookKind {
  if (eventName === 'UserPromptSubmit') return 'recall';
  if (eventName === 'Stop' || eventName === 'PreCompact' || eventName === 'SessionEnd') return 'final';
  return 'capture';
}

/**
 * Hand one hook event to the daemon; what the hook prints (recall context, else nothing). Never
 * throws. `raw` is the stdin the event came from (for the session-id fallback's log).
 * `synchronous`: Claude Code waits for this call (the MCP server's hook tool), so a capture gets the
 * final hooks' short budget rather than the async hooks' longer one.
 */
export async function handleHookEvent(kind: HookKind, eventName: string, payload: Record<string, unknown>, env: NodeJS.ProcessEnv, raw = '', synchronous = false): Promise<string> {
  try {
    if (typeof payload.hook_event_name !== 'string' || !payload.hook_event_name) payload.hook_event_name = eventName;
    withSessionFallback(payload, env, raw);
    if (typeof payload[CAPTURE_ID_FIELD] !== 'string') payload[CAPTURE_ID_FIELD] = newCaptureId();
    const home = serviceHome(env);
    const socket = await hookSocketPath(home);
    const setting = hookSettings(env, home);
    // SERVICE_AUTOSTART=false: events wait in the spool until the user starts the daemon.
    const start = (): Promise<void> => (boolSetting(setting('SERVICE_AUTOSTART'), true) ? startDaemon(home, env) : Promise.resolve());
    if (kind === 'recall') {
      const timeout = Number(setting('SERVICE_RECALL_TIMEOUT_MS')) || (eventName === 'SessionStart' ? 1500 : 800);
      try {
        const r = await post(socket, '/v1/recall', payload, timeout);
        if (r.status === 200) {
          const answer = JSON.parse(r.body) as { context?: string; capture_refused?: boolean };
          if (answer.capture_refused) spoolEvent(home, payload);
          const ctx = answer.context ?? '';
          return ctx ? output(eventName, ctx) : '';
        }
      } catch (err) {
        // The prompt is still captured: the daemon ingests the spool when it is back.
        if (err instanceof Unreachable || err instanceof Reset) spoolEvent(home, payload);
        if (err instanceof Unreachable) await start();
      }
      return '';
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await post(socket, '/v1/capture', payload, kind === 'final' || synchronous ? 2000 : 5000);
        // 503: the journal refused the write (a full disk); the spool may still have room.
        if (r.status === 503) spoolEvent(home, payload);
        return '';
      } catch (err) {
        if (err instanceof Reset && attempt === 0) {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        spoolEvent(home, payload);
        if (err instanceof Unreachable || err instanceof Reset) await start();
        return '';
      }
    }
  } catch {
    // Never fail the agent.
    return '';
  }
}

/** A hook script: the event from stdin, its answer (if any) on stdout. */
export async function runHook(kind: HookKind, eventName: string): Promise<void> {
  try {
    const raw = await readStdin(2000);
    let payload: Record<string, unknown> = {};
    try {
      const v = JSON.parse(raw || '{}') as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) payload = v as Record<string, unknown>;
    } catch {
      // not JSON: send what we know
    }
    const out = await handleHookEvent(kind, eventName, payload, process.env, raw);
    if (out) await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
  } catch {
    // Never fail the agent.
  }
}
