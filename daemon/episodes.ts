/**
 * Episodic memory: every turn of a session leaves a searchable record of what happened — the
 * user's request, the assistant's outcome (its final message) and what it noted on the way there,
 * the questions it asked and the answers, what subagents reported back, the files it changed — in
 * the session's run and its repository, so "what did we decide about X / how did we fix Y" finds an
 * answer even when no extraction rule fired.
 *
 * The whole turn is searchable: an episode longer than one block (MAX_EPISODE) is stored as
 * several blocks, each headed by the request, never cut (a long final report or a subagent's
 * findings hold most of a turn's facts). What is injected stays short: the block's head and the
 * passage that matches the prompt (`episodeSnippet`, episode-snippet.ts).
 *
 * Episodes never flood recall: a short follow-up turn ("update STATUS.md please") is folded into
 * the session's previous episode; a repository keeps at most EPISODE_BLOCKS_PER_REPO blocks (the
 * oldest are forgotten); recall weighs them below extracted facts, takes one block per episode and
 * injects at most MAX_EPISODES_INJECTED per prompt (episode-rows.ts).
 */
import { contentHash, EngineError, isNarration, isQuestion, sentences, squeeze, type MemoryEngine, type VersionRow } from '../engine/index.js';
import { EPISODE_META, isDocument } from './episode-rows.js';
import { shellSteps } from './shell-steps.js';
import type { Turn } from './transcript.js';
import { SHELL_TOOL } from './transcript-lines.js';

/** Episode blocks kept per repository; older ones are forgotten at flush. */
export const EPISODE_BLOCKS_PER_REPO = 1000;

const MAX_REQUEST = 400;
/** The request as it heads a continuation block. */
const MAX_REQUEST_CONTINUED = 160;
const MAX_QA = 400;
const MAX_TITLE = 80;
const MAX_FILES = 8;
/** Longest episode block. */
const MAX_EPISODE = 2000;
/**
 * A request this short, without questions answered, findings along the way or failed commands,
 * continues the previous episode.
 */
const FOLLOW_UP_CHARS = 80;
/**
 * Most of a follow-up's outcome its line keeps: a longer outcome (an answer, not "done") makes the
 * follow-up an episode of its own, so nothing of it is cut away.
 */
const FOLLOW_UP_OUTCOME = 300;
/** Requests that are a hook talking, not the user. */
const NOT_A_REQUEST = /^(?:Stop hook feedback|\[Request interrupted)/;

export interface EpisodeReport {
  title?: string;
  text: string;
}

export interface EpisodeDraft {
  request: string;
  /** The request is a parent agent's task for a subagent (this episode is the subagent's work). */
  task?: boolean;
  qa: string[];
  outcome: string;
  /** What the assistant said before its final message (its findings along the way), in order. */
  notes?: string[];
  /** What subagents reported back during the turn. */
  reports: EpisodeReport[];
  files: string[];
  /** Shell commands the turn ran that build, test, run or change something (not looking around), in order. */
  commands?: { command: string; ok: boolean }[];
  /**
   * Shell commands of the turn that failed, with what their output said went wrong ("gh: command not
   * found", "GH006: Protected branch update failed"), looking around or not: often the only place a
   * session says why something cannot be done here.
   */
  failures?: { command: string; error: string }[];
  /** The messages of the commits the turn made, in order (they say what changed and why). */
  commits?: string[];
  /** The repository's folder name: files are shown from there ("apps/api/src/migrations/…"). */
  root?: string;
}

/** Runs of spaces folded and blank lines dropped, line breaks kept (they bound a snippet's passages). */
export const tidy = (text: string): string =>
  text
    .split('\n')
    .map(squeeze)
    .filter(Boolean)
    .join('\n');

export function clip(text: string, max: number): string {
  const t = squeeze(text);
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

/** A turn that opens an episode: the user's request (or a subagent's task), not an answer or a hook talking. */
export function opensEpisode(t: Turn): boolean {
  return t.role === 'user' && t.kind !== 'answer' && !NOT_A_REQUEST.test(t.text.trim());
}

/** Group turns by request: the request, its Q&A, the last assistant message, reports, files changed. */
export function episodeDrafts(turns: readonly Turn[]): EpisodeDraft[] {
  const out: EpisodeDraft[] = [];
  let cur: EpisodeDraft | null = null;
  // Commands the user ran in shell mode (`! npm test`) since the last request: what the next
  // request is about ("analyze the output of the test"), so they are that request's.
  let ranByUser: Turn[] = [];
  // Version-control steps that failed last in each episode ("git pull --rebase origin main && git
  // push": unstaged changes): the ones that then worked are the way out, and both are recorded.
  const failedBookkeeping = new Map<EpisodeDraft, string>();
  const ran = (d: EpisodeDraft, t: Turn): void => {
    const command = t.role === 'tool' && SHELL_TOOL.test(t.tool ?? '') ? (t.command ?? /^\$ (.+)/.exec(t.text)?.[1])?.trim() : undefined;
    if (!command) return;
    const ok = t.ok !== false;
    if (!ok) failed(d, command, t.text);
    const { steps, commits, bookkeeping } = shellSteps(command);
    const record = (step: string, worked: boolean): void => {
      const commands = (d.commands ??= []);
      const known = commands.find((c) => c.command === step);
      if (known) known.ok = worked;
      else commands.push({ command: step, ok: worked });
    };
    for (const step of steps) record(step, ok);
    const chain = bookkeeping.join(' && ');
    if (chain && !ok) failedBookkeeping.set(d, chain);
    else if (chain && failedBookkeeping.has(d)) {
      const failed = failedBookkeeping.get(d)!;
      failedBookkeeping.delete(d);
      if (failed !== chain) {
        record(failed, false);
        record(chain, true);
      }
    }
    // A commit that failed (a hook refused it) left nothing: its message says nothing happened.
    if (ok) for (const m of commits) if (!d.commits?.includes(m)) (d.commits ??= []).push(m);
  };
  for (const t of turns) {
    if (t.role === 'user' && t.kind !== 'answer') {
      if (!opensEpisode(t)) continue;
      cur = { request: t.text, ...(t.kind === 'task' ? { task: true } : {}), qa: [], outcome: '', reports: [], files: [] };
      for (const r of ranByUser) ran(cur, r);
      ranByUser = [];
      out.push(cur);
      continue;
    }
    if (t.kind === 'shell') {
      ranByUser.push(t);
      continue;
    }
    if (t.kind === 'report') {
      // A background agent may report after the turn that started it ended: it opens an episode.
      if (!cur) out.push((cur = { request: t.title || 'A subagent reported back', qa: [], outcome: '', reports: [], files: [] }));
      cur.reports.push({ text: t.text, ...(t.title ? { title: t.title } : {}) });
      continue;
    }
    if (!cur) continue;
    if (t.role === 'tool' && SHELL_TOOL.test(t.tool ?? '')) {
      ran(cur, t);
      continue;
    }
    if (t.kind === 'answer') cur.qa.push(t.text);
    else if (t.role === 'assistant' && t.kind !== 'summary') {
      if (t.text.trim()) {
        if (cur.outcome.trim()) (cur.notes ??= []).push(cur.outcome);
        cur.outcome = t.text;
      }
      for (const f of t.files ?? []) if (!cur.files.includes(f)) cur.files.push(f);
    }
  }
  // Run after the last request, with none after them: that request's.
  if (cur) for (const r of ranByUser) ran(cur, r);
  return out.filter((d) => d.outcome.trim() !== '' || d.qa.length > 0 || d.reports.length > 0);
}

/** Most failures an episode keeps, the longest command shown with one, and the longest error. */
const MAX_FAILURES = 5;
const MAX_FAILED_COMMAND = 80;
const MAX_ERROR = 200;
/**
 * An output line that says what went wrong (a crash signal's line too: "Segmentation fault (core
 * dumped) python3 --version"), and the line Claude Code puts before a failed command's output.
 */
const ERROR_LINE =
  /\b(?:error|fatal|failed|failure|denied|refused|rejected|blocked|not found|no such|not installed|cannot|can't|unable|invalid|unexpected|exception|panic|timed out|segmentation fault|core dumped|bus error|illegal instruction|out of memory|killed|aborted)\b/i;
const EXIT_LINE = /^Exit code \d+$/i;
/** A system error code ("listen EADDRINUSE: address already in use :::5000"). */
const ERRNO = /\bE(?:ADDRINUSE|ADDRNOTAVAIL|NOENT|ACCES|PERM|CONNREFUSED|CONNRESET|TIMEDOUT|EXIST|NOTDIR|ISDIR|NOSPC|MFILE|PIPE|AI_AGAIN|NOTFOUND)\b/;

/** A failed command's error lines (its exit code and up to two lines saying what went wrong), kept once per episode. */
function failed(d: EpisodeDraft, command: string, text: string): void {
  const lines = text
    .split('\n')
    .slice(text.startsWith('$ ') ? 1 : 0)
    .map((l) => squeeze(l))
    .filter((l) => l && (EXIT_LINE.test(l) || ERROR_LINE.test(l) || ERRNO.test(l)));
  const exit = lines.find((l) => EXIT_LINE.test(l));
  const said = lines.filter((l) => l !== exit).slice(0, 2);
  if (said.length === 0) return;
  const error = clip([exit, ...said].filter(Boolean).join(' / '), MAX_ERROR);
  const failures = (d.failures ??= []);
  if (failures.length < MAX_FAILURES && !failures.some((f) => f.error === error)) failures.push({ command: clip(command.split('\n')[0]!, MAX_FAILED_COMMAND), error });
}

/** Most commands an episode lists, and the longest shown whole. */
const MAX_COMMANDS = 10;
const MAX_COMMAND = 120;
/** Most commands a follow-up folded into an episode lists. */
const FOLLOW_UP_COMMANDS = 3;

function commandsLine(commands: readonly { command: string; ok: boolean }[]): string {
  const shown = commands.slice(0, MAX_COMMANDS).map((c) => `${clip(c.command, MAX_COMMAND)}${c.ok ? '' : ' (failed)'}`);
  return `${shown.join('; ')}${commands.length > MAX_COMMANDS ? `; and ${commands.length - MAX_COMMANDS} more` : ''}`;
}

/** The repository's folder name, from its identity (a remote "github.com/acme/app" or a root path). */
export function repoFolder(repo: string | null): string | undefined {
  return repo?.split(/[\\/]+/).filter(Boolean).pop()?.replace(/\.git$/, '') || undefined;
}

/**
 * A file as a record shows it: from inside the repository's folder when the path passes through a
 * folder of that name, the first one (".planning/phases/14-CONTEXT.md", not just its last segments), else its last
 * `keep` segments.
 */
export function projectPath(path: string, root: string | undefined, keep: number): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  const at = root ? parts.map((p) => p.toLowerCase()).indexOf(root.toLowerCase()) : -1;
  return (at >= 0 && at < parts.length - 1 ? parts.slice(at + 1) : parts.slice(-keep)).join('/');
}

function filesLine(files: readonly string[], root?: string): string {
  const names = files.slice(0, MAX_FILES).map((f) => projectPath(f, root, 2));
  return `${names.join(', ')}${files.length > MAX_FILES ? ` and ${files.length - MAX_FILES} more` : ''}`;
}

/** The first piece of `text` of at most `max` characters, cut at a line or sentence end (else a space). */
function firstPiece(text: string, max: number): string {
  if (text.length <= max) return text;
  const window = text.slice(0, max + 1);
  let cut = window.lastIndexOf('\n');
  if (cut < max / 2) cut = Math.max(cut, window.lastIndexOf('. '), window.lastIndexOf('! '), window.lastIndexOf('? '));
  if (cut < max / 3) cut = window.lastIndexOf(' ');
  if (cut < max / 3) cut = max;
  return text.slice(0, cut + 1);
}

/** Least room worth starting a section's piece in; with less, the block is closed. */
const MIN_PIECE = 200;

/**
 * Head lines, then labelled sections, as blocks of at most MAX_EPISODE characters, each block filled
 * before the next starts (later blocks headed by `contHead`).
 */
export function blocksOf(head: readonly string[], sections: readonly { label: string; text: string }[], contHead: string): string[] {
  // A head too long for its block (many answers, a long list of commands) goes on as sections after its first line.
  if (head.length > 1 && head.join('\n').length > MAX_EPISODE - MIN_PIECE) {
    const spilled = head.slice(1).map((line) => {
      const m = /^([^:\n]{1,40}): ([\s\S]*)$/.exec(line);
      return m ? { label: m[1]!, text: m[2]! } : { label: 'Also', text: line };
    });
    return blocksOf(head.slice(0, 1), [...spilled, ...sections], contHead);
  }
  const blocks: string[] = [];
  let block = head.join('\n');
  for (const x of sections) {
    let rest = x.text;
    let first = true;
    while (rest) {
      const label = `${x.label}${first ? '' : ' (continued)'}: `;
      let room = MAX_EPISODE - block.length - 1 - label.length;
      if (room < Math.min(MIN_PIECE, rest.length)) {
        blocks.push(block);
        block = contHead;
        room = MAX_EPISODE - block.length - 1 - label.length;
      }
      const piece = firstPiece(rest, room);
      block = `${block}\n${label}${piece.trim()}`;
      rest = rest.slice(piece.length).trim();
      first = false;
    }
  }
  blocks.push(block);
  return blocks;
}

/**
 * An episode as memory content: one block when it fits in MAX_EPISODE characters, else several,
 * the first with the request, the Q&A and the files, every later one headed by the request (so each
 * block says what it is about when found alone). Nothing is cut: a request longer than its head
 * follows the outcome whole.
 */
export function episodeBlocks(d: EpisodeDraft): string[] {
  const verb = d.task ? 'Task' : 'Asked';
  const head = [`${verb}: ${clip(d.request, MAX_REQUEST)}`, ...d.qa.map((qa) => `Answered: ${clip(qa, MAX_QA)}`)];
  if (d.files.length > 0) head.push(`Files: ${filesLine(d.files, d.root)}`);
  if (d.commands?.length) head.push(`Ran: ${commandsLine(d.commands)}`);
  const sections = d.outcome.trim() ? [{ label: 'Outcome', text: tidy(d.outcome) }] : [];
  if (d.commits?.length) sections.push({ label: 'Committed', text: d.commits.map(tidy).join('\n') });
  const noted = notesText(d.notes ?? []);
  if (noted) sections.push({ label: 'Noted', text: noted });
  if (d.failures?.length) sections.push({ label: 'Failed', text: d.failures.map((f) => `${f.command} → ${f.error}`).join('\n') });
  // A long request (a plan to implement, a spec, pasted findings) is kept whole after the outcome:
  // the user's words are never cut, and its head alone would lose what the plan decided.
  if (squeeze(d.request).length > MAX_REQUEST) sections.push({ label: 'Request', text: tidy(d.request) });
  return blocksOf(head, sections, `${verb} (continued): ${clip(d.request, MAX_REQUEST_CONTINUED)}`);
}

/** A note this short says nothing found ("Done.", "Good, the build passes."). */
const MIN_NOTE = 30;

/**
 * What the assistant found on the way to its final message ("The wizard fails because askString
 * returns the default 'y'"), as prose: its sentences without narration of the next step ("Let me
 * check …"), questions, code, or what an earlier note already said. A long working turn states its
 * causes there, and its final message often only what was changed.
 */
function notesText(notes: readonly string[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const note of notes) {
    const kept = sentences(note)
      .map((s) => s.text.trim())
      .filter((s) => s.length >= MIN_NOTE && !isNarration(s) && !isQuestion(s) && !seen.has(s));
    for (const s of kept) seen.add(s);
    if (kept.length > 0) out.push(kept.join(' '));
  }
  return out.join('\n');
}

/**
 * What a subagent reported during the turn, as a record of its own (headed by the request it
 * served): a long exploration report would otherwise outweigh the turn's own conclusion.
 */
export function reportBlocks(d: EpisodeDraft, r: EpisodeReport): string[] {
  const verb = d.task ? 'Task' : 'Asked';
  const label = r.title ? `Report (${clip(r.title, MAX_TITLE)})` : 'Report';
  return blocksOf([`${verb}: ${clip(d.request, MAX_REQUEST_CONTINUED)}`], [{ label, text: tidy(r.text) }], `${verb} (continued): ${clip(d.request, MAX_REQUEST_CONTINUED)}`);
}

/** The records an episode leaves, each a list of blocks: the turn itself (when it has an outcome or Q&A), then one per report. */
export function episodeRecords(d: EpisodeDraft): string[][] {
  const own = d.outcome.trim() || d.qa.length > 0 ? [episodeBlocks(d)] : [];
  return [...own, ...d.reports.map((r) => reportBlocks(d, r))];
}

/** An episode as memory content (its first block; see episodeBlocks). */
export function episodeText(d: EpisodeDraft): string {
  return episodeBlocks(d)[0]!;
}

/** A follow-up folded into an episode: "Then asked: … → …". */
function followUpText(d: EpisodeDraft): string {
  const also = [
    ...(d.files.length > 0 ? [`files: ${filesLine(d.files, d.root)}`] : []),
    ...(d.commands?.length ? [`ran: ${commandsLine(d.commands.slice(0, FOLLOW_UP_COMMANDS))}`] : []),
    ...(d.commits?.length ? [`committed: ${d.commits.map((m) => clip(m.split('\n')[0]!, MAX_COMMAND)).join('; ')}`] : []),
  ];
  return `Then asked: ${clip(d.request, FOLLOW_UP_CHARS)}${d.outcome ? ` → ${clip(d.outcome, FOLLOW_UP_OUTCOME)}` : ''}${also.length > 0 ? ` (${also.join('; ')})` : ''}`;
}

export interface EpisodeScope {
  user_id: string;
  run_id: string;
  repo: string | null;
  dir: string | null;
  /** Told of a record the store refused for what it holds (too long, malformed); the flush goes on without it. */
  onRefused?: (err: EngineError) => void;
}

/**
 * Store one record (an episode, a report, a project document) in the session's repository: the
 * blocks of one text (recall shows one of them), with `metadata` beside the episode marker.
 */
export async function addEpisodeRecord(engine: MemoryEngine, scope: EpisodeScope, blocks: readonly string[], metadata: Record<string, unknown>): Promise<VersionRow[]> {
  try {
    return await engine.add({
      content: blocks.join('\n'),
      ...(blocks.length > 1 ? { parts: [...blocks] } : {}),
      user_id: scope.user_id,
      owner_id: scope.user_id,
      run_id: scope.run_id,
      space: 'project',
      repo: scope.repo,
      dir: scope.dir,
      category: 'note',
      source: { kind: 'capture', session_id: scope.run_id },
      metadata: { ...EPISODE_META, ...metadata },
    });
  } catch (err) {
    // One record the store refuses for what it holds must not hold up every later turn of the
    // session (the flush would fail and be retried forever): it is left out and reported.
    if (!(err instanceof EngineError) || (err.code !== 'CONTENT_TOO_LARGE' && err.code !== 'VALIDATION')) throw err;
    scope.onRefused?.(err);
    return [];
  }
}

/**
 * Store the episodes of flushed turns: new ones added (a block each), short follow-ups folded into
 * the session's latest episode, an episode already stored (the same turns replayed) left alone;
 * then the repository's oldest blocks beyond EPISODE_BLOCKS_PER_REPO forgotten. Returns blocks written.
 */
export async function recordEpisodes(engine: MemoryEngine, turns: readonly Turn[], scope: EpisodeScope): Promise<number> {
  const drafts = episodeDrafts(turns);
  if (drafts.length === 0) return 0;
  const root = repoFolder(scope.repo);
  if (root) for (const d of drafts) d.root = root;
  const mineFilter = { run_id: scope.run_id, category: 'note' as const, metadata: { ...EPISODE_META } };
  // A document record (documents.ts) is no episode of the session's turns: nothing folds into it.
  const existing = (await engine.list({ filter: mineFilter, limit: 200 })).results.filter((r) => !isDocument(r));
  const seen = new Set(existing.map((r) => r.content));
  // An episode that follow-ups were folded into starts with the block it was stored as.
  for (const r of existing) {
    const at = r.content.indexOf('\nThen asked: ');
    if (at > 0) seen.add(r.content.slice(0, at));
  }
  let latest: VersionRow | null = existing[0] ?? null;
  let written = 0;
  for (const d of drafts) {
    const records = episodeRecords(d);
    const follow = followUpText(d);
    if (records.length === 0 || records.every((blocks) => seen.has(blocks[0]!)) || (latest && latest.content.includes(follow))) continue;
    // What the assistant found on the way (notes) or what failed would be cut from a folded line.
    const short = d.request.trim().length <= FOLLOW_UP_CHARS && d.outcome.trim().length <= FOLLOW_UP_OUTCOME && d.qa.length === 0 && d.reports.length === 0 && !d.task && !notesText(d.notes ?? []) && !d.failures?.length;
    if (short && latest && latest.content.length + follow.length + 1 <= MAX_EPISODE) {
      const rows = await engine.update(latest.memory_id, { content: `${latest.content}\n${follow}` });
      latest = rows[rows.length - 1] ?? latest;
      written++;
      continue;
    }
    const turn = contentHash(`${scope.run_id}\u0000${records[0]![0]}`).slice(0, 16);
    const own = d.outcome.trim() !== '' || d.qa.length > 0;
    for (const [r, blocks] of records.entries()) {
      if (seen.has(blocks[0]!)) continue;
      const isReport = r > 0 || !own;
      // The turn's records (its own, its reports) share their request: one text to the relevance floor.
      const rows = await addEpisodeRecord(engine, scope, blocks, { ...(records.length > 1 ? { turn } : {}), ...(isReport ? { report: true } : {}) });
      for (const b of blocks) seen.add(b);
      // A follow-up folds into the turn's own record (its request and outcome).
      if (!isReport) latest = rows[0] ?? latest;
      written += rows.length;
    }
  }
  await ageEpisodes(engine, scope.repo);
  return written;
}

/** Forget a repository's oldest episode blocks beyond EPISODE_BLOCKS_PER_REPO. */
export async function ageEpisodes(engine: MemoryEngine, repo: string | null, keep = EPISODE_BLOCKS_PER_REPO): Promise<number> {
  const filter = { repo, category: 'note' as const, metadata: { ...EPISODE_META } };
  const count = await engine.count(filter);
  if (count <= keep) return 0;
  const all: VersionRow[] = [];
  let cursor: string | undefined;
  do {
    const page = await engine.list({ filter, limit: 500, ...(cursor ? { cursor } : {}) });
    all.push(...page.results);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  const old = all.sort((a, b) => b.recorded_at - a.recorded_at).slice(keep);
  for (const r of old) await engine.delete(r.memory_id);
  return old.length;
}
