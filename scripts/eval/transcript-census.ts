/**
 * An independent count of the turns a Claude Code transcript holds, to measure how many of them a
 * reader keeps. It does not walk parentUuid: every main-chain (non-sidechain) line counts, so a
 * reader that loses turns on its walk shows up as a shortfall (in a subagent's own transcript, every
 * sidechain line). A line a resumed session wrote again
 * (same timestamp, message id and content) counts once.
 *
 * One exception, by design: a conversation the user rewound away from. A rewind shows in the file
 * as a second typed prompt written under the same parent as an earlier one; the lines from the
 * earlier prompt up to the later one (in file order) are a branch the user took back, and the
 * reader leaves them out of memory. They are counted apart (`rewound`), not in `total`. So is a
 * prompt sent again at once under the same parent, with no reply to the first ("yes", then "yes,
 * update the memory …"): the conversation went on from the second. A prompt the user interrupted at
 * once (an interruption line under it, the reply then going on from the parent) is not a rewind and
 * counts.
 */
import { firstCopies, handedToTurn } from '../../daemon/transcript-branch.js';
import { AGENT_NOTICE, askingCommands, attachedFiles, blockText, COMMAND_NOISE, contextFile, CONTINUED, INTERRUPTED, notificationReport, parseEntries, SHELL_OUTPUT, SHELL_TOOL, shellInput, shellOutputText, typedTexts, userTextPieces, withoutHarness } from '../../daemon/transcript-lines.js';

/** Lines nobody typed and that say nothing: command echoes, interruptions, a background command's notification. */
const noise = (text: string): boolean => COMMAND_NOISE.test(text) || INTERRUPTED.test(text.trim()) || (AGENT_NOTICE.test(text) && !notificationReport(text)) || !withoutHarness(text);

export interface Census {
  /** Typed prompts, compaction summaries and answers. */
  user: number;
  /** Assistant messages with text or file edits (streamed pieces of one message count once). */
  assistant: number;
  /** Tool results with content, and @-mentioned files attached whole. */
  tool: number;
  /** Turns present on total's terms. */
  total: number;
  /** Turns on branches the user rewound away from (not in `total`). */
  rewound: number;
}

type Entry = ReturnType<typeof parseEntries>[number];

function isTypedPrompt(e: Entry): boolean {
  if (e.type !== 'user' || e.isCompactSummary) return false;
  const content = e.message?.content;
  if (typeof content === 'string') return !noise(content) && !SHELL_OUTPUT.test(content);
  if (!Array.isArray(content)) return false;
  const blocks = content as { type?: string; text?: string }[];
  return !blocks.some((b) => b?.type === 'tool_result') && blocks.some((b) => b?.type === 'text' && !!b.text?.trim() && !noise(b.text));
}

/** Indexes (into `entries`) of the lines on branches the user rewound away from. */
function rewoundLines(entries: Entry[]): Set<number> {
  const promptsByParent = new Map<string, number[]>();
  entries.forEach((e, i) => {
    if (e.parentUuid && isTypedPrompt(e)) promptsByParent.set(e.parentUuid, [...(promptsByParent.get(e.parentUuid) ?? []), i]);
  });
  const out = new Set<number>();
  for (const idxs of promptsByParent.values()) {
    for (let k = 0; k + 1 < idxs.length; k++) {
      const from = idxs[k]!;
      const to = idxs[k + 1]!;
      const between = entries.slice(from + 1, to);
      const prompt = entries[from]!.uuid;
      const interrupted = between.some((e) => e.type === 'user' && e.parentUuid === prompt && INTERRUPTED.test(blockText(e.message?.content).trim()));
      const replied = between.some((e) => e.type === 'assistant' || (e.type === 'user' && Array.isArray(e.message?.content) && (e.message.content as { type?: string }[]).some((b) => b?.type === 'tool_result')));
      if (replied || !interrupted) for (let i = from; i < to; i++) out.add(i);
    }
  }
  return out;
}

/** `agent`: a subagent's own transcript, whose sidechain lines are its conversation. */
export function census(text: string, opts: { agent?: boolean } = {}): Census {
  const all: Census = { user: 0, assistant: 0, tool: 0, total: 0, rewound: 0 };
  const taken: Census = { user: 0, assistant: 0, tool: 0, total: 0, rewound: 0 };
  const assistantIds = new Set<string>();
  const parsed = parseEntries(text);
  const entries = firstCopies(parsed).filter((e) => (!e.isSidechain || opts.agent) && !e.isMeta);
  // A slash command whose expansion follows asked something: the command is the prompt, and its
  // expansion what the Command tool read.
  const asking = askingCommands(parsed);
  const rewound = rewoundLines(entries);
  // A shell command is a turn even when it printed nothing (it ran).
  const shellCalls = new Set<string>();
  for (const e of entries) {
    const c = e.type === 'assistant' ? e.message?.content : undefined;
    if (Array.isArray(c)) for (const b of c as { type?: string; id?: string; name?: string }[]) if (b?.type === 'tool_use' && b.id && SHELL_TOOL.test(b.name ?? '')) shellCalls.add(b.id);
  }
  entries.forEach((e, i) => {
    const c = rewound.has(i) ? taken : all;
    const content = e.message?.content;
    // A file the user @-mentioned, attached whole, is a file read.
    c.tool += attachedFiles(e).length;
    if (e.type === 'assistant' && Array.isArray(content)) {
      const has = content.some((b: { type?: string; text?: string; name?: string }) => (b?.type === 'text' && !!b.text?.trim()) || (b?.type === 'tool_use' && ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'].includes(b.name ?? '')));
      const id = e.message?.id ?? e.uuid ?? '';
      if (has && !assistantIds.has(id)) {
        assistantIds.add(id);
        c.assistant++;
      }
    } else if (e.type === 'user') {
      const command = e.uuid ? asking.get(e.uuid) : undefined;
      if (typeof content === 'string') {
        const run = shellInput(content);
        // A shell-mode command's output is tool output (when it printed anything).
        if (SHELL_OUTPUT.test(content)) {
          // Its output, after a command the user ran in shell mode, is part of that command's turn.
          const before = entries[i - 1]?.message?.content;
          if (shellOutputText(content) && !(typeof before === 'string' && shellInput(before))) c.tool++;
        } else if (run !== null) {
          // A command the user ran in shell mode is a command run, not a prompt.
          if (run) c.tool++;
        } else if (command) {
          c.user++;
          if (command.instructions) c.tool++;
        } else if (!noise(content)) c.user++;
      } else if (Array.isArray(content)) {
        const blocks = content as { type?: string; text?: string; content?: unknown; tool_use_id?: string }[];
        // Text blocks typed as one prompt count once; a file an IDE put in whole is a file read.
        for (const piece of command ? [] : userTextPieces(typedTexts(blocks))) {
          const run = shellInput(piece);
          if (contextFile(piece) || run) c.tool++;
          else if (run === null && !noise(piece)) c.user++;
        }
        for (const b of blocks) {
          if (b?.type === 'text' && command) {
            c.user++;
            if (command.instructions) c.tool++;
          } else if (b?.type === 'tool_result') {
            // A background agent's launch acknowledgement: its report comes later, in a notification.
            if ((e.toolUseResult as { status?: unknown } | undefined)?.status === 'async_launched') continue;
            const inner = typeof b.content === 'string' ? b.content : Array.isArray(b.content) ? (b.content as { text?: string }[]).map((x) => x?.text ?? '').join('') : '';
            if (inner.trim() || shellCalls.has(b.tool_use_id ?? '')) c.tool++;
          }
        }
      }
    }
  });
  // A prompt typed while the agent worked and handed to the running turn lives only in its
  // queue-operation line (unless a user line holds the same words).
  if (!opts.agent) {
    // What the user's own lines say (a compaction summary quotes prompts; it is not one).
    const said = new Set(entries.filter((e) => e.type === 'user' && !e.isCompactSummary && !CONTINUED.test(typeof e.message?.content === 'string' ? e.message.content : '')).map((e) => JSON.stringify(e.message?.content ?? '').replace(/\s+/g, ' ')));
    for (const queued of handedToTurn(parsed).values()) {
      const needle = JSON.stringify(queued).slice(1, -1).replace(/\s+/g, ' ');
      if (![...said].some((u) => u.includes(needle))) all.user++;
    }
  }
  all.total = all.user + all.assistant + all.tool;
  all.rewound = taken.user + taken.assistant + taken.tool;
  return all;
}
