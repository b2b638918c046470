/**
 * An independent count of the turns a Claude Code transcript holds, to measure how many of them a
 * reader keeps. It does not follow parentUuid: every main-chain (non-sidechain) line counts, so a
 * reader that loses turns on its walk shows up as a shortfall (in a subagent's own transcript, every
 * sidechain line). A line a resumed session wrote again
 * (same timestamp, message id and content) counts once.
 */
import { COMMAND_NOISE, firstCopies, INTERRUPTED, notificationReport, parseEntries, TASK_NOTIFICATION } from '../../daemon/transcript.js';

/** Lines nobody typed and that say nothing: command echoes, interruptions, a background command's notification. */
const noise = (text: string): boolean => COMMAND_NOISE.test(text) || INTERRUPTED.test(text.trim()) || (TASK_NOTIFICATION.test(text) && !notificationReport(text));

export interface Census {
  /** Typed prompts, compaction summaries and answers. */
  user: number;
  /** Assistant messages with text or file edits (streamed pieces of one message count once). */
  assistant: number;
  /** Tool results with content. */
  tool: number;
  total: number;
}

/** `agent`: a subagent's own transcript, whose sidechain lines are its conversation. */
export function census(text: string, opts: { agent?: boolean } = {}): Census {
  const c: Census = { user: 0, assistant: 0, tool: 0, total: 0 };
  const assistantIds = new Set<string>();
  for (const e of firstCopies(parseEntries(text))) {
    if ((e.isSidechain && !opts.agent) || e.isMeta) continue;
    const content = e.message?.content;
    if (e.type === 'assistant' && Array.isArray(content)) {
      const has = content.some((b: { type?: string; text?: string; name?: string }) => (b?.type === 'text' && !!b.text?.trim()) || (b?.type === 'tool_use' && ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'].includes(b.name ?? '')));
      const id = e.message?.id ?? e.uuid ?? '';
      if (has && !assistantIds.has(id)) {
        assistantIds.add(id);
        c.assistant++;
      }
    } else if (e.type === 'user') {
      if (typeof content === 'string') {
        if (!noise(content)) c.user++;
      } else if (Array.isArray(content)) {
        for (const b of content as { type?: string; text?: string; content?: unknown }[]) {
          if (b?.type === 'text' && b.text?.trim() && !noise(b.text)) c.user++;
          else if (b?.type === 'tool_result') {
            // A background agent's launch acknowledgement: its report comes later, in a notification.
            if ((e.toolUseResult as { status?: unknown } | undefined)?.status === 'async_launched') continue;
            const inner = typeof b.content === 'string' ? b.content : Array.isArray(b.content) ? (b.content as { text?: string }[]).map((x) => x?.text ?? '').join('') : '';
            if (inner.trim()) c.tool++;
          }
        }
      }
    }
  }
  c.total = c.user + c.assistant + c.tool;
  return c;
}
