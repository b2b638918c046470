/**
 * Flush one session: the turns captured since its last flush (transcript first, journal events
 * for what the transcript lacks) → redact → extract → consolidate into memories → advance the
 * session's cursors. Idempotent: replaying the same turns finds the exact duplicates and writes
 * nothing new.
 */
import { contentHash, redact, type Extractor, type ExtractTurn, type IngestResult, type MemoryEngine } from '../engine/index.js';
import type { LiveSession } from './sessions.js';
import { CLIPPED } from './capture.js';
import { AGENT_NOTICE, notificationReport, SHELL_TOOL, SYSTEM_REMINDER, withoutHarness, withoutIdeContext } from './transcript-lines.js';
import { readTranscript, toolText, type ReadResult, type Turn } from './transcript.js';
import { opensEpisode, recordEpisodes } from './episodes.js';
import { recordDocuments } from './documents.js';
import type { JournalEntry } from './journal.js';

export interface FlushDeps {
  engine: MemoryEngine;
  extractor: Extractor;
  userId: string;
  /** False while the session is paused: what the transcript gained since is not read. */
  readTranscript?: boolean;
}

export interface FlushResult {
  session_id: string;
  turns: number;
  candidates: number;
  results: IngestResult[];
  /** Episodes added or extended (episodes.ts). */
  episodes: number;
  /** Why the store refused records this flush left out (a record too long or malformed), if any did. */
  refused?: string[];
}

/** Turns derived from journaled hook events (used for whatever the transcript does not have). */
export function journalTurns(entries: readonly JournalEntry[]): Turn[] {
  const turns: Turn[] = [];
  for (const e of entries) {
    const p = e.p;
    if (e.e === 'UserPromptSubmit' && typeof p.prompt === 'string') {
      // A background task's notification or another session's message is an agent talking, not the user.
      const note = notificationReport(p.prompt);
      const prompt = withoutIdeContext(withoutHarness(p.prompt));
      if (note) turns.push({ uuid: null, role: 'tool', tool: 'Task', kind: 'report', text: note.text, ...(note.title ? { title: note.title } : {}) });
      else if (prompt && !AGENT_NOTICE.test(prompt)) turns.push({ uuid: null, role: 'user', text: prompt });
    } else if (e.e === 'Stop' && typeof p.message === 'string') turns.push({ uuid: null, role: 'assistant', text: p.message });
    // A subagent's last message is its report to the parent agent, not the assistant's words.
    else if (e.e === 'SubagentStop' && typeof p.message === 'string' && typeof p.agent_transcript_path !== 'string') turns.push({ uuid: null, role: 'tool', tool: 'Task', kind: 'report', text: p.message });
    else if ((e.e === 'PostToolUse' && typeof p.output === 'string') || (e.e === 'PostToolUseFailure' && typeof p.error === 'string')) {
      const ok = e.e === 'PostToolUse';
      const tool = typeof p.tool === 'string' ? p.tool : undefined;
      const input = typeof p.input === 'string' ? p.input : undefined;
      // A shell command journaled whole (not clipped) is read like the transcript's: its steps, its commits.
      const command = tool && SHELL_TOOL.test(tool) && input && !CLIPPED.test(input) ? input : undefined;
      const said = (ok ? p.output : p.error) as string;
      turns.push({
        uuid: null,
        role: 'tool',
        text: command !== undefined ? toolText(command, said) : `${input !== undefined ? `${input}\n` : ''}${said}`,
        ok,
        ...(tool ? { tool } : {}),
        ...(command !== undefined ? { command } : {}),
        ...(typeof p.tool_use_id === 'string' ? { toolUseId: p.tool_use_id } : {}),
      });
    }
  }
  return turns;
}

/** Words compared without what is not the speaker's: the IDE's notes, an app's instructions, Claude Code's reminders, spacing. */
function spoken(text: string): string {
  return withoutIdeContext(withoutHarness(text)).replace(SYSTEM_REMINDER, ' ').replace(/\s+/g, ' ').trim();
}

/** A transcript line's words as `mergeTurns` compares them with the journal's (redacted, `spoken`), `role:…`. */
function saidWords(role: string, text: string): string {
  return `${role}:${spoken(redact(text).text)}`;
}

/** `saidWords`, hashed: how words said outside the turns being merged are remembered. */
function saidKey(role: string, text: string): string {
  return contentHash(saidWords(role, text));
}

/** How much of a long message `prefixKey` keeps: well within what the journal keeps of a clipped one. */
const SAID_PREFIX = 2000;

/** The key of the start of words (`role:…` as `mergeTurns` compares them): a clipped journal message is matched by it. */
function prefixKey(words: string): string {
  return contentHash(`prefix:${words.slice(0, SAID_PREFIX)}`);
}

/**
 * Transcript turns, plus the journal turns the transcript does not already hold: a tool call whose
 * result the transcript has shown (same `tool_use_id`), or words the transcript holds, on the turns
 * read or on lines they leave out (`elsewhere`: saidKey of a branch the user rewound away from, whose
 * prompts the journal also has). The journal's words are redacted and may be clipped: they count as
 * held when a transcript turn, redacted, says the same (or begins with what was kept of a clipped message).
 */
export function mergeTurns(transcript: readonly Turn[], journal: readonly Turn[], results: ReadonlySet<string> = new Set(), elsewhere: ReadonlySet<string> = new Set()): Turn[] {
  const seen = new Set(transcript.map((t) => contentHash(t.text)));
  let said: string[] | undefined;
  const held = (t: Turn): boolean => {
    if (t.toolUseId !== undefined && results.has(t.toolUseId)) return true;
    if (seen.has(contentHash(t.text))) return true;
    if (t.role === 'tool') return false;
    said ??= transcript.filter((u) => u.role !== 'tool').map((u) => saidWords(u.role, u.text));
    const words = `${t.role}:${spoken(t.text.replace(CLIPPED, ''))}`;
    if (CLIPPED.test(t.text)) return said.some((u) => u.startsWith(words)) || (words.length >= SAID_PREFIX && elsewhere.has(prefixKey(words)));
    return said.includes(words) || elsewhere.has(contentHash(words));
  };
  return [...transcript, ...journal.filter((t) => !held(t))];
}

/**
 * The transcripts of the subagents that stopped (SubagentStop's agent_transcript_path), read whole:
 * each one's task, its work and its report, after the session's own turns. A report the session's
 * transcript also holds (the Task tool's result) is then left to the subagent's turns.
 */
export function subagentTurns(entries: readonly JournalEntry[], s?: LiveSession): Turn[] {
  const files = [...new Set(entries.filter((e) => e.e === 'SubagentStop' && typeof e.p.agent_transcript_path === 'string').map((e) => e.p.agent_transcript_path as string))];
  return files.flatMap((f) => {
    const r = readTranscript(f, 0, { agent: true });
    if (s) noteResults(s, r);
    return r.turns;
  });
}

/** Most turns an unfinished turn carries to the next flush; a longer one is recorded as it stands. */
const MAX_OPEN_TURNS = 2000;

/**
 * Whether this flush comes inside a turn (a compaction, an idle flush during a long tool call): a
 * prompt came after the last Stop, or nothing since continued the turn the last flush left open.
 * A flush at a turn's end, at the session's end or into a pause records everything.
 */
function insideTurn(s: LiveSession, pending: readonly JournalEntry[], deps: FlushDeps): boolean {
  if (s.ended || deps.readTranscript === false) return false;
  let prompt = -1;
  let stop = -1;
  for (const e of pending) {
    if (e.e === 'UserPromptSubmit') prompt = e.j;
    else if (e.e === 'Stop' || e.e === 'SessionEnd') stop = e.j;
  }
  if (stop > prompt) return false;
  return prompt >= 0 || (s.openTurn?.length ?? 0) > 0;
}

/** Most tool-result ids (and words said elsewhere) a session remembers (`LiveSession.toolResults`, `saidElsewhere`). */
const MAX_RESULT_IDS = 4096;

function noteResults(s: LiveSession, r: Pick<ReadResult, 'results' | 'elsewhere'>): void {
  remember((s.toolResults ??= new Set()), r.results);
  if (r.elsewhere.length > 0) remember((s.saidElsewhere ??= new Set()), r.elsewhere.map((x) => saidKey(x.role, x.text)));
}

/**
 * Remember the words of transcript turns this flush read: a hook event journaled after them (a Stop
 * whose last message an earlier flush already read, as after a compaction or an API error) then
 * adds nothing. Merged in at the end of a later flush, such a message would be taken for the outcome
 * of the request before it (a real session, claudehistory: the answer to its last question was
 * replaced by the API error of a turn before the compaction).
 */
function noteSaid(s: LiveSession, turns: readonly Turn[]): void {
  const said: string[] = [];
  for (const t of turns) {
    if (t.role === 'tool' || t.sidechain) continue;
    const words = saidWords(t.role, t.text);
    said.push(contentHash(words));
    if (words.length >= SAID_PREFIX) said.push(prefixKey(words));
  }
  if (said.length > 0) remember((s.saidElsewhere ??= new Set()), said);
}

/** Add `items` to a set that keeps the latest MAX_RESULT_IDS. */
function remember(known: Set<string>, items: readonly string[]): void {
  for (const id of items) known.add(id);
  for (const id of known) {
    if (known.size <= MAX_RESULT_IDS) break;
    known.delete(id);
  }
}

/** Read the transcript ahead of the flushed cursor into the session's buffer. */
export function readAhead(s: LiveSession): void {
  if (!s.transcript) return;
  const r = readTranscript(s.transcript, s.readOffset, s.queuedAt !== undefined ? { queuedAt: s.queuedAt } : {});
  s.queuedAt = r.queuedAt;
  if (r.rewound) {
    // The file was replaced or truncated: start over; consolidation dedupes what was seen.
    s.buffered = [];
    s.offset = 0;
  }
  s.buffered.push(...r.turns, ...r.agents.map((t): Turn => ({ ...t, sidechain: true })));
  noteResults(s, r);
  s.readOffset = r.offset;
}

export async function flushSession(s: LiveSession, deps: FlushDeps): Promise<FlushResult> {
  const readFrom = s.offset;
  if (deps.readTranscript !== false) readAhead(s);
  const pending = [...s.pending];
  // Subagents' conversations: an older client's written inline in the transcript, a newer one's in their own files.
  const agents = [...s.buffered.filter((t) => t.sidechain), ...(deps.readTranscript !== false ? subagentTurns(pending, s) : [])];
  const agentText = new Set(agents.filter((t) => t.role === 'assistant').map((t) => contentHash(t.text)));
  const read = s.buffered.filter((t) => !t.sidechain);
  const own = mergeTurns(read, journalTurns(pending), s.toolResults, s.saidElsewhere).filter((t) => t.kind !== 'report' || !agentText.has(contentHash(t.text)));
  const turns = [...own, ...agents];
  // Transcript text is in clear on disk (Claude Code's file): redact before anything else.
  const clean: Turn[] = turns.map((t) => ({
    ...t,
    text: redact(t.text).text,
    ...(t.task ? { task: redact(t.task).text } : {}),
    ...(t.title ? { title: redact(t.title).text } : {}),
    ...(t.writes ? { writes: t.writes.map((w) => ({ ...w, text: redact(w.text).text })) } : {}),
    ...(t.prints ? { prints: t.prints.map((p) => ({ path: p.path, text: redact(p.text).text })) } : {}),
    ...(t.item ? { item: { name: t.item.name, text: redact(t.item.text).text } } : {}),
  }));
  const extractTurns: ExtractTurn[] = clean.map((t) => ({
    role: t.role,
    text: t.text,
    ...(t.tool ? { tool: t.tool } : {}),
    ...(t.ok !== undefined ? { ok: t.ok } : {}),
    ...(t.kind ? { kind: t.kind } : {}),
    ...(t.task ? { task: t.task } : {}),
  }));
  const candidates = extractTurns.length > 0 ? await deps.extractor.extract(extractTurns) : [];
  const results =
    candidates.length > 0
      ? await deps.engine.ingest(candidates, {
          user_id: deps.userId,
          owner_id: deps.userId,
          run_id: s.id,
          repo: s.repo,
          dir: s.dir,
          source: { kind: 'capture', session_id: s.id },
        })
      : [];
  const refused: string[] = [];
  const scope = { user_id: deps.userId, run_id: s.id, repo: s.repo, dir: s.dir, onRefused: (err: Error) => refused.push(err.message) };
  // A turn still going on is carried to the next flush: its request now and its outcome later would
  // each be no episode (the outcome's turns have no request).
  const mine = [...(s.openTurn ?? []), ...clean.slice(0, own.length)];
  let cut = mine.length;
  if (insideTurn(s, pending, deps)) {
    const at = mine.findLastIndex(opensEpisode);
    if (at >= 0 && mine.length - at <= MAX_OPEN_TURNS) cut = at;
  }
  const ended = [...mine.slice(0, cut), ...clean.slice(own.length)];
  let episodes = ended.length > 0 ? await recordEpisodes(deps.engine, ended, scope) : 0;
  if (clean.length > 0) episodes += await recordDocuments(deps.engine, clean, scope);
  // Everything read is now reflected in the store: advance the cursors.
  noteSaid(s, read);
  s.offset = s.readOffset;
  s.buffered = [];
  const carried = s.openTurn?.length ?? 0;
  s.openTurn = cut < mine.length ? mine.slice(cut) : undefined;
  // Where to read again from if the daemon restarts before the turn ends: the read its request came in.
  s.openFrom = s.openTurn ? (cut < carried ? (s.openFrom ?? readFrom) : readFrom) : undefined;
  const maxJ = pending.reduce((m, e) => Math.max(m, e.j), s.flushedJ);
  s.flushedJ = maxJ;
  s.pending = s.pending.filter((e) => e.j > maxJ);
  s.lastFlush = Date.now();
  s.memories += results.filter((r) => r.event !== 'NOOP').length;
  return { session_id: s.id, turns: turns.length, candidates: candidates.length, results, episodes, ...(refused.length > 0 ? { refused } : {}) };
}
