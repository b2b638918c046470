/**
 * What the daemon benchmark sends: Claude Code hook payloads (UserPromptSubmit with a realistic
 * prompt, PostToolUse with a Bash command and its output) and, for the flush measurement, whole
 * sessions of captured events whose prompts and conclusions carry decisions and conventions.
 * Deterministic for a seed; every prompt is distinct, so the engine's query cache never helps.
 */
import { fragment, query } from './corpus.js';
import type { Rng } from './rng.js';

const OPENERS = ['Before you change anything, remind me', 'Quick question', 'Can you check', 'I need to know', 'Looking at the failing build', 'Next task', 'While you are in there'];
const CLOSERS = ['? Then fix the tests.', ', and update the docs if needed.', '? Keep the diff small.', '. Show me the relevant files first.', '?'];

export function promptText(r: Rng, i: number): string {
  return `${r.pick(OPENERS)}: ${query(r)}${r.pick(CLOSERS)} (task ${i})`;
}

export interface HookContext {
  session_id: string;
  cwd: string;
  transcript_path: string;
}

export function userPromptSubmit(ctx: HookContext, prompt: string): Record<string, unknown> {
  return { ...ctx, permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt };
}

const OUTPUT_LINES = ['> test', '> node --test dist/test/', '✔ parses the config (2.1ms)', '✔ retries with backoff (15.3ms)', '✔ keeps the lockfile deterministic (4.8ms)', 'ℹ tests 48', 'ℹ pass 48', 'ℹ fail 0', 'ℹ duration_ms 2113.4'];

export function postToolUse(ctx: HookContext, r: Rng, i: number): Record<string, unknown> {
  const stdout = Array.from({ length: 24 }, (_, k) => `${OUTPUT_LINES[(i + k) % OUTPUT_LINES.length]}`).join('\n');
  return {
    ...ctx,
    permission_mode: 'default',
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: r.pick(['npm test', 'pnpm lint', 'git status', 'npx tsc -p .', 'ls src']), description: `step ${i}` },
    tool_response: { stdout, stderr: '', interrupted: false, isImage: false },
  };
}

/**
 * One agent session as the capture hooks would journal it: prompts stating decisions and
 * conventions, tool runs, and the agent's conclusions (SubagentStop carries a message without
 * triggering a flush, so the benchmark decides when to flush).
 */
export function sessionEvents(ctx: HookContext, r: Rng): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  for (let k = 0; k < 3; k++) {
    events.push(userPromptSubmit(ctx, `We decided this: ${fragment(r)} ${fragment(r)}`));
    events.push(postToolUse(ctx, r, k));
    events.push(postToolUse(ctx, r, k + 1));
    events.push({ ...ctx, hook_event_name: 'SubagentStop', agent_type: 'general-purpose', last_assistant_message: `Done. Decision: ${fragment(r)}` });
  }
  return events;
}
