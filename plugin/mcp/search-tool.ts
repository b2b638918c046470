/**
 * The `search` tool of the plugin's `memory` MCP server (the model sees it as memory.search):
 * scope-aware search through the daemon, answering `{results: [{memory_id, content, score}]}` with
 * at most `SERVICE_TOP_K` results. An empty answer says which scope was searched and how many
 * memories the other scopes hold (SPEC §7, "search returns nothing").
 */
import { post, Reset, Unreachable } from '../../hooks/lib/http.js';
import type { McpSettings, SearchScope } from './settings.js';

export interface SearchArgs {
  query: string;
  scope?: SearchScope | undefined;
}

/** What the daemon's POST /v1/local/search answers. */
export interface LocalSearch {
  results: { memory_id: string; content: string; score?: number | null }[];
  scope: string;
  repo: string | null;
  dir: string | null;
  other_scopes: Record<string, number | null>;
}

/** An error the daemon answered (its `{error: {code, message, details}}` body). */
export class DaemonAnswer extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export interface SearchDeps {
  /** The settings, or the error that made them invalid. */
  settings: McpSettings | Error;
  socket: string;
  /** Working directory the scope is resolved from (CLAUDE_PROJECT_DIR, else the cwd). */
  cwd: string;
  /** Start the daemon; called once when it does not answer. */
  startDaemon: () => Promise<void>;
  timeoutMs?: number;
}

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: { results: { memory_id: string; content: string; score: number }[] };
  isError?: boolean;
}

function failure(message: string): ToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** "No memories in scope dir (…). Other scopes hold: repo 3, user 1." */
export function emptyNote(r: LocalSearch, cwd: string): string {
  const where = r.scope === 'repo' ? ` (${r.repo})` : r.scope === 'dir' ? ` (${r.repo}, directory ${r.dir ?? '.'})` : r.scope === 'session' ? ' (this session)' : '';
  const others = Object.entries(r.other_scopes).filter((e): e is [string, number] => e[0] !== r.scope && typeof e[1] === 'number');
  const held = others.filter(([, n]) => n > 0);
  const counts = others.map(([s, n]) => `${s} ${n}`).join(', ');
  const next = held.length > 0 ? ` Search again with scope "${held[0]![0]}".` : ' No scope holds memories here yet: they appear after a session is flushed (run /memory:status to see why).';
  return `No memories found in scope "${r.scope}"${where}, which holds ${r.other_scopes[r.scope] ?? 0}. Other scopes hold: ${counts || 'none'} (searched from ${cwd}).${next}`;
}

function explain(err: DaemonAnswer, scope: SearchScope, cwd: string): string {
  const field = (err.details as { field?: string } | undefined)?.field;
  if (err.code === 'VALIDATION_FAILED' && field === 'repo') return `${cwd} is not inside a git repository, so scope "${scope}" has nothing to search; try scope "user".`;
  if (err.code === 'VALIDATION_FAILED' && field === 'run_id') return `No agent session is active in ${cwd} yet, so scope "session" has nothing to search; try scope "repo".`;
  return `memory search failed: ${err.message}`;
}

async function localSearch(deps: SearchDeps, request: Record<string, unknown>): Promise<LocalSearch> {
  const r = await post(deps.socket, '/v1/local/search', request, deps.timeoutMs ?? 15_000);
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    throw new Error(`the memory daemon answered ${r.status} with a body that is not JSON`);
  }
  if (r.status === 200) return body as LocalSearch;
  const e = (body as { error?: { code?: string; message?: string; details?: unknown } }).error;
  throw new DaemonAnswer(e?.code ?? 'INTERNAL', e?.message ?? `the memory daemon answered ${r.status}`, e?.details);
}

export async function searchTool(args: SearchArgs, deps: SearchDeps): Promise<ToolResult> {
  const { settings } = deps;
  if (settings instanceof Error) return failure(`${settings.message} Fix it where you set it (your shell, the "env" block of Claude Code's settings, or service config set), then restart Claude Code.`);
  const scope = args.scope ?? settings.searchScope;
  // What the agent acts on clears the same relevance floor as what recall injects.
  const request: Record<string, unknown> = { query: args.query, scope, cwd: deps.cwd, top_k: settings.topK, relevant: true };
  let r: LocalSearch;
  try {
    try {
      r = await localSearch(deps, request);
    } catch (err) {
      if (err instanceof DaemonAnswer && err.code === 'VALIDATION_FAILED' && /relevant/.test(err.message)) {
        // A daemon older than this plugin knows no relevance floor: search without it.
        delete request.relevant;
        r = await localSearch(deps, request);
      } else {
        if (!(err instanceof Unreachable || err instanceof Reset)) throw err;
        await deps.startDaemon();
        r = await localSearch(deps, request);
      }
    }
  } catch (err) {
    if (err instanceof DaemonAnswer) return failure(explain(err, scope, deps.cwd));
    if (err instanceof Unreachable) return failure(`the memory daemon is not reachable (${err.message}); start it with: service daemon start`);
    return failure(err instanceof Error ? err.message : String(err));
  }
  const results = r.results.slice(0, settings.topK).map((m) => ({ memory_id: m.memory_id, content: m.content, score: m.score ?? 0 }));
  const content: ToolResult['content'] = [{ type: 'text', text: JSON.stringify({ results }) }];
  if (results.length === 0) content.push({ type: 'text', text: emptyNote(r, deps.cwd) });
  return { content, structuredContent: { results } };
}
