/**
 * Incremental reader of Claude Code session transcripts (JSONL), for the format Claude Code
 * writes today. Each call reads from the session's byte cursor to the last complete line; a
 * half-written last line waits for the next read, a torn or malformed line is skipped.
 *
 * Every line type is walked: messages (user, assistant, tool results), and the lines between
 * them (progress, system, attachment, file-history snapshots, unknown types) only carry the
 * parentUuid chain, except an attachment that puts a file the user @-mentioned in the conversation
 * whole: that is read as the Read tool's result (`attachedFiles`). A compaction boundary continues
 * the chain through its logicalParentUuid, and
 * the compaction summary becomes a turn of its own. A rewind (a user prompt written again from an
 * earlier point) drops the abandoned branch; every other side branch (parallel tool calls and
 * their results, streamed pieces of one assistant message) is kept. Sidechain (subagent) lines are
 * left out of a session's turns (an older client's inline subagent conversations are read apart, as
 * `agents`); a subagent's own transcript (`agent-<id>.jsonl`, every line
 * a sidechain) is read with `{ agent: true }`, its prompts being the parent agent's task. What a
 * subagent reports back (the Task / Agent tool's result, or a background agent's
 * `<task-notification>` result) is a `report` turn, never a prompt. AskUserQuestion answers become
 * question-and-answer turns. A prompt typed while the agent worked and handed to the running turn
 * exists only as a `queue-operation` line; it is read as a prompt where it was typed.
 *
 * The branch walk is in transcript-branch.ts, the lines Claude Code writes itself in transcript-lines.ts.
 */
import fs from 'node:fs';
import { isKeptWhenRead, isProjectDocument } from './documents.js';
import { trackerItem, type TrackerItem } from './tracker-items.js';
import { activeBranch, inlineSidechains, unresolvedQueued, withQueuedPrompts } from './transcript-branch.js';
import { AGENT_NOTICE, askingCommands, attachedFiles, blockText, COMMAND_NOISE, COMMAND_TOOL, contextFile, CONTINUED, DELEGATE_TOOLS, INTERRUPTED, notificationReport, parseEntries, printedFile, printedFiles, shellInput, shellOutputText, SHELL_OUTPUT, SHELL_TOOL, taskOutputReport, toolResultText, typedTexts, userTextPieces, withoutHarness, type PrintedFile, type RawEntry, type ReadOptions } from './transcript-lines.js';

export interface Turn {
  uuid: string | null;
  role: 'user' | 'assistant' | 'tool';
  text: string;
  tool?: string;
  ok?: boolean;
  timestamp?: string;
  /**
   * What the turn is beyond its role: a typed `prompt`, an `answer` to the assistant's
   * AskUserQuestion (text holds the question and the answer), the compaction `summary`
   * Claude Code wrote when the context ran out, the parent agent's `task` for a subagent (a user
   * turn of a subagent's transcript: not the user's words), a subagent's `report` back to the
   * parent (a tool turn: the Task / Agent tool's result, or a background agent's notification), a
   * command the user ran in `shell` mode (`! npm test`; a Bash tool turn: the command and what it printed).
   * Absent for ordinary replies and tool output.
   */
  kind?: 'prompt' | 'answer' | 'summary' | 'task' | 'report' | 'shell';
  /** What a `report` was asked for (the Task tool's description, the notification's summary). */
  title?: string;
  /** The task a `report` answers, as the parent agent wrote it (the Task / Agent tool's prompt). */
  task?: string;
  /** Files the assistant wrote or edited in this message (assistant turns). */
  files?: string[];
  /**
   * What the assistant wrote into project documents in this message (assistant turns): a Write's
   * content, an Edit's new text (`isProjectDocument` paths only).
   */
  writes?: DocumentWrite[];
  /** The whole command a shell tool ran (tool turns), its lines included. */
  command?: string;
  /** The tool call a tool turn is the result of (`tool_use_id`), when known. */
  toolUseId?: string;
  /** The file a Read tool result shows (tool turns). */
  path?: string;
  /** The files a shell command printed one after another, marker lines between them (`printedFiles`), each with its text. */
  prints?: PrintedFile[];
  /** The folder the session worked in when a tool turn read a file (`path`, `prints`): where its relative paths start. */
  cwd?: string;
  /**
   * A document a tool result shows that is not a file read (tool turns): an issue or pull request with
   * its description (tracker-items.ts), or a project file an Edit or MultiEdit changed, as it now stands (`editedFile`).
   */
  item?: TrackerItem;
  /** A turn of a subagent conversation an older client wrote inline (`ReadResult.agents`), as buffered for a flush. */
  sidechain?: true;
}

export interface DocumentWrite {
  path: string;
  text: string;
  /** An Edit's replacement text, not the whole file. */
  edit: boolean;
}

export interface ReadResult {
  turns: Turn[];
  /**
   * The subagent conversations an older client wrote inline (sidechain lines of this transcript),
   * read like a subagent's own transcript (`{ agent: true }`): each opens with its task.
   */
  agents: Turn[];
  /** Cursor after the last complete line read. */
  offset: number;
  /** The file shrank or was replaced: reading restarted from the beginning. */
  rewound: boolean;
  /**
   * The ids of every tool result the lines read hold (`tool_use_id`), turned into a turn or not: the
   * hook events of those calls (PostToolUse carries the same id) have nothing to add.
   */
  results: string[];
  /**
   * Where the queue line of a prompt the user typed while the agent worked starts (a byte offset),
   * when this read ends on it before the running turn took it or not (`unresolvedQueued`): pass it
   * to the next read (`queuedAt`). A position, so it survives a daemon restart as a cursor.
   */
  queuedAt?: number;
  /**
   * What the user and the assistant said on the lines the turns leave out (a branch the user rewound
   * away from; a streamed message's pieces joined, and each piece): a hook event that journaled the
   * same words adds nothing.
   */
  elsewhere: Said[];
}

/** Words someone said on a transcript line (`ReadResult.elsewhere`). */
export interface Said {
  role: 'user' | 'assistant';
  text: string;
}

const MAX_READ = 32 * 1024 * 1024;
/** Tools whose input names a file the assistant changed. */
const WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** The `tool_use_id` of every tool result in these lines, on any branch. */
function toolResultIds(entries: readonly RawEntry[]): string[] {
  const ids: string[] = [];
  for (const e of entries) {
    const content = e.type === 'user' ? e.message?.content : undefined;
    if (!Array.isArray(content)) continue;
    for (const b of content as { type?: string; tool_use_id?: unknown }[]) if (b?.type === 'tool_result' && typeof b.tool_use_id === 'string') ids.push(b.tool_use_id);
  }
  return ids;
}

/** What was said on the lines of `entries` that are not in `kept` (ReadResult.elsewhere). */
function saidElsewhere(entries: readonly RawEntry[], kept: readonly RawEntry[], opts: ReadOptions): Said[] {
  const on = new Set(kept);
  const out: Said[] = [];
  const messages = new Map<string, string[]>();
  for (const e of entries) {
    if (on.has(e) || e.isMeta || (e.isSidechain && !opts.agent)) continue;
    const content = e.message?.content;
    if (e.type === 'user') {
      if (Array.isArray(content) && (content as { type?: string }[]).some((b) => b?.type === 'tool_result')) continue;
      for (const piece of userTextPieces(typedTexts(content))) if (piece.trim()) out.push({ role: 'user', text: piece });
    } else if (e.type === 'assistant') {
      const text = blockText(content).trim();
      if (!text) continue;
      out.push({ role: 'assistant', text });
      const id = e.message?.id;
      if (id) messages.set(id, [...(messages.get(id) ?? []), text]);
    }
  }
  for (const pieces of messages.values()) if (pieces.length > 1) out.push({ role: 'assistant', text: pieces.join('\n') });
  return out;
}

/**
 * Read the complete lines from `offset` on. `queuedAt`: where the queue line of a prompt typed ahead
 * starts that the last read left unresolved (its `ReadResult.queuedAt`); it is read again and taken
 * as if it came first.
 */
export function readTranscript(file: string, offset: number, opts: ReadOptions & { queuedAt?: number } = {}): ReadResult {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return { turns: [], agents: [], offset, rewound: false, results: [], elsewhere: [] };
  }
  try {
    const size = fs.fstatSync(fd).size;
    let rewound = false;
    if (size < offset) {
      offset = 0;
      rewound = true;
    }
    const carried = opts.queuedAt !== undefined && opts.queuedAt < offset && !rewound && !opts.agent ? queueLineAt(fd, opts.queuedAt) : null;
    const len = Math.min(size - offset, MAX_READ);
    // Nothing new: a prompt typed ahead is still unresolved.
    const still = carried ? { queuedAt: opts.queuedAt } : {};
    if (len <= 0) return { turns: [], agents: [], offset, rewound, results: [], elsewhere: [], ...still };
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, offset);
    const lastNl = buf.lastIndexOf(0x0a);
    if (lastNl < 0) return { turns: [], agents: [], offset, rewound, results: [], elsewhere: [], ...still };
    const entries = parseEntries(buf.subarray(0, lastNl).toString('utf8'));
    const kept = activeBranch(entries, opts);
    const agents = opts.agent ? [] : inlineSidechains(entries).flatMap((side) => toTurns(activeBranch(side, { agent: true }), { agent: true }));
    const queue = carried ? [carried, ...entries] : entries;
    // Still unresolved: the queue line this read ends on, or the one carried when this read holds none.
    const pending = opts.agent ? null : unresolvedQueued(queue);
    const own = pending === null ? -1 : lastQueueLine(buf.subarray(0, lastNl));
    const queuedAt = pending === null ? undefined : own >= 0 ? offset + own : opts.queuedAt;
    return {
      turns: toTurns(opts.agent ? kept : withQueuedPrompts(queue, kept), opts),
      agents,
      offset: offset + lastNl + 1,
      rewound,
      results: toolResultIds(entries),
      elsewhere: saidElsewhere(entries, kept, opts),
      ...(queuedAt !== undefined ? { queuedAt } : {}),
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** A queue line's longest plausible length: a typed prompt, not a paste of megabytes. */
const MAX_QUEUE_LINE = 256 * 1024;

/** The queue line that starts at byte `at` (`ReadResult.queuedAt`), or null when none does there. */
function queueLineAt(fd: number, at: number): RawEntry | null {
  const buf = Buffer.alloc(MAX_QUEUE_LINE);
  const n = fs.readSync(fd, buf, 0, MAX_QUEUE_LINE, at);
  const end = buf.subarray(0, n).indexOf(0x0a);
  if (end < 0) return null;
  const [e] = parseEntries(buf.subarray(0, end).toString('utf8'));
  return e?.type === 'queue-operation' && e.operation === 'enqueue' ? e : null;
}

/** Where the last queue line of `lines` (whole lines, without the last newline) starts, or -1. */
function lastQueueLine(lines: Buffer): number {
  let at = lines.lastIndexOf(QUEUE_TYPE);
  while (at >= 0) {
    const start = lines.lastIndexOf(0x0a, at) + 1;
    const end = lines.indexOf(0x0a, at);
    if (parseEntries(lines.subarray(start, end < 0 ? lines.length : end).toString('utf8'))[0]?.type === 'queue-operation') return start;
    at = start > 0 ? lines.lastIndexOf(QUEUE_TYPE, start - 1) : -1;
  }
  return -1;
}
const QUEUE_TYPE = Buffer.from('queue-operation');

interface AskInput {
  questions?: { question?: string; options?: { label?: string; description?: string }[] }[];
}

/** "Question? → Answer (option description)" for each question an AskUserQuestion answer covers. */
function answerText(input: AskInput | undefined, result: unknown, resultText: string): string {
  const answers = (result as { answers?: Record<string, unknown> } | undefined)?.answers;
  const lines: string[] = [];
  for (const q of input?.questions ?? []) {
    if (!q.question) continue;
    let a = answers && typeof answers[q.question] === 'string' ? (answers[q.question] as string) : null;
    if (a === null) {
      // Older results only have the text: "…"Question"="Answer"…
      const esc = q.question.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      a = new RegExp(`"${esc}"\\s*=\\s*"([^"]*)"`).exec(resultText)?.[1] ?? null;
    }
    if (!a) continue;
    const desc = q.options?.find((o) => o.label === a)?.description;
    lines.push(`${q.question} → ${a}${desc ? ` (${desc})` : ''}`);
  }
  return lines.join('\n');
}

/** Transcript entries → turns: prompts, assistant text, tool results (labelled by tool), Q&A, summaries. */
export function toTurns(entries: RawEntry[], opts: ReadOptions = {}): Turn[] {
  const turns: Turn[] = [];
  const ts = (e: RawEntry): { timestamp?: string } => (e.timestamp ? { timestamp: e.timestamp } : {});
  // In a subagent's transcript, what a "user" typed is the parent agent's task.
  const promptKind = opts.agent ? 'task' : 'prompt';
  // A command the user ran in shell mode, until the line with its output follows.
  let userRan: Turn | null = null;
  const typed = (e: RawEntry, said: string): Turn | null => {
    const text = withoutHarness(said);
    if (!text) return null;
    const note = notificationReport(text);
    if (note) return { uuid: e.uuid ?? null, role: 'tool', text: note.text, tool: 'Task', kind: 'report', ...(note.title ? { title: note.title } : {}), ...ts(e) };
    if (AGENT_NOTICE.test(text)) return null;
    if (SHELL_OUTPUT.test(text)) {
      const out = shellOutputText(text);
      // What the command the user just ran printed: that command's output.
      const ran = userRan !== null && turns.at(-1) === userRan ? userRan : null;
      userRan = null;
      if (ran) {
        if (out) ran.text = toolText(ran.command, out);
        return null;
      }
      return out ? { uuid: e.uuid ?? null, role: 'tool', text: out, tool: 'Bash', ...ts(e) } : null;
    }
    const run = shellInput(text);
    if (run !== null) {
      userRan = run ? { uuid: e.uuid ?? null, role: 'tool', text: toolText(run, '').trim() || run, tool: 'Bash', command: run, kind: 'shell', ...ts(e) } : null;
      return userRan;
    }
    const summary = e.isCompactSummary === true || CONTINUED.test(text);
    return { uuid: e.uuid ?? null, role: summary ? 'assistant' : 'user', text, ...ts(e), kind: summary ? 'summary' : promptKind };
  };
  // A slash command that asks something is the user's prompt ("/start eng-2228"); its expansion,
  // the command's instructions, is what the Command "tool" read (documents.ts keeps it).
  const asking = askingCommands(entries);
  const command = (e: RawEntry): Turn[] => {
    const c = e.uuid ? asking.get(e.uuid) : undefined;
    if (!c) return [];
    const asked: Turn = { uuid: e.uuid ?? null, role: 'user', text: c.prompt, ...ts(e), kind: promptKind };
    return c.instructions ? [asked, { uuid: null, role: 'tool', text: c.instructions, tool: COMMAND_TOOL, ok: true, path: c.name, ...ts(e) }] : [asked];
  };
  const tools = new Map<string, { name: string; input: unknown }>();
  let lastAssistant: { id: string; turn: Turn } | null = null;
  for (const e of entries) {
    const content = e.message?.content;
    // A file the user @-mentioned, put in the conversation whole, is read as the Read tool's result.
    if (e.type === 'attachment') {
      for (const f of attachedFiles(e)) turns.push({ uuid: null, role: 'tool', text: f.text, tool: 'Read', ok: true, path: f.path, ...ts(e) });
      continue;
    }
    if (e.type === 'assistant') {
      if (!Array.isArray(content)) continue;
      const files: string[] = [];
      const writes: DocumentWrite[] = [];
      for (const b of content as { type?: string; id?: string; name?: string; input?: { file_path?: unknown; notebook_path?: unknown } }[]) {
        if (b?.type !== 'tool_use' || !b.id || !b.name) continue;
        tools.set(b.id, { name: b.name, input: b.input });
        const fp = b.input?.file_path ?? b.input?.notebook_path;
        if (WRITE_TOOLS.has(b.name) && typeof fp === 'string') {
          files.push(fp);
          writes.push(...documentWrites(b.name, fp, b.input));
        }
      }
      const text = blockText(content).trim();
      const id = e.message?.id;
      if (id && lastAssistant && lastAssistant.id === id) {
        // Another piece of the same streamed message.
        if (text) lastAssistant.turn.text = lastAssistant.turn.text ? `${lastAssistant.turn.text}\n${text}` : text;
        if (files.length > 0) lastAssistant.turn.files = [...new Set([...(lastAssistant.turn.files ?? []), ...files])];
        if (writes.length > 0) lastAssistant.turn.writes = [...(lastAssistant.turn.writes ?? []), ...writes];
        continue;
      }
      if (!text && files.length === 0) continue;
      const turn: Turn = { uuid: e.uuid ?? null, role: 'assistant', text, ...ts(e), ...(files.length > 0 ? { files } : {}), ...(writes.length > 0 ? { writes } : {}) };
      turns.push(turn);
      lastAssistant = id ? { id, turn } : null;
      continue;
    }
    if (e.type !== 'user' || e.isMeta) continue;
    if (typeof content === 'string') {
      lastAssistant = null;
      if (COMMAND_NOISE.test(content)) turns.push(...command(e));
      else if (!INTERRUPTED.test(content.trim())) {
        const t = typed(e, content);
        if (t) turns.push(t);
      }
      continue;
    }
    if (!Array.isArray(content)) continue;
    const blocks = content as { type?: string; tool_use_id?: string; content?: unknown; is_error?: boolean; text?: string }[];
    // The text blocks the user typed are one prompt (userTextPieces), read where its first block is.
    const texts = typedTexts(blocks);
    let pieces: string[] | null = userTextPieces(texts);
    for (const b of blocks) {
      if (b?.type === 'tool_result') {
        const text = toolResultText(b.content);
        const call = b.tool_use_id ? tools.get(b.tool_use_id) : undefined;
        if (call?.name === 'AskUserQuestion') {
          const qa = answerText(call.input as AskInput, e.toolUseResult, text);
          if (qa) {
            lastAssistant = null;
            turns.push({ uuid: e.uuid ?? null, role: 'user', text: qa, ...ts(e), kind: 'answer' });
            continue;
          }
        }
        const cmd = call && SHELL_TOOL.test(call.name) ? (call.input as { command?: unknown } | undefined)?.command : undefined;
        const shell = typeof cmd === 'string' ? cmd : undefined;
        // A command that printed nothing still ran (a build, a quiet commit); other silent results say nothing.
        if (!text && shell === undefined) continue;
        // A background launch (an agent, a workflow) says nothing yet: its report comes in a notification.
        const launched = (e.toolUseResult as { isAsync?: unknown; status?: unknown } | undefined) ?? {};
        if (!b.is_error && (launched.status === 'async_launched' || (launched.isAsync === true && DELEGATE_TOOLS.has(call?.name ?? '')))) continue;
        if (call && DELEGATE_TOOLS.has(call.name) && !b.is_error) {
          const input = (call.input as { description?: unknown; prompt?: unknown } | undefined) ?? {};
          const title = input.description;
          const task = input.prompt;
          turns.push({ uuid: e.uuid ?? null, role: 'tool', text, tool: call.name, ok: true, kind: 'report', ...(typeof title === 'string' && title ? { title } : {}), ...(typeof task === 'string' && task.trim() ? { task } : {}), ...ts(e) });
          continue;
        }
        const output = call?.name === 'TaskOutput' && !b.is_error ? taskOutputReport(text) : null;
        if (output) {
          turns.push({ uuid: e.uuid ?? null, role: 'tool', text: output, tool: 'Task', ok: true, kind: 'report', ...ts(e) });
          continue;
        }
        // A file read by the Read tool, or printed whole or in part by a shell command (`cat F`, `sed -n '1,80p' F`).
        const read = call?.name === 'Read' ? (call.input as { file_path?: unknown } | undefined)?.file_path : shell !== undefined && !b.is_error ? printedFile(shell) : undefined;
        const prints = shell !== undefined && !b.is_error && read === null ? printedFiles(shell, text) : null;
        const item = call && !b.is_error ? (trackerItem(call.name, call.input, text) ?? editedFile(call, e.toolUseResult)) : null;
        turns.push({ uuid: e.uuid ?? null, role: 'tool', text: toolText(shell, text), ok: !b.is_error, ...(call ? { tool: call.name } : {}), ...(shell !== undefined ? { command: shell } : {}), ...(typeof read === 'string' ? { path: read } : {}), ...(prints?.length ? { prints } : {}), ...((typeof read === 'string' || prints?.length) && e.cwd ? { cwd: e.cwd } : {}), ...(item ? { item } : {}), ...ts(e) });
      } else if (b?.type === 'text' && pieces && texts.includes(b.text!)) {
        for (const text of pieces) {
          const file = contextFile(text);
          if (file) {
            turns.push({ uuid: null, role: 'tool', text: file.text, tool: 'Read', ok: true, path: file.path, ...ts(e) });
            continue;
          }
          const asked = COMMAND_NOISE.test(text) ? command(e) : null;
          if (asked?.length === 0) continue;
          lastAssistant = null;
          if (asked) turns.push(...asked);
          else {
            const t = typed(e, text);
            if (t) turns.push(t);
          }
        }
        pieces = null;
      }
    }
  }
  return turns;
}

/**
 * A project file an Edit or MultiEdit changed (one whose text is kept when read: `isKeptWhenRead`), as
 * it stands after the change: Claude Code's result carries the whole file before it (an Edit's
 * `originalFile`, a MultiEdit's `originalFileContents`), which is often the only copy of the project's
 * instructions in the session (a CLAUDE.md @-mentioned in the prompt, then edited). Kept as the file
 * read (documents.ts); null when the result does not hold every text the change replaced.
 */
function editedFile(call: { name: string; input: unknown }, result: unknown): TrackerItem | null {
  if (call.name !== 'Edit' && call.name !== 'MultiEdit') return null;
  const r = (result ?? {}) as { filePath?: unknown; oldString?: unknown; newString?: unknown; replaceAll?: unknown; originalFile?: unknown; originalFileContents?: unknown; edits?: unknown };
  const path = typeof r.filePath === 'string' ? r.filePath : (call.input as { file_path?: unknown } | undefined)?.file_path;
  if (typeof path !== 'string' || !isKeptWhenRead(path)) return null;
  const edits: unknown[] = call.name === 'Edit' ? [{ old_string: r.oldString, new_string: r.newString, replace_all: r.replaceAll }] : Array.isArray(r.edits) ? r.edits : [];
  let text = call.name === 'Edit' ? r.originalFile : r.originalFileContents;
  for (const e of edits) {
    const { old_string: old, new_string: now, replace_all: all } = (e ?? {}) as { old_string?: unknown; new_string?: unknown; replace_all?: unknown };
    if (typeof text !== 'string' || typeof old !== 'string' || typeof now !== 'string' || !old || !text.includes(old)) return null;
    text = all === true ? text.split(old).join(now) : text.replace(old, () => now);
  }
  return typeof text === 'string' && edits.length > 0 ? { name: path, text } : null;
}

/** The text a Write, Edit or MultiEdit puts into a project document (none for other files). */
function documentWrites(tool: string, path: string, input: unknown): DocumentWrite[] {
  if (!isProjectDocument(path)) return [];
  const i = (input ?? {}) as { content?: unknown; new_string?: unknown; edits?: unknown };
  if (tool === 'Write' && typeof i.content === 'string' && i.content.trim()) return [{ path, text: i.content, edit: false }];
  if (tool === 'Edit' && typeof i.new_string === 'string' && i.new_string.trim()) return [{ path, text: i.new_string, edit: true }];
  if (tool === 'MultiEdit' && Array.isArray(i.edits)) {
    const text = i.edits
      .map((x: { new_string?: unknown }) => (typeof x?.new_string === 'string' ? x.new_string : ''))
      .filter((x) => x.trim())
      .join('\n\n');
    return text ? [{ path, text, edit: true }] : [];
  }
  return [];
}

/** Tool output in the capture format: a one-line shell command first (`$ cmd`), then what it printed. */
export function toolText(command: string | undefined, output: string): string {
  return command !== undefined && !command.includes('\n') ? `$ ${command}\n${output}` : output;
}
