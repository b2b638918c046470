/**
 * Episodic memory: every turn of a session leaves a searchable record of what happened — the
 * user's request, the assistant's outcome (its final message), the questions it asked and the
 * answers, the files it changed — in the session's run and its repository, so "what did we
 * decide about X / how did we fix Y" finds an answer even when no extraction rule fired.
 *
 * Episodes never flood recall: a short follow-up turn ("update STATUS.md please") is folded into
 * the session's previous episode; a repository keeps at most EPISODES_PER_REPO of them (the
 * oldest are forgotten); recall weighs them below extracted facts and injects at most
 * MAX_EPISODES_INJECTED per prompt.
 */
import type { MemoryEngine, VersionRow } from '../engine/index.js';
import type { Turn } from './transcript.js';

/** Metadata that marks a memory as an episode. */
export const EPISODE_META = { kind: 'episode' } as const;
/** Episodes kept per repository; older ones are forgotten at flush. */
export const EPISODES_PER_REPO = 400;
/** Search scores of episodes are multiplied by this, so extracted facts outrank them. */
export const EPISODE_WEIGHT = 0.7;
/** Most episodes one recall injects. */
export const MAX_EPISODES_INJECTED = 2;

const MAX_REQUEST = 400;
const MAX_OUTCOME = 700;
const MAX_QA = 400;
const MAX_FILES = 8;
const MAX_EPISODE = 2000;
/** A request this short, without questions answered, continues the previous episode. */
const FOLLOW_UP_CHARS = 80;
/** Requests that are a hook talking, not the user. */
const NOT_A_REQUEST = /^(?:Stop hook feedback|\[Request interrupted)/;

export interface EpisodeDraft {
  request: string;
  qa: string[];
  outcome: string;
  files: string[];
}

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

/** Group turns by typed request: the request, its Q&A, the last assistant message, files changed. */
export function episodeDrafts(turns: readonly Turn[]): EpisodeDraft[] {
  const out: EpisodeDraft[] = [];
  let cur: EpisodeDraft | null = null;
  for (const t of turns) {
    if (t.role === 'user' && t.kind !== 'answer') {
      if (NOT_A_REQUEST.test(t.text.trim())) continue;
      cur = { request: t.text, qa: [], outcome: '', files: [] };
      out.push(cur);
      continue;
    }
    if (!cur) continue;
    if (t.kind === 'answer') cur.qa.push(t.text);
    else if (t.role === 'assistant' && t.kind !== 'summary') {
      if (t.text.trim()) cur.outcome = t.text;
      for (const f of t.files ?? []) if (!cur.files.includes(f)) cur.files.push(f);
    }
  }
  return out.filter((d) => d.outcome.trim() !== '' || d.qa.length > 0);
}

function filesLine(files: readonly string[]): string {
  const names = files.slice(0, MAX_FILES).map((f) => f.split('/').slice(-2).join('/'));
  return `${names.join(', ')}${files.length > MAX_FILES ? ` and ${files.length - MAX_FILES} more` : ''}`;
}

/** An episode as memory content. */
export function episodeText(d: EpisodeDraft): string {
  const parts = [`Asked: ${clip(d.request, MAX_REQUEST)}`];
  for (const qa of d.qa) parts.push(`Answered: ${clip(qa, MAX_QA)}`);
  if (d.outcome) parts.push(`Outcome: ${clip(d.outcome, MAX_OUTCOME)}`);
  if (d.files.length > 0) parts.push(`Files: ${filesLine(d.files)}`);
  return parts.join('\n');
}

/** A follow-up folded into an episode: "Then asked: … → …". */
function followUpText(d: EpisodeDraft): string {
  return `Then asked: ${clip(d.request, FOLLOW_UP_CHARS)}${d.outcome ? ` → ${clip(d.outcome, 300)}` : ''}${d.files.length > 0 ? ` (files: ${filesLine(d.files)})` : ''}`;
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
 * Store the episodes of flushed turns: new ones added, short follow-ups folded into the session's
 * latest episode, an episode already stored (the same turns replayed) left alone; then the
 * repository's oldest episodes beyond EPISODES_PER_REPO forgotten. Returns episodes written.
 */
export async function recordEpisodes(engine: MemoryEngine, turns: readonly Turn[], scope: EpisodeScope): Promise<number> {
  const drafts = episodeDrafts(turns);
  if (drafts.length === 0) return 0;
  const mineFilter = { run_id: scope.run_id, category: 'note' as const, metadata: { ...EPISODE_META } };
  const existing = (await engine.list({ filter: mineFilter, limit: 200 })).results;
  const seen = new Set(existing.map((r) => r.content));
  let latest: VersionRow | null = existing[0] ?? null;
  let written = 0;
  for (const d of drafts) {
    const text = episodeText(d);
    const follow = followUpText(d);
    if (seen.has(text) || (latest && latest.content.includes(follow))) continue;
    const short = d.request.trim().length <= FOLLOW_UP_CHARS && d.qa.length === 0;
    if (short && latest && latest.content.length + follow.length + 1 <= MAX_EPISODE) {
      const rows = await engine.update(latest.memory_id, { content: `${latest.content}\n${follow}` });
      latest = rows[rows.length - 1] ?? latest;
      written++;
      continue;
    }
    const [row] = await engine.add({
      content: text.slice(0, MAX_EPISODE),
      user_id: scope.user_id,
      owner_id: scope.user_id,
      run_id: scope.run_id,
      space: 'project',
      repo: scope.repo,
      dir: scope.dir,
      category: 'note',
      source: { kind: 'capture', session_id: scope.run_id },
      metadata: { ...EPISODE_META },
    });
    seen.add(text);
    latest = row ?? latest;
    written++;
  }
  await ageEpisodes(engine, scope.repo);
  return written;
}

/** Forget a repository's oldest episodes beyond EPISODES_PER_REPO. */
export async function ageEpisodes(engine: MemoryEngine, repo: string | null, keep = EPISODES_PER_REPO): Promise<number> {
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

/** Hits reweighted so extracted facts outrank episodes, and at most `maxEpisodes` episodes kept. */
export function weighEpisodes<T extends { row: VersionRow; score: number }>(hits: readonly T[], maxEpisodes = Number.POSITIVE_INFINITY): T[] {
  let episodes = 0;
  return hits
    .map((h) => (isEpisode(h.row) ? { ...h, score: h.score * EPISODE_WEIGHT } : h))
    .sort((a, b) => b.score - a.score)
    .filter((h) => !isEpisode(h.row) || ++episodes <= maxEpisodes);
}
