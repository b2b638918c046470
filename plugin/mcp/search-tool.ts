/**
 * The `search` tool of the plugin's `memory` MCP server (the model sees it as memory.search):
 * scope-aware search through the daemon, answering `{results: [{memory_id, content, score}]}` with
 * at most `SERVICE_TOP_K` results. An empty answer says which scope was searched and how many
 * memories the other scopes hold (SPEC §7, "search returns nothing").
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DaemonApiError, DaemonUnreachableError, type DaemonClient } from '../../daemon/client.js';
import type { Config, Scope } from '../../engine/index.js';

export interface SearchArgs {
  query: string;
  scope?: Scope | undefined;
}

export interface SearchDeps {
  /** The resolved configuration, or the error that made it invalid. */
  config: Config | Error;
  client: DaemonClient;
  /** Working directory the scope is resolved from (CLAUDE_PROJECT_DIR, else the cwd). */
  cwd: string;
  /** Start the daemon; called once when it does not answer. */
  startDaemon: () => Promise<void>;
}

export interface SearchOutput {
  [key: string]: unknown;
  results: { memory_id: string; content: string; score: number }[];
}

type LocalSearch = Awaited<ReturnType<DaemonClient['localSearch']>>;

function failure(message: string): CallToolResult {
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

function explain(err: DaemonApiError, scope: Scope, cwd: string): string {
  const field = (err.details as { field?: string } | undefined)?.field;
  if (err.code === 'VALIDATION_FAILED' && field === 'repo') return `${cwd} is not inside a git repository, so scope "${scope}" has nothing to search; try scope "user".`;
  if (err.code === 'VALIDATION_FAILED' && field === 'run_id') return `No agent session is active in ${cwd} yet, so scope "session" has nothing to search; try scope "repo".`;
  return `memory search failed: ${err.message}`;
}

export async function searchTool(args: SearchArgs, deps: SearchDeps): Promise<CallToolResult> {
  const { config } = deps;
  if (config instanceof Error) return failure(`${config.message} Fix it where you set it (your shell or the "env" block of Claude Code's settings), then restart Claude Code.`);
  const scope = args.scope ?? config.searchScope;
  // What the agent acts on clears the same relevance floor as what recall injects.
  const request = { query: args.query, scope, cwd: deps.cwd, top_k: config.topK, relevant: true };
  let r: LocalSearch;
  try {
    try {
      r = await deps.client.localSearch(request);
    } catch (err) {
      if (err instanceof DaemonApiError && err.code === 'VALIDATION_FAILED' && /relevant/.test(err.message)) {
        // A daemon older than this plugin knows no relevance floor: search without it.
        const { relevant: _floor, ...older } = request;
        r = await deps.client.localSearch(older);
      } else {
        if (!(err instanceof DaemonUnreachableError)) throw err;
        await deps.startDaemon();
        r = await deps.client.localSearch(request);
      }
    }
  } catch (err) {
    if (err instanceof DaemonApiError) return failure(explain(err, scope, deps.cwd));
    return failure(err instanceof Error ? err.message : String(err));
  }
  const output: SearchOutput = { results: r.results.slice(0, config.topK).map((m) => ({ memory_id: m.memory_id, content: m.content, score: m.score ?? 0 })) };
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(output) }];
  if (output.results.length === 0) content.push({ type: 'text', text: emptyNote(r, deps.cwd) });
  return { content, structuredContent: output };
}
