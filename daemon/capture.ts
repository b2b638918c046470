/**
 * Hook events → journal entries. Everything textual is redacted before it is journaled, and only
 * the fields extraction needs are kept (long tool output is clipped). Also decides what is never
 * captured: sessions working inside the data dir, and the project's own sidekick subagent.
 */
import path from 'node:path';
import { redact, redactValue } from '../engine/index.js';
import { blockText } from './transcript-lines.js';

/** Events the daemon accepts from hooks. */
export const CAPTURE_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SubagentStop', 'PreCompact', 'SessionEnd'] as const;
export type CaptureEventName = (typeof CAPTURE_EVENTS)[number];

/** Events after which the session is flushed. */
export const FLUSH_EVENTS: ReadonlySet<string> = new Set(['Stop', 'PreCompact', 'SessionEnd']);

const MAX_TEXT = 8000;
const MAX_TOOL_TEXT = 2000;

/** How a clipped text ends (`clip`). */
export const CLIPPED = /…\[\d+ more characters\]$/;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…[${text.length - max} more characters]` : text;
}

function clean(value: unknown, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  // Redact the decoded value field by field before serialising it (serialised JSON escapes line
  // starts and quotes the rules anchor on), and before clipping, so a secret straddling the cut
  // is still found whole.
  const text = typeof value === 'string' ? redact(value).text : JSON.stringify(redactValue(value));
  if (text === undefined) return undefined;
  return clip(text, max);
}

/**
 * What a tool printed, from Claude Code's `tool_response`: a shell's stdout and stderr, an MCP tool's
 * text blocks, a read file's content; any other shape as it is (serialised by `clean`).
 */
function responseText(response: unknown): unknown {
  if (!response || typeof response !== 'object') return response;
  const r = response as { stdout?: unknown; stderr?: unknown; content?: unknown; file?: { content?: unknown } };
  if (typeof r.stdout === 'string') return [r.stdout, typeof r.stderr === 'string' ? r.stderr : ''].filter((t) => t.trim()).join('\n');
  const blocks = Array.isArray(r.content) ? blockText(r.content) : '';
  if (blocks) return blocks;
  if (typeof r.file?.content === 'string') return r.file.content;
  return response;
}

/** A short description of a tool call's input (the command, the file), redacted. */
function toolInput(tool: string | undefined, input: unknown): string | undefined {
  if (!input || typeof input !== 'object') return clean(input, 500);
  const i = input as Record<string, unknown>;
  const summary = i.command ?? i.file_path ?? i.path ?? i.pattern ?? i.url ?? i.query ?? i.description;
  return clean(summary ?? input, tool === 'Bash' ? 1000 : 500);
}

export interface CaptureDecision {
  capture: boolean;
  reason?: 'data_dir' | 'sidekick' | 'paused' | 'own_tool';
}

/** The memory service's own tools: what they print is memories already stored (or our status). */
const OWN_MCP_TOOL = /^mcp__(plugin_)?memory_/;
const OWN_CLI = /^\s*(?:\S*\/)?service\s+(?:search|status|remember|forget|pause|resume|history|export|import|plugin|daemon|sync|keys|tui)\b/;

function ownTool(payload: Record<string, unknown>): boolean {
  const tool = typeof payload.tool_name === 'string' ? payload.tool_name : '';
  if (OWN_MCP_TOOL.test(tool)) return true;
  const input = payload.tool_input as { command?: unknown } | undefined;
  return tool === 'Bash' && typeof input?.command === 'string' && OWN_CLI.test(input.command);
}

/** Whether this event may be captured at all (before pause is considered). */
export function excluded(payload: Record<string, unknown>, home: string): CaptureDecision {
  const cwd = typeof payload.cwd === 'string' ? payload.cwd : null;
  if (cwd) {
    const rel = path.relative(path.resolve(home), path.resolve(cwd));
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return { capture: false, reason: 'data_dir' };
  }
  const agent = [payload.agent_type, payload.subagent_type, payload.agent_name].find((v) => typeof v === 'string') as string | undefined;
  if (agent && /(^|[:/])sidekick$/i.test(agent)) return { capture: false, reason: 'sidekick' };
  if (ownTool(payload)) return { capture: false, reason: 'own_tool' };
  return { capture: true };
}

/** The redacted, trimmed payload kept in the journal. */
export function journalPayload(event: string, p: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown): void => {
    if (v !== undefined) out[k] = v;
  };
  put('cwd', typeof p.cwd === 'string' ? p.cwd : undefined);
  put('transcript_path', typeof p.transcript_path === 'string' ? p.transcript_path : undefined);
  switch (event) {
    case 'SessionStart':
      put('source', typeof p.source === 'string' ? p.source : undefined);
      break;
    case 'UserPromptSubmit':
      put('prompt', clean(p.prompt, MAX_TEXT));
      break;
    case 'PostToolUse':
    case 'PostToolUseFailure': {
      const tool = typeof p.tool_name === 'string' ? p.tool_name : undefined;
      put('tool', tool);
      put('input', toolInput(tool, p.tool_input));
      put('ok', event === 'PostToolUse');
      put('tool_use_id', typeof p.tool_use_id === 'string' && p.tool_use_id ? p.tool_use_id : undefined);
      put('output', clean(responseText(p.tool_response ?? p.tool_result), MAX_TOOL_TEXT));
      put('error', clean(p.error ?? p.error_message, MAX_TOOL_TEXT));
      break;
    }
    case 'Stop':
    case 'SubagentStop':
      put('message', clean(p.last_assistant_message, MAX_TEXT));
      put('agent_type', typeof p.agent_type === 'string' ? p.agent_type : undefined);
      // The subagent's own transcript (Claude Code ≥ 2.0.42): read whole at the next flush.
      put('agent_transcript_path', event === 'SubagentStop' && typeof p.agent_transcript_path === 'string' ? p.agent_transcript_path : undefined);
      break;
    case 'PreCompact':
      put('trigger', typeof p.trigger === 'string' ? p.trigger : undefined);
      break;
    case 'SessionEnd':
      put('reason', typeof p.reason === 'string' ? p.reason : undefined);
      break;
  }
  return out;
}
