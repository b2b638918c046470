/**
 * Recall for the agent: retrieve → filter → combine (DESIGN §5.7).
 * - SessionStart: project memories of this repo (constraints, decisions, conventions first),
 *   the user's personal memories, and what the most recent earlier session in this repo left.
 * - UserPromptSubmit: one hybrid search for the prompt over project + personal + this session.
 * Results below the score threshold, superseded versions and duplicates never make it in; the
 * block stays within the token budget and is empty rather than late.
 */
import { assembleContext, repoScope, type ContextSection, type MemoryEngine, type MemoryFilter, type VersionRow } from '../engine/index.js';
import type { Offered, SeenMemories } from './recall-seen.js';
import type { RepoInfo } from './repo.js';
import { isEpisode, MAX_EPISODES_INJECTED, turnOf, weighEpisodes } from './episode-rows.js';
import { episodeSnippet, snippetOf, SNIPPET_CHARS } from './episode-snippet.js';

export interface RecallRequest {
  event: 'SessionStart' | 'UserPromptSubmit';
  session_id: string | null;
  repo: RepoInfo;
  user_id: string;
  prompt?: string | undefined;
  /** Memories this session was already shown: left out, and what is shown now is added. */
  seen?: SeenMemories | undefined;
}

export interface RecallOptions {
  maxTokens: number;
  /** Results scoring below this are left out. @default 0.25 */
  minScore?: number;
  /** Memories considered per search. @default 12 */
  topK?: number;
  /** Full text only (the model is still loading: recall does not wait for it). @default false */
  textOnly?: boolean;
  /** Characters the block may take (it shares the hook's output with another block). */
  maxChars?: number;
}

/**
 * A memory the capture pipeline extracted is shown in a session's opening block (every session of
 * the repository, unasked) only when it is confident: stated by the user at this confidence, or by
 * the assistant, the compaction summary or a tool at OPENING_MIN_CONFIDENCE_NOT_USER. The others
 * still answer the prompts they are relevant to. What a person stored (remember, the API) is always shown.
 */
export const OPENING_MIN_CONFIDENCE = 0.7;
export const OPENING_MIN_CONFIDENCE_NOT_USER = 0.8;

export function opensSessions(row: Pick<VersionRow, 'source' | 'metadata'>): boolean {
  if (row.source?.kind !== 'capture') return true;
  const meta = (row.metadata ?? {}) as Record<string, unknown>;
  const confidence = typeof meta.confidence === 'number' ? meta.confidence : 0;
  const byUser = meta.speaker === undefined || meta.speaker === 'user';
  return confidence >= (byUser ? OPENING_MIN_CONFIDENCE : OPENING_MIN_CONFIDENCE_NOT_USER);
}

const PRIORITY: Record<string, number> = { constraint: 1, decision: 0.95, convention: 0.9, preference: 0.85, context: 0.7, fact: 0.7, note: 0.5 };

function item(row: VersionRow, score: number): ContextSection['items'][number] {
  return { content: row.content, category: row.category, score, updated_at: row.recorded_at };
}

/** Newest-first memories ranked by category priority, then recency. */
function byPriority(rows: VersionRow[]): { row: VersionRow; score: number }[] {
  const n = rows.length;
  return rows.map((row, i) => ({ row, score: (PRIORITY[row.category] ?? 0.5) * (1 - (0.3 * i) / Math.max(1, n)) }));
}

export async function recall(engine: MemoryEngine, req: RecallRequest, opts: RecallOptions): Promise<{ text: string; count: number }> {
  const { seen } = req;
  if (!seen) return recallFresh(engine, req, opts, () => true);
  const offered: Offered[] = [];
  const out = await recallFresh(engine, req, opts, (row) => {
    // An episode is shown as a snippet (recallFresh): that is the text to find in the block, and
    // it is new to the session while it shows a passage for this prompt the session was not shown.
    if (isEpisode(row) && req.event === 'UserPromptSubmit') {
      const snippet = snippetOf(row.content, (req.prompt ?? '').trim());
      if (seen.has(row.memory_id, snippet.passages)) return false;
      offered.push({ memory_id: row.memory_id, content: snippet.text, passages: snippet.passages });
      return true;
    }
    if (seen.has(row.memory_id)) return false;
    offered.push(row);
    return true;
  });
  seen.markShown(out.text, offered);
  return out;
}

/** Recall over the memories `fresh` lets through. */
async function recallFresh(engine: MemoryEngine, req: RecallRequest, opts: RecallOptions, fresh: (row: VersionRow) => boolean): Promise<{ text: string; count: number }> {
  const { repo } = req.repo;
  const projectFilter: MemoryFilter | null = repo ? repoScope(repo) : null;
  const personalFilter: MemoryFilter = { space: 'personal', user_id: req.user_id };
  const sessionFilter: MemoryFilter | null = req.session_id ? { run_id: req.session_id } : null;
  const sections: ContextSection[] = [];

  if (req.event === 'SessionStart') {
    const [project, personal] = await Promise.all([
      projectFilter ? engine.list({ filter: projectFilter, limit: 40 }) : Promise.resolve({ results: [] as VersionRow[] }),
      engine.list({ filter: personalFilter, limit: 20 }),
    ]);
    // Episodes are for questions (prompt recall), not for the session's opening summary.
    // Only confident memories open every session (opensSessions): junk shown there multiplies.
    const projectRows = project.results.filter((r) => r.run_id !== req.session_id && !isEpisode(r) && opensSessions(r) && fresh(r));
    // The most recent earlier session in this repo: its memories, newest first.
    const lastRun = projectRows.find((r) => r.run_id)?.run_id ?? null;
    const recent = lastRun ? projectRows.filter((r) => r.run_id === lastRun).slice(0, 5) : [];
    const recentIds = new Set(recent.map((r) => r.memory_id));
    sections.push({ title: `Project${repo ? ` (${repo})` : ''}`, items: byPriority(projectRows.filter((r) => !recentIds.has(r.memory_id))).map((x) => item(x.row, x.score)) });
    sections.push({ title: 'Personal', items: byPriority(personal.results.filter((r) => opensSessions(r) && fresh(r))).map((x) => item(x.row, x.score)) });
    if (recent.length > 0) sections.push({ title: 'Last session here', items: recent.map((r, i) => item(r, 0.9 - i * 0.05)) });
    return assembleContext(sections, { maxTokens: opts.maxTokens, ...(opts.maxChars ? { maxChars: opts.maxChars } : {}) });
  }

  const prompt = (req.prompt ?? '').trim();
  if (prompt.length < 3) return { text: '', count: 0 };
  const alternatives = [projectFilter, personalFilter, sessionFilter].filter((f): f is MemoryFilter => f !== null);
  const out = await engine.search({ query: prompt.slice(0, 2000), filter: { any_of: alternatives }, top_k: opts.topK ?? 12, threshold: opts.minScore ?? 0.25, relevance: true, textOf: turnOf, ...(opts.textOnly ? { mode: 'text' as const } : {}) });
  const project: ContextSection = { title: `Project${repo ? ` (${repo})` : ''}`, items: [] };
  const personal: ContextSection = { title: 'Personal', items: [] };
  const session: ContextSection = { title: 'This session', items: [] };
  for (const hit of weighEpisodes(out.results, MAX_EPISODES_INJECTED)) {
    const r = hit.row;
    if (!fresh(r)) continue;
    const target = req.session_id && r.run_id === req.session_id ? session : r.space === 'personal' ? personal : project;
    // An episode block is searched whole; the agent is shown its request and the passage that matches.
    target.items.push(item(isEpisode(r) ? { ...r, content: episodeSnippet(r.content, prompt) } : r, hit.score));
  }
  // An episode's snippet is up to SNIPPET_CHARS long: items may be that long here.
  return assembleContext([project, personal, session], { maxTokens: opts.maxTokens, maxItemChars: SNIPPET_CHARS, ...(opts.maxChars ? { maxChars: opts.maxChars } : {}) });
}
