/**
 * A real Claude Code transcript turned back into what Claude Code did while writing it: the
 * transcript lines in order, and the hook events it fired between them (SessionStart, then per
 * typed prompt UserPromptSubmit, PostToolUse / PostToolUseFailure per tool result, PreCompact
 * before a compaction, Stop when the assistant finished the turn, SessionEnd at the end). Labels
 * written by hand beside each fixture say what a later session should know.
 */
import fs from 'node:fs';
import path from 'node:path';
import { COMMAND_NOISE, INTERRUPTED, type RawEntry, writtenByClaudeCode } from '../../daemon/transcript-lines.js';

export interface LabelFact {
  id: string;
  category: string;
  scope: 'project' | 'personal';
  text: string;
  /** Terms (lower case) a memory must all contain to count as this fact. */
  match: string[];
  /** Other wordings of the same fact: any one term list, all its terms present, also counts. */
  alt?: string[][];
}

export interface LabelQuestion {
  q: string;
  /** Terms an answer must all contain. */
  expect: string[];
  fact?: string;
  /**
   * The language the question is asked in when it is not English ("ja", "ko"): the same question
   * in the words of a user who types in that language. Each language's questions are asked in a
   * session of their own, so one cannot count what the other's recall already showed.
   */
  lang?: string;
}

export interface Labels {
  fixture: string;
  holdout: boolean;
  /**
   * Held out and added after the rules had been tuned against what the first held-out set showed:
   * reported apart, as "held out (new)". Labels written before any evaluation read the file.
   */
  unseen?: boolean;
  /**
   * Held out and added after the second round of tuning (which looked at the "new" set's misses):
   * reported apart, as "held out (newest)". Labels committed before any evaluation read the file.
   */
  newest?: boolean;
  /**
   * The set this fixture is reported in, as a column of its own named after it ("blind-1"). It
   * takes precedence over the flags above, which name the older sets (tuned, holdout, unseen, newest).
   */
  set?: string;
  /** Name of the repository the session worked in (sessions of one project share it). */
  repo: string;
  facts: LabelFact[];
  questions: LabelQuestion[];
  /** One-off requests typed in the session: never a memory. */
  oneOff: string[];
}

export interface Fixture {
  name: string;
  file: string;
  text: string;
  labels: Labels;
  /** First timestamp in the file (fixtures replay oldest first). */
  started: string;
}

/** Lines to append to the session's transcript (or, `to`, to another file: a subagent's), or a hook to fire. */
export type Step = { append: string[]; to?: string } | { hook: string; payload: Record<string, unknown> };


export const FIXTURE_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..', 'test', 'fixtures', 'transcripts');

export function loadFixtures(dir = FIXTURE_DIR, names?: readonly string[]): Fixture[] {
  const out: Fixture[] = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    const name = f.replace(/\.jsonl$/, '');
    if (names && !names.includes(name)) continue;
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    const labels = JSON.parse(fs.readFileSync(path.join(dir, `${name}.labels.json`), 'utf8')) as Labels;
    const started = /"timestamp":"([^"]+)"/.exec(text)?.[1] ?? '';
    out.push({ name, file: path.join(dir, f), text, labels, started });
  }
  return out.sort((a, b) => a.started.localeCompare(b.started) || a.name.localeCompare(b.name));
}

function promptOf(e: RawEntry): string | null {
  if (e.type !== 'user' || e.isSidechain || e.isMeta || e.isCompactSummary) return null;
  const c = e.message?.content;
  if (typeof c === 'string') return writtenByClaudeCode(c) ? null : c;
  if (!Array.isArray(c) || c.some((b: { type?: string }) => b?.type === 'tool_result')) return null;
  const text = c
    .filter((b: { type?: string; text?: string }) => b?.type === 'text' && typeof b.text === 'string')
    .map((b: { text?: string }) => b.text!)
    .join('\n');
  return text.trim() && !COMMAND_NOISE.test(text) && !INTERRUPTED.test(text.trim()) ? text : null;
}

function lastText(e: RawEntry): string | null {
  const c = e.message?.content;
  if (e.type !== 'assistant' || e.isSidechain || !Array.isArray(c)) return null;
  const t = c
    .filter((b: { type?: string }) => b?.type === 'text')
    .map((b: { text?: string }) => b.text ?? '')
    .join('\n')
    .trim();
  return t || null;
}

/** A subagent's own transcript: every message line is a sidechain. */
export function isAgentTranscript(lines: readonly string[]): boolean {
  const msgs = lines.map(safeParse).filter((e): e is RawEntry => e !== null && (e.type === 'user' || e.type === 'assistant'));
  return msgs.length > 0 && msgs.every((e) => e.isSidechain === true);
}

/**
 * A subagent's transcript as Claude Code writes and announces it: the parent session starts, the
 * subagent's lines go to `<session>/subagents/agent-<id>.jsonl` beside the parent's transcript
 * (which stays empty here: the fixture has only the subagent's side), its tool calls fire PostToolUse
 * in the parent's session, and SubagentStop names its transcript (agent_transcript_path).
 */
function agentSteps(lines: readonly string[], base: { session_id: string; cwd: string; transcript_path: string }): Step[] {
  const entries = lines.map(safeParse);
  const agentId = entries.map((e) => (e as { agentId?: unknown } | null)?.agentId).find((v): v is string => typeof v === 'string') ?? 'subagent';
  const file = path.join(path.dirname(base.transcript_path), path.basename(base.transcript_path, '.jsonl'), 'subagents', `agent-${agentId}.jsonl`);
  const steps: Step[] = [{ hook: 'SessionStart', payload: { ...base, hook_event_name: 'SessionStart', source: 'startup' } }];
  const tools = new Map<string, { name: string; input: unknown }>();
  let pending: string[] = [];
  let last: string | null = null;
  const flushLines = (): void => {
    if (pending.length > 0) steps.push({ append: pending, to: file });
    pending = [];
  };
  lines.forEach((line, i) => {
    pending.push(line);
    const e = entries[i];
    const content = e?.message?.content;
    if (!e || !Array.isArray(content)) return;
    if (e.type === 'assistant') {
      const t = content.filter((b: { type?: string }) => b?.type === 'text').map((b: { text?: string }) => b.text ?? '').join('\n').trim();
      if (t) last = t;
      for (const b of content as { type?: string; id?: string; name?: string; input?: unknown }[]) if (b?.type === 'tool_use' && b.id && b.name) tools.set(b.id, { name: b.name, input: b.input });
    }
    if (e.type === 'user') steps.push(...toolEvents(content, e.toolUseResult, tools, base, flushLines));
  });
  flushLines();
  steps.push({ hook: 'SubagentStop', payload: { ...base, hook_event_name: 'SubagentStop', stop_hook_active: false, agent_id: agentId, agent_transcript_path: file, ...(last ? { last_assistant_message: last } : {}) } });
  steps.push({ hook: 'SessionEnd', payload: { ...base, hook_event_name: 'SessionEnd', reason: 'other' } });
  return steps;
}

/**
 * PostToolUse / PostToolUseFailure for the tool results of one user line (the lines before them
 * appended first), as Claude Code fires them: with the call's `tool_use_id`, and the tool's own
 * response (the line's `toolUseResult`: a shell's stdout and stderr …) when the line holds one result.
 */
function toolEvents(content: unknown[], response: unknown, tools: ReadonlyMap<string, { name: string; input: unknown }>, base: Record<string, unknown>, flushLines: () => void): Step[] {
  const steps: Step[] = [];
  const results = (content as { type?: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[]).filter((b) => b?.type === 'tool_result');
  for (const b of results) {
    const call = b.tool_use_id ? tools.get(b.tool_use_id) : undefined;
    if (!call) continue;
    flushLines();
    const event = b.is_error ? 'PostToolUseFailure' : 'PostToolUse';
    const out = typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
    const said = b.is_error ? { error: out } : { tool_response: results.length === 1 && response && typeof response === 'object' ? response : out };
    steps.push({ hook: event, payload: { ...base, hook_event_name: event, tool_name: call.name, tool_input: call.input, tool_use_id: b.tool_use_id, ...said } });
  }
  return steps;
}

/**
 * The hook events of a session, interleaved with its transcript lines. `base` is what every
 * payload carries (session_id, cwd, transcript_path).
 */
export function replaySteps(text: string, base: { session_id: string; cwd: string; transcript_path: string }): Step[] {
  const lines = text.split('\n').filter((l) => l.trim());
  if (isAgentTranscript(lines)) return agentSteps(lines, base);
  const steps: Step[] = [{ hook: 'SessionStart', payload: { ...base, hook_event_name: 'SessionStart', source: 'startup' } }];
  const tools = new Map<string, { name: string; input: unknown }>();
  let pending: string[] = [];
  let open = false;
  let last: string | null = null;
  const flushLines = (): void => {
    if (pending.length > 0) steps.push({ append: pending });
    pending = [];
  };
  const stop = (): void => {
    if (!open) return;
    flushLines();
    steps.push({ hook: 'Stop', payload: { ...base, hook_event_name: 'Stop', stop_hook_active: false, ...(last ? { last_assistant_message: last } : {}) } });
    open = false;
  };
  lines.forEach((line) => {
    const e = safeParse(line);
    const prompt = e ? promptOf(e) : null;
    if (prompt !== null) {
      stop();
      flushLines();
      // Claude Code runs UserPromptSubmit before the prompt reaches the transcript.
      steps.push({ hook: 'UserPromptSubmit', payload: { ...base, hook_event_name: 'UserPromptSubmit', prompt } });
      pending.push(line);
      open = true;
      last = null;
      return;
    }
    if (e?.type === 'system' && (e as { subtype?: unknown }).subtype === 'compact_boundary') {
      // Claude Code runs PreCompact before it compacts (mid-turn when the context fills up).
      flushLines();
      const trigger = (e as { compactMetadata?: { trigger?: unknown } }).compactMetadata?.trigger;
      steps.push({ hook: 'PreCompact', payload: { ...base, hook_event_name: 'PreCompact', trigger: typeof trigger === 'string' ? trigger : 'auto', custom_instructions: '' } });
    }
    pending.push(line);
    if (!e) return;
    const t = lastText(e);
    if (t) last = t;
    const content = e.message?.content;
    if (e.type === 'assistant' && Array.isArray(content)) {
      for (const b of content as { type?: string; id?: string; name?: string; input?: unknown }[]) if (b?.type === 'tool_use' && b.id && b.name) tools.set(b.id, { name: b.name, input: b.input });
    }
    if (e.type === 'user' && !e.isSidechain && Array.isArray(content)) steps.push(...toolEvents(content, e.toolUseResult, tools, base, flushLines));
  });
  stop();
  flushLines();
  steps.push({ hook: 'SessionEnd', payload: { ...base, hook_event_name: 'SessionEnd', reason: 'other' } });
  return steps;
}

function safeParse(line: string): RawEntry | null {
  try {
    return JSON.parse(line) as RawEntry;
  } catch {
    return null;
  }
}
