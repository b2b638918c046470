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
 * passage that matches the prompt (`episodeSnippet`).
 *
 * Episodes never flood recall: a short follow-up turn ("update STATUS.md please") is folded into
 * the session's previous episode; a repository keeps at most EPISODE_BLOCKS_PER_REPO blocks (the
 * oldest are forgotten); recall weighs them below extracted facts, takes one block per episode and
 * injects at most MAX_EPISODES_INJECTED per prompt.
 */
import { contentHash, informativeTerms, isNarration, isQuestion, sentences, termForm, type MemoryEngine, type VersionRow } from '../engine/index.js';
import type { Turn } from './transcript.js';

/** Metadata that marks a memory as an episode. */
export const EPISODE_META = { kind: 'episode' } as const;
/** Episode blocks kept per repository; older ones are forgotten at flush. */
export const EPISODE_BLOCKS_PER_REPO = 1000;
/** Search scores of episodes are multiplied by this, so extracted facts outrank them. */
export const EPISODE_WEIGHT = 0.7;
/**
 * And those of a subagent's report by this too: what the turn concluded for the user outranks the
 * raw findings it was drawn from.
 */
export const REPORT_WEIGHT = 0.9;
/** Most episodes one recall injects. */
export const MAX_EPISODES_INJECTED = 3;
/** Longest episode text injected: the head and the passage that matches the prompt. */
export const SNIPPET_CHARS = 900;
/** How much of a block's first passage (its request) heads a snippet. */
const HEAD_CHARS = 160;
/** The head of an episode's later block. */
const CONTINUED_HEAD = /^\w+ \(continued\):/;

const MAX_REQUEST = 400;
/** The request as it heads a continuation block. */
const MAX_REQUEST_CONTINUED = 160;
const MAX_QA = 400;
const MAX_TITLE = 80;
const MAX_FILES = 8;
/** Longest episode block. */
const MAX_EPISODE = 2000;
/** A request this short, without questions answered, continues the previous episode. */
const FOLLOW_UP_CHARS = 80;
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
  /** The repository's folder name: files are shown from there ("apps/api/src/migrations/…"). */
  root?: string;
}

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();
/** Runs of spaces folded and blank lines dropped, line breaks kept (they bound a snippet's passages). */
export const tidy = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');

function clip(text: string, max: number): string {
  const t = collapse(text);
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
  for (const t of turns) {
    if (t.role === 'user' && t.kind !== 'answer') {
      if (!opensEpisode(t)) continue;
      cur = { request: t.text, ...(t.kind === 'task' ? { task: true } : {}), qa: [], outcome: '', reports: [], files: [] };
      out.push(cur);
      continue;
    }
    if (t.kind === 'report') {
      // A background agent may report after the turn that started it ended: it opens an episode.
      if (!cur) out.push((cur = { request: t.title || 'A subagent reported back', qa: [], outcome: '', reports: [], files: [] }));
      cur.reports.push({ text: t.text, ...(t.title ? { title: t.title } : {}) });
      continue;
    }
    if (!cur) continue;
    const command = t.role === 'tool' && /^(?:bash|shell)$/i.test(t.tool ?? '') ? /^\$ (.+)/.exec(t.text)?.[1]?.trim() : undefined;
    if (command && !LOOKING_AROUND.test(command)) {
      const commands = (cur.commands ??= []);
      const known = commands.find((c) => c.command === command);
      if (known) known.ok = t.ok !== false;
      else commands.push({ command, ok: t.ok !== false });
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
  return out.filter((d) => d.outcome.trim() !== '' || d.qa.length > 0 || d.reports.length > 0);
}

/**
 * A shell command that only looks around (lists, reads, searches, shows git, CI or container state)
 * or keeps version-control books (git add, commit, push, checkout …; the outcome says what was
 * committed), also behind a wrapper such as `sudo` or `time`, after any leading `cd … &&`: the
 * commands worth recording build, test, lint, run, install or change something else.
 */
const LOOKING_AROUND =
  /^(?:cd\s+\S+\s*(?:&&|;)\s*)*(?:cd|ls|ll|cat|head|tail|less|more|grep|egrep|rg|ag|find|fd|pwd|echo|printf|wc|sed|awk|tree|which|whereis|type|file|stat|du|df|sleep|true|env|printenv|date|whoami|uname|diff|sort|uniq|cut|jq|xxd|od|realpath|dirname|basename|test|\[)\b|^(?:cd\s+\S+\s*(?:&&|;)\s*)*(?:(?!git\b)[\w-]+\s+)?(?:git\s+(?:-C\s+\S+\s+)?(?:status|diff|log|show|branch|remote|rev-parse|ls-files|ls-tree|check-ignore|blame|describe|config --get|add|commit|push|pull|fetch|checkout|switch|stash|merge|rebase|reset|restore|cherry-pick|tag)|(?:gh|glab)\s+[\w-]+\s+(?:list|view|watch|status|diff|checks)|kubectl\s+(?:get|describe|logs)|docker\s+(?:ps|logs|images|inspect))\b/;
/** Most commands an episode lists, and the longest shown whole. */
const MAX_COMMANDS = 10;
const MAX_COMMAND = 120;

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
  const noted = notesText(d.notes ?? []);
  if (noted) sections.push({ label: 'Noted', text: noted });
  // A long request (a plan to implement, a spec, pasted findings) is kept whole after the outcome:
  // the user's words are never cut, and its head alone would lose what the plan decided.
  if (collapse(d.request).length > MAX_REQUEST) sections.push({ label: 'Request', text: tidy(d.request) });
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

/** About `size` characters of `text` around the first word whose term is in `terms`, cut at spaces. */
function windowAround(text: string, terms: ReadonlySet<string>, size: number): string {
  let at = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}_'’-]+/gu)) {
    if (informativeTerms(m[0]).some((t) => terms.has(t))) {
      at = m.index;
      break;
    }
  }
  let from = Math.max(0, Math.min(at - Math.floor(size / 3), text.length - size));
  if (from > 0) from = text.indexOf(' ', from) + 1 || from;
  let to = Math.min(text.length, from + size - 2);
  if (to < text.length) to = text.lastIndexOf(' ', to) > from ? text.lastIndexOf(' ', to) : to;
  return `${from > 0 ? '…' : ''}${text.slice(from, to).trim()}${to < text.length ? '…' : ''}`;
}

/** A follow-up folded into an episode: "Then asked: … → …". */
function followUpText(d: EpisodeDraft): string {
  return `Then asked: ${clip(d.request, FOLLOW_UP_CHARS)}${d.outcome ? ` → ${clip(d.outcome, 300)}` : ''}${d.files.length > 0 ? ` (files: ${filesLine(d.files, d.root)})` : ''}`;
}

/**
 * What recall shows of an episode block: the whole block when short, else the start of its request
 * and the passages (sentences, lines) holding the query's terms, the rarest in the block first,
 * each followed by what comes after it (where the answer to a matched heading or question sits),
 * within `max` characters. The stored block stays whole, for search.
 */
export function episodeSnippet(content: string, query: string, max = SNIPPET_CHARS): string {
  return snippetOf(content, query, max).text;
}

export interface Snippet {
  text: string;
  /**
   * The passages shown because they hold the query's terms (not the head, the opening or what
   * follows them): what this snippet says about the query. None when the block is shown whole.
   */
  passages: string[];
}

/** `episodeSnippet` with the passages it showed for the query. */
export function snippetOf(content: string, query: string, max = SNIPPET_CHARS): Snippet {
  if (collapse(content).length <= max) return { text: collapse(content), passages: [] };
  const units = content.split('\n').flatMap(passagesOfLine).map(collapse).filter(Boolean);
  const head = clip(units[0] ?? '', HEAD_CHARS);
  // Terms compared as the relevance floor compares them ("stored" and "store" alike).
  const termsOf = (text: string): string[] => informativeTerms(text).map(termForm);
  const wanted = new Set(termsOf(query));
  const held = units.map((u, i) => (i === 0 && u.length <= HEAD_CHARS ? new Set<string>() : new Set(termsOf(u).filter((t) => wanted.has(t)))));
  // A term few passages hold says more about which passage answers than one most of them hold.
  const df = new Map<string, number>();
  for (const h of held) for (const t of h) df.set(t, (df.get(t) ?? 0) + 1);
  const weight = (i: number): number => [...held[i]!].reduce((a, t) => a + 1 / df.get(t)!, 0);
  const order = units.map((_, i) => i).filter((i) => held[i]!.size > 0);
  order.sort((a, b) => weight(b) - weight(a) || a - b);
  let room = max - head.length - 2;
  const shown = new Map<number, string>();
  const take = (i: number, text: string): void => {
    shown.set(i, text);
    // The request shown whole replaces the head that clips it.
    room -= text.length + 3 - (i === 0 ? head.length + 2 : 0);
  };
  // 0. An episode's first block opens with what the turn came to (a summary, the answer): its
  // first passages, in a third of the room.
  if (!CONTINUED_HEAD.test(units[0] ?? '')) {
    let opening = Math.floor(room / 3);
    for (let j = 1; j < units.length && units[j]!.length + 3 <= opening; j++) {
      opening -= units[j]!.length + 3;
      take(j, units[j]!);
    }
  }
  // 1. The densest region first: the shortest run of passages holding more of the query's terms
  // (rare ones weighing more) than any one passage does, when it fits in the room ("There is an
  // auto-follow toggle … Located in scope-bar.tsx … Button with …": the answer sits between the
  // passages that hold the terms).
  const cover = (from: number, to: number): number => {
    const terms = new Set<string>();
    for (let k = from; k <= to; k++) for (const t of held[k]!) terms.add(t);
    return [...terms].reduce((a, t) => a + 1 / df.get(t)!, 0);
  };
  const single = order.length > 0 ? weight(order[0]!) : 0;
  let region: { from: number; to: number; score: number; length: number } | null = null;
  for (const from of order) {
    if (shown.has(from)) continue;
    let length = 0;
    for (let to = from; to < units.length && !shown.has(to); to++) {
      length += units[to]!.length + 3;
      if (length > room) break;
      if (to === from || held[to]!.size === 0) continue;
      const score = cover(from, to);
      if (score > single + 1e-9 && (!region || score > region.score + 1e-9 || (Math.abs(score - region.score) <= 1e-9 && length < region.length))) region = { from, to, score, length };
    }
  }
  const matched: string[] = [];
  if (region) {
    for (let k = region.from; k <= region.to; k++) {
      take(k, units[k]!);
      if (held[k]!.size > 0) matched.push(units[k]!);
    }
  }
  // 2. The matching passages, best first; one longer than the room is cut around its match.
  for (const i of order) {
    if (room < 40) break;
    if (shown.has(i)) {
      if (!matched.includes(units[i]!)) matched.push(units[i]!);
      continue;
    }
    if (units[i]!.length + 3 <= room) take(i, units[i]!);
    else if (shown.size === 0) take(i, windowAround(units[i]!, held[i]!, room - 3));
    else continue;
    matched.push(units[i]!);
  }
  // 3. What follows each of them, in the room left (the last piece cut to fit).
  for (const i of [...shown.keys()].sort((a, b) => a - b)) {
    for (let j = i + 1; j < units.length && room >= 40 && !shown.has(j); j++) {
      const u = units[j]!;
      take(j, u.length + 3 <= room ? u : `${u.slice(0, Math.max(0, room - 4)).trimEnd()}…`);
    }
  }
  let out = joinShown(head, shown);
  if (out.length > max) out = `${out.slice(0, max - 1).trimEnd()}…`;
  return { text: out, passages: matched };
}

/**
 * A line's sentences: cut after ".", "!", "?" or ";" and a space, never inside a code span
 * ("Added `uv tool install . --reinstall` to the README" is one passage).
 */
function passagesOfLine(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  let code = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '`') code = !code;
    else if (!code && /[.!?;]/.test(c) && /\s/.test(line[i + 1] ?? '')) {
      out.push(line.slice(start, i + 1));
      start = i + 2;
    }
  }
  out.push(line.slice(start));
  return out;
}

/**
 * The head, then the shown passages in order, "…" where passages were skipped. When the first
 * passage (the request the head clips) is shown itself, it stands for the head.
 */
function joinShown(head: string, shown: ReadonlyMap<number, string>): string {
  let out = shown.get(0) ?? head;
  let prev = 0;
  for (const i of [...shown.keys()].sort((a, b) => a - b)) {
    if (i === 0) continue;
    out += i === prev + 1 ? ` ${shown.get(i)}` : ` … ${shown.get(i)}`;
    prev = i;
  }
  return out;
}

/** An episode record holding what a subagent reported. */
export function isReport(row: Pick<VersionRow, 'metadata'>): boolean {
  return isEpisode(row) && (row.metadata as Record<string, unknown>).report === true;
}

/** An episode record holding a project document the session read or wrote (documents.ts). */
export function isDocument(row: Pick<VersionRow, 'metadata'>): boolean {
  return isEpisode(row) && typeof (row.metadata as Record<string, unknown>).doc === 'string';
}

export function isEpisode(row: Pick<VersionRow, 'metadata'>): boolean {
  return (row.metadata as Record<string, unknown> | null | undefined)?.kind === EPISODE_META.kind;
}

export interface EpisodeScope {
  user_id: string;
  run_id: string;
  repo: string | null;
  dir: string | null;
}

/**
 * Store one record (an episode, a report, a project document) in the session's repository: the
 * blocks of one text (recall shows one of them), with `metadata` beside the episode marker.
 */
export function addEpisodeRecord(engine: MemoryEngine, scope: EpisodeScope, blocks: readonly string[], metadata: Record<string, unknown>): Promise<VersionRow[]> {
  return engine.add({
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
    const short = d.request.trim().length <= FOLLOW_UP_CHARS && d.qa.length === 0 && d.reports.length === 0 && !d.task;
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

/**
 * The turn an episode record belongs to, for the relevance floor: a turn's records (its outcome,
 * each report) share their request, so they are one text there; any other memory is its own.
 */
export function turnOf(row: VersionRow): string {
  const turn = (row.metadata as Record<string, unknown> | null | undefined)?.turn;
  return typeof turn === 'string' && isEpisode(row) ? `turn:${turn}` : (row.block?.group_id ?? row.memory_id);
}

/** The episode record a block belongs to (its own id when it is the record's only block). */
export function episodeOf(row: Pick<VersionRow, 'block' | 'memory_id'>): string {
  return row.block?.group_id ?? row.memory_id;
}

/**
 * Hits reweighted so extracted facts outrank episodes, one block per episode (its best), and at
 * most `maxEpisodes` episodes kept.
 */
export function weighEpisodes<T extends { row: VersionRow; score: number }>(hits: readonly T[], maxEpisodes = Number.POSITIVE_INFINITY): T[] {
  const shown = new Set<string>();
  return hits
    .map((h) => (isEpisode(h.row) ? { ...h, score: h.score * EPISODE_WEIGHT * (isReport(h.row) ? REPORT_WEIGHT : 1) } : h))
    .sort((a, b) => b.score - a.score)
    .filter((h) => {
      if (!isEpisode(h.row)) return true;
      const id = episodeOf(h.row);
      if (shown.has(id) || shown.size >= maxEpisodes) return false;
      shown.add(id);
      return true;
    });
}
