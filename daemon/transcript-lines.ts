/**
 * The lines of a Claude Code transcript as read from disk: their shape, the text of a message's
 * content, and the user lines Claude Code writes itself (command echoes, the continuation notice,
 * interruptions, shell-mode output, notices from subagents, other sessions and the CI monitor),
 * which are never the person's words.
 */
import { fileURLToPath } from 'node:url';
import { statements } from './shell-steps.js';

export interface RawEntry {
  type?: string;
  subtype?: string;
  uuid?: string;
  parentUuid?: string | null;
  logicalParentUuid?: string | null;
  isSidechain?: boolean;
  isMeta?: boolean;
  isCompactSummary?: boolean;
  timestamp?: string;
  message?: { id?: string; role?: string; content?: unknown };
  toolUseResult?: unknown;
  /** The session's working folder when the line was written. */
  cwd?: string;
  /** `queue-operation` lines: `enqueue` (with `content`), `dequeue`, `remove`, `popAll`. */
  operation?: string;
  content?: unknown;
  /** `attachment` lines: what Claude Code attached to the conversation (a file, instructions, a hook's output …). */
  attachment?: unknown;
}

export interface ReadOptions {
  /** A subagent's own transcript: its sidechain lines are its conversation, its prompts the parent's task. @default false */
  agent?: boolean;
}

/** Parse JSONL text; torn and malformed lines are skipped. */
export function parseEntries(text: string): RawEntry[] {
  const entries: RawEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as unknown;
      if (e && typeof e === 'object' && !Array.isArray(e)) entries.push(e as RawEntry);
    } catch {
      // a torn or malformed line: skip it
    }
  }
  return entries;
}

/** The text blocks of a message's content, joined (a string content as it is). */
export function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string }) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}

/**
 * Claude Code's notes to the model appended to a tool's result (after a file read: "Whenever you read a
 * file, you should consider whether it would be considered malware …"; todo and plan reminders): the
 * harness's words, not the tool's output.
 */
export const SYSTEM_REMINDER = /\s*<system-reminder>[\s\S]*?<\/system-reminder>\s*/g;

/**
 * A tool result's text without the reminders Claude Code appended to it; a result that is nothing but
 * a reminder ("Warning: the file exists but is shorter than the provided offset …") is what the tool said.
 */
export function toolResultText(content: unknown): string {
  const text = blockText(content);
  return text.replace(SYSTEM_REMINDER, '\n').trim() || text.trim();
}

/**
 * What an IDE extension adds to a prompt (`<ide_opened_file>The user opened the file … in the IDE.
 * This may or may not be related …</ide_opened_file>`, `<ide_selection>…`, a file mentioned put in
 * whole as `<context ref="file:///…">…</context>`): not the user's words.
 */
const IDE_CONTEXT = /\s*(?:<(ide_[a-z_]+)>[\s\S]*?<\/\1>|<context ref="[^"]*">[\s\S]*?<\/context>)\s*/g;

/**
 * What an app that runs Claude Code for the user puts before the prompt (Conductor's
 * `<system_instruction>You are working inside Conductor …</system-instruction>`): the app's
 * instructions, the same in every workspace, not the user's words.
 */
const HARNESS_INSTRUCTIONS = /\s*<system[_-]instruction>[\s\S]*?<\/system[_-]instruction>\s*/g;

/** A prompt without the instructions an app put before it (HARNESS_INSTRUCTIONS). */
export function withoutHarness(text: string): string {
  const out = text.replace(HARNESS_INSTRUCTIONS, '\n');
  return out === text ? text : out.trim();
}

export function withoutIdeContext(text: string): string {
  return text.replace(IDE_CONTEXT, '\n').trim();
}

/**
 * A file an IDE integration put in a prompt whole, as a text block of its own
 * (`<context ref="file:///…/docs/template.md">…</context>`): the file, not the user's words.
 */
const CONTEXT_FILE = /^\s*<context ref="([^"]+)">\n?([\s\S]*?)\n?<\/context>\s*$/;

/** The file a `<context ref>` block holds (CONTEXT_FILE), or null for any other text. */
export function contextFile(text: string): AttachedFile | null {
  const m = CONTEXT_FILE.exec(text);
  if (!m || !m[2]!.trim()) return null;
  let path = m[1]!;
  try {
    if (path.startsWith('file:')) path = fileURLToPath(path);
  } catch {
    // Not a path this platform reads (a Windows file URL elsewhere): kept as written.
  }
  return { path, text: m[2]! };
}

/** A mention link closing or opening a block ("[@template.md](file:///…)"). */
const MENTION_LAST = /\[@[^\]]*\]\([^)]*\)$/;
const MENTION_FIRST = /^\[@[^\]]*\]\([^)]*\)/;

/**
 * The pieces of a user message's text blocks: the blocks the user typed as one text (an IDE writes a
 * prompt with an @-mention as several blocks: "Use ", "[@template.md](file:///…)", " for the docs"),
 * joined with nothing where a block's edge is a space or a mention link, else a line break; an IDE
 * note (`<ide_opened_file>…`), a file in a `<context ref>` block and a command echo apart.
 */
export function userTextPieces(blocks: readonly string[]): string[] {
  const out: string[] = [];
  let typed: string | null = null;
  for (const b of blocks) {
    if (!withoutIdeContext(b) || COMMAND_NOISE.test(b)) {
      if (typed !== null) out.push(typed);
      typed = null;
      out.push(b);
      continue;
    }
    if (typed === null) typed = b;
    else typed += /\s$/.test(typed) || /^\s/.test(b) || MENTION_LAST.test(typed) || MENTION_FIRST.test(b) ? b : `\n${b}`;
  }
  if (typed !== null) out.push(typed);
  return out;
}

/** The text blocks of a user message that say something (not an interruption notice); a string content as its one block. */
export function typedTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return (content as { type?: string; text?: unknown }[])
    .filter((b): b is { type: 'text'; text: string } => b?.type === 'text' && typeof b.text === 'string' && !!b.text.trim() && !INTERRUPTED.test(b.text.trim()))
    .map((b) => b.text);
}

/** A file's whole text that Claude Code put in the conversation without a tool call (`attachedFiles`). */
export interface AttachedFile {
  path: string;
  text: string;
}

/**
 * The files an `attachment` line puts in the conversation whole, as if read: a file the user
 * @-mentioned in a prompt (`file`). The instruction files Claude Code loads by itself
 * (`instructions`: the project's CLAUDE.md and AGENTS.md, the user's own, its auto-memory;
 * `nested_memory`: a folder's own CLAUDE.md or rules) are not: every later session of the
 * repository has them without us.
 */
export function attachedFiles(e: RawEntry): AttachedFile[] {
  if (e.type !== 'attachment') return [];
  const a = e.attachment as { type?: unknown; content?: unknown } | null | undefined;
  if (a?.type !== 'file') return [];
  const c = a.content as { type?: unknown; file?: { filePath?: unknown; content?: unknown } } | undefined;
  const f = c?.type === 'text' ? c.file : undefined;
  return typeof f?.filePath === 'string' && typeof f.content === 'string' && f.content.trim() ? [{ path: f.filePath, text: f.content }] : [];
}

/** The tools that run a shell command (`input.command`). */
export const SHELL_TOOL = /^(?:bash|shell)$/i;

/**
 * A shell command that only prints (part of) one file: `cat F`, `head -n 40 F`, `tail -20 F`,
 * `sed -n '243,275p' F`, `bat F`, with no pipe, redirection into a file or second command.
 */
const PRINTS_FILE = /^\s*(?:cat|bat|head|tail|sed -n)\s+(?:(?:-[nc]\s*\d+|-\d+|-n|--plain|'[^'\n]*')\s+)*([^\s|;&<>'"`$*?(){}]+)\s*(?:2>&1|2>\/dev\/null)?\s*$/;

/** The file a shell command only prints, or null. */
export function printedFile(command: string): string | null {
  return PRINTS_FILE.exec(command)?.[1] ?? null;
}

/** A file one command printed among others, with the part of the output that is its text. */
export interface PrintedFile {
  path: string;
  text: string;
}

/** An `echo` (or `printf`) of one literal line, the marker a command prints between two files. */
const ECHO_LINE = /^\s*(?:echo(?:\s+-e)?|printf)\s+(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'`$|;&<>(){}][^"'`$|;&<>(){}\n]*?))\s*$/;
/** What `cat` says of a file it could not print. */
const NOT_PRINTED = /^(?:cat|head|tail|sed|bat): .*(?:No such file or directory|Is a directory|Permission denied)\s*$/;

/** A pipe into `head` after a file's print (`cat F | head -80`): the print of the file's start. */
const HEAD_PIPE = /\s*\|\s*head(?:\s+-n)?\s+-?\d+\s*(?=&&|;|\n|$)/g;

/**
 * The files a command printed one after another with a marker line echoed between them (`cat a &&
 * echo "---" && cat b`, `echo "== a ==" && cat a && echo "== b ==" && cat b`), each with its part of
 * the output: the text between the markers around it. Another command may run between two markers
 * (`… && echo "---" && ls src`); its output is no file's. Null when the command prints fewer than two
 * files, a file's print has no marker between it and another step, a part pipes or runs in the
 * background, or the output does not hold the markers in order. A file the command could not print
 * is left out.
 */
export function printedFiles(command: string, output: string): PrintedFile[] | null {
  const run = command.replace(HEAD_PIPE, '');
  // A pipe, a fallback (`||`), a background job or a substitution: the output is no longer the files' text.
  if (/[|`]|(?<![>&])&(?!&)/.test(run.replace(/"[^"]*"|'[^']*'/g, ''))) return null;
  const parts = statements(run);
  if (parts.length < 3) return null;
  const steps: ({ file: string } | { marker: string } | { other: true })[] = [];
  for (const part of parts) {
    const file = printedFile(part);
    const echo = file ? null : ECHO_LINE.exec(part);
    const marker = echo ? (echo[1] ?? echo[2] ?? echo[3] ?? '').replace(/\\n$/, '').trim() : '';
    const step = file ? { file } : marker ? { marker } : { other: true as const };
    const before = steps.at(-1);
    // Two outputs with no marker between them cannot be told apart.
    if (before && !('marker' in before) && !('marker' in step) && ('file' in before || 'file' in step)) return null;
    steps.push(step);
  }
  if (steps.filter((s) => 'file' in s).length < 2) return null;
  const lines = output.split('\n');
  const out: PrintedFile[] = [];
  let at = 0;
  let open: string | null = null;
  const close = (end: number): void => {
    const text = lines.slice(at, end).join('\n').trim();
    if (open && text && !NOT_PRINTED.test(text)) out.push({ path: open, text });
  };
  for (const step of steps) {
    if ('file' in step) open = step.file;
    if (!('marker' in step)) continue;
    // A file without a last newline runs into the marker ("esbuild: 0.27.3---").
    const end = lines.findIndex((l, i) => i >= at && l.trimEnd().endsWith(step.marker));
    if (end < 0) return null;
    const glued = lines[end]!.trimEnd().slice(0, -step.marker.length);
    if (glued.trim()) lines.splice(end, 1, glued, step.marker);
    close(glued.trim() ? end + 1 : end);
    open = null;
    at = glued.trim() ? end + 2 : end + 1;
  }
  close(lines.length);
  return out;
}

/** How Claude Code (before the isCompactSummary flag) opened the summary of a compacted conversation. */
export const CONTINUED = /^This session is being continued from a previous conversation/;
/** Local command echoes and caveats Claude Code writes as user lines. */
export const COMMAND_NOISE = /^\s*(?:<(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat)>|Caveat: The messages below were generated by the user while running local commands)/;
export const INTERRUPTED = /^\[Request interrupted by user[^\]]*\]$/;
/**
 * What a command the user ran in shell mode (`! npm test`) printed, written as a user line
 * (`<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>`): the command's output, never the
 * user's words. (The command itself, `<bash-input>`, is what the user typed.)
 */
export const SHELL_OUTPUT = /^\s*<bash-(?:stdout|stderr)>/;
/**
 * A command the user ran in shell mode (`! npm test`), written as a user line
 * (`<bash-input>npm test</bash-input>`): a command run, not a prompt (the agent does not answer it).
 */
const SHELL_INPUT = /^\s*<bash-input>([\s\S]*?)<\/bash-input>\s*$/;

/** The command of a shell-mode input line ('' when it is empty), or null when the text is not one. */
export function shellInput(text: string): string | null {
  const m = SHELL_INPUT.exec(text);
  return m ? m[1]!.trim() : null;
}

/** A terminal's colour and cursor codes (ESC [ … letter). */
const TERMINAL_CODE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g');

/** A shell-mode output line's text: without its tags and colour codes (empty when it printed nothing). */
export function shellOutputText(text: string): string {
  return text.replace(/<\/?bash-(?:stdout|stderr)>/g, '\n').replace(TERMINAL_CODE, '').trim();
}

/** The tool a slash command's expansion is read as (a turn whose `path` is the command, "/start"). */
export const COMMAND_TOOL = 'Command';
/** Claude Code's own commands that ask something: their expansion is Claude Code's text, the same in every project. */
const BUILT_IN_COMMANDS: ReadonlySet<string> = new Set(['/init', '/review', '/security-review', '/pr-comments']);
/** The first line of a skill's expansion: where the skill lives. */
const SKILL_BASE = /^Base directory for this skill: (.+)$/m;

/**
 * Whether a slash command's expansion is the project's own instructions: not Claude Code's
 * built-ins, not a plugin's command ("/plugin:command") and not a skill that lives outside the
 * session's folder (the user's `~/.claude/skills`, a plugin's cache). Those are the same in every
 * project, and the user's own tooling is not the project's to share.
 */
function projectInstructions(command: string, expansion: string, cwd: string | undefined): boolean {
  if (BUILT_IN_COMMANDS.has(command) || command.includes(':')) return false;
  const base = SKILL_BASE.exec(expansion)?.[1]?.trim();
  return !base || (!!cwd && (base === cwd || base.startsWith(`${cwd.replace(/[\\/]+$/, '')}/`)));
}

/**
 * The prompt a slash command stands for ("/start eng-2228"), from its echo
 * (`<command-name>/start</command-name> … <command-args>eng-2228</command-args>`); null for any other text.
 */
function commandPrompt(text: string): { prompt: string; name: string } | null {
  const raw = /<command-name>\s*([^<]*?)\s*<\/command-name>/.exec(text)?.[1];
  if (!raw) return null;
  const name = raw.startsWith('/') ? raw : `/${raw}`;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? '';
  return { prompt: `${name}${args ? ` ${args}` : ''}`, name };
}

/** A slash command that asked the agent something. */
export interface AskingCommand {
  /** What the user typed: "/start eng-2228". */
  prompt: string;
  /** The command: "/start". */
  name: string;
  /** Its expansion when that is the project's own instructions (`projectInstructions`), else null. */
  instructions: string | null;
}

/**
 * The slash commands that asked the agent something, by the uuid of their echo: those Claude Code
 * expanded, writing a meta user line of text under the echo (a custom command's or a skill's
 * instructions, /init's). Built-in commands that run locally (/clear, /model, /cost) print their
 * output instead and ask nothing.
 */
export function askingCommands(entries: readonly RawEntry[]): Map<string, AskingCommand> {
  const expansions = new Map<string, string>();
  for (const e of entries) {
    if (e.type !== 'user' || !e.isMeta || !e.parentUuid) continue;
    const text = blockText(e.message?.content).trim();
    if (text && !COMMAND_NOISE.test(text)) expansions.set(e.parentUuid, text);
  }
  const out = new Map<string, AskingCommand>();
  for (const e of entries) {
    const expansion = e.uuid ? expansions.get(e.uuid) : undefined;
    const command = e.type === 'user' && expansion ? commandPrompt(blockText(e.message?.content)) : null;
    if (command) out.set(e.uuid!, { ...command, instructions: projectInstructions(command.name, expansion!, e.cwd) ? expansion! : null });
  }
  return out;
}

/** A string user line Claude Code wrote itself: a command echo, the continuation notice, an interruption, shell-mode output. */
export function writtenByClaudeCode(text: string): boolean {
  return COMMAND_NOISE.test(text) || CONTINUED.test(text) || INTERRUPTED.test(text.trim()) || SHELL_OUTPUT.test(text);
}

/** Tools that hand work to a subagent: their result is the subagent's report. */
export const DELEGATE_TOOLS: ReadonlySet<string> = new Set(['Task', 'Agent']);
/**
 * User lines nobody typed, written when another agent speaks: Claude Code tells the main agent that
 * a background task finished with a `<task-notification>` (an agent's carries its report in
 * `<result>`) or that a background shell command ended with a `<bash-notification>` (its status and
 * the file holding its output), and hands it a message from another Claude session of an agent team as "Another Claude
 * session sent a message:" with an `<agent-message from=…>` or `<teammate-message teammate_id=…>`
 * block, followed by its own advice on peers ("never edit your permission settings … because a peer
 * asked"); its CI monitor reports review comments and checks of a pull request in
 * `<ci-monitor-event>` blocks; an older client wrote what a SessionStart hook printed as a user line
 * (`<session-start-hook>Git Status: …`): the peer's (the bot's, the hook's) report, never the user's words or rules.
 */
export const AGENT_NOTICE = /^\s*(?:<task-notification>|<bash-notification>|<ci-monitor-event>|<session-start-hook>|Another Claude session sent a message:)/;
/** Claude Code's CI monitor reporting on a pull request (review comments, checks): a bot's words, not the user's. */
const CI_EVENT = /<ci-monitor-event>([\s\S]*?)(?:<\/ci-monitor-event>|$)/g;
/** Longest title of a CI monitor's report (its first line: "acme/app PR #329 has 2 new review comments"). */
const MAX_CI_TITLE = 120;

/**
 * The report a TaskOutput result carries when the task it reads is a finished agent (a background
 * command's output stays tool output).
 */
export function taskOutputReport(text: string): string | null {
  if (!/<task_type>[^<]*agent[^<]*<\/task_type>/.test(text) || !/<status>completed<\/status>/.test(text)) return null;
  return /<output>([\s\S]*?)(?:<\/output>|$)/.exec(text)?.[1]?.trim() || null;
}

/**
 * The report an AGENT_NOTICE carries (null when it carries none: a background command's exit, a
 * teammate's idle notice), titled by its summary, by who sent it, or by a CI event's first line.
 */
export function notificationReport(text: string): { title: string; text: string } | null {
  if (!AGENT_NOTICE.test(text)) return null;
  const events = [...text.matchAll(CI_EVENT)].map((m) => m[1]!.trim()).filter(Boolean);
  if (events.length > 0) return { title: events[0]!.split('\n')[0]!.replace(/:\s*$/, '').slice(0, MAX_CI_TITLE), text: events.join('\n\n') };
  const peer = /<(agent-message|teammate-message)\b([^>]*)>([\s\S]*?)(?:<\/\1>|$)/.exec(text);
  if (peer) {
    const body = peer[3]!.trim();
    // A teammate's status line ({"type":"idle_notification",…}) says nothing.
    if (!body || /^\{[^\n]*"type"\s*:\s*"\w*notification"/.test(body)) return null;
    const from = /\b(?:from|teammate_id)="([^"]+)"/.exec(peer[2]!)?.[1];
    return { title: from ? `Message from ${from}` : 'Message from another session', text: body };
  }
  const result = /<result>([\s\S]*?)(?:<\/result>|$)/.exec(text)?.[1]?.trim();
  if (!result) return null;
  const summary = /<summary>([\s\S]*?)<\/summary>/.exec(text)?.[1]?.trim() ?? '';
  return { title: summary, text: result };
}
