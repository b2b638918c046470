/**
 * The MCP server's `hook` tool: Claude Code's `mcp_tool` hooks (hooks.json) call it with the hook
 * input's fields, and it does what the hook script for that event does (hooks/lib/run.ts
 * `handleHookEvent`): the event to the daemon's journal, recall context back as the hook's output.
 *
 * Why: a command hook starts a Node process per event (50-100 ms of CPU each on the agent's critical
 * path); this server is already running for the session, so a hook costs one JSON-RPC round trip.
 * Claude Code connects MCP servers after SessionStart and disconnects them before SessionEnd, so
 * those two stay command hooks.
 *
 * Claude Code fills the tool's arguments from the hook input by `${field}` templates: every value
 * arrives as a string, objects as JSON, and a field the event does not have as "". This turns them
 * back into the hook input.
 */
import { handleHookEvent, hookKind } from '../../hooks/lib/run.js';

export const HOOK_TOOL = 'hook';

/** Hook events the tool takes (SessionStart and SessionEnd have no MCP connection to come through). */
const EVENTS = new Set(['UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SubagentStop', 'PreCompact']);
/** Fields Claude Code sends as objects (they arrive as JSON text). */
const OBJECT_FIELDS = new Set(['tool_input', 'tool_response']);
const BOOLEAN_FIELDS = new Set(['stop_hook_active', 'is_interrupt']);

export interface HookToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/** The hook input the templated arguments stand for. */
export function hookInput(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (k === 'event') continue;
    if (v === '' || v === undefined || v === null) continue;
    if (typeof v === 'string' && OBJECT_FIELDS.has(k) && /^[[{]/.test(v)) {
      try {
        out[k] = JSON.parse(v) as unknown;
        continue;
      } catch {
        // a string that only looks like JSON: keep it as it came
      }
    }
    if (typeof v === 'string' && BOOLEAN_FIELDS.has(k) && (v === 'true' || v === 'false')) out[k] = v === 'true';
    else out[k] = v;
  }
  out.hook_event_name = args.event;
  return out;
}

export async function hookTool(raw: unknown, env: NodeJS.ProcessEnv): Promise<HookToolResult> {
  const args = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const event = args.event;
  if (typeof event !== 'string' || !EVENTS.has(event)) {
    const text = `the hook tool takes "event": one of ${[...EVENTS].join(', ')} (hooks.json passes "\${hook_event_name}"), not ${JSON.stringify(event)}`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
  const text = await handleHookEvent(hookKind(event), event, hookInput(args), env, '', true);
  return { content: [{ type: 'text', text }] };
}
