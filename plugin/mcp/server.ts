/**
 * The plugin's MCP server over stdio: server `memory`, one tool `search` (Claude Code shows it as
 * memory.search), and the unlisted `hook` tool through which Claude Code hands it the events of the
 * plugin's `mcp_tool` hooks (hook-tool.ts): no process is started per event. `.mcp.json` starts it the way hooks.json starts the hooks (sh, NODE_EXTRA_CA_CERTS
 * emptied and handed back to a daemon it starts).
 *
 * Claude Code waits for this server before the first request of `claude -p`, so it is written
 * like the hooks: `node:` built-ins and hooks/lib only, a few kilobytes to load. It speaks the
 * part of MCP a tools-only server needs (JSON-RPC 2.0, one message per line): initialize, ping,
 * tools/list, tools/call; notifications are taken and ignored, other methods answered "method not
 * found". test/plugin/replay.test.ts drives it with the MCP SDK's own client, and
 * test/e2e/claude-code.test.ts with the real Claude Code.
 *
 * An invalid setting does not stop the server: every call answers with the error naming the
 * variable and its allowed values, so the user sees why rather than a server that failed to start.
 */
import path from 'node:path';
import { hookSocketPath, serviceHome } from '../../hooks/lib/paths.js';
import { callerEnv } from '../../hooks/lib/run.js';
import { HOOK_TOOL, hookTool } from './hook-tool.js';
import manifest from '../.claude-plugin/plugin.json' with { type: 'json' };
import { searchTool, type ToolResult } from './search-tool.js';
import { readSettings, SEARCH_SCOPES, type SearchScope } from './settings.js';
import { serviceCli, startDaemon } from './start-daemon.js';

/** Protocol revisions this server speaks, newest first; a client asking for another gets the newest. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const MAX_QUERY = 10_000;

const SEARCH_TOOL = {
  name: 'search',
  title: 'Search memory',
  description:
    'Search memories from earlier sessions: decisions, constraints, conventions and preferences. ' +
    'Scopes: repo (this repository, the default unless SERVICE_SEARCH_SCOPE says otherwise), dir (captured in this directory), ' +
    'user (your personal memory across repositories), session (this session). Returns {results: [{memory_id, content, score}]}.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: MAX_QUERY, description: 'What to look for, in plain words' },
      scope: { type: 'string', enum: [...SEARCH_SCOPES], description: 'repo | dir | user | session; defaults to SERVICE_SEARCH_SCOPE (repo)' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: { memory_id: { type: 'string' }, content: { type: 'string' }, score: { type: 'number' } },
          required: ['memory_id', 'content', 'score'],
          additionalProperties: false,
        },
      },
    },
    required: ['results'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

interface Request {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

type Reply = { result: unknown } | { error: { code: number; message: string } };

/** The search tool's arguments, or why they are not valid. */
function searchArgs(raw: unknown): { query: string; scope?: SearchScope } | string {
  const a = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const extra = Object.keys(a).filter((k) => k !== 'query' && k !== 'scope');
  if (extra.length > 0) return `unknown argument ${JSON.stringify(extra[0])}: search takes query and scope`;
  if (typeof a.query !== 'string' || a.query.trim() === '') return 'query must not be empty: say what to look for, in plain words';
  const query = a.query.trim();
  if (query.length > MAX_QUERY) return `query is too long (${query.length} characters; at most ${MAX_QUERY})`;
  if (a.scope === undefined) return { query };
  if (typeof a.scope !== 'string' || !(SEARCH_SCOPES as readonly string[]).includes(a.scope)) return `scope must be one of ${SEARCH_SCOPES.join(', ')}`;
  return { query, scope: a.scope as SearchScope };
}

export function createHandler(env: NodeJS.ProcessEnv, pluginRoot: string): (req: Request) => Promise<Reply | null> {
  const home = serviceHome(env);
  const settings = readSettings(env, home);
  const socket = hookSocketPath(home, env);
  const cwd = env.CLAUDE_PROJECT_DIR || process.cwd();
  const call = async (params: Record<string, unknown>): Promise<ToolResult> => {
    const args = searchArgs(params.arguments);
    if (typeof args === 'string') return { isError: true, content: [{ type: 'text', text: args }] };
    return searchTool(args, { settings, socket: await socket, cwd, startDaemon: () => startDaemon(serviceCli(env, pluginRoot), callerEnv(env)) });
  };
  return async (req) => {
    const params = (req.params && typeof req.params === 'object' ? req.params : {}) as Record<string, unknown>;
    switch (req.method) {
      case 'initialize': {
        const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
        return {
          result: {
            protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
            capabilities: { tools: { listChanged: false } },
            serverInfo: { name: 'memory', version: manifest.version },
          },
        };
      }
      case 'ping':
        return { result: {} };
      case 'tools/list':
        return { result: { tools: [SEARCH_TOOL] } };
      case 'tools/call':
        // The hook tool is not listed: Claude Code calls it for the plugin's mcp_tool hooks, the model never sees it.
        if (params.name === HOOK_TOOL) return { result: await hookTool(params.arguments, env) };
        if (params.name !== 'search') return { error: { code: -32602, message: `unknown tool ${JSON.stringify(params.name)}: this server has one tool, search` } };
        return { result: await call(params) };
      default:
        return typeof req.method === 'string' && req.method.startsWith('notifications/') ? null : { error: { code: -32601, message: `method not found: ${String(req.method)}` } };
    }
  };
}

/** Serve MCP over this process's stdin and stdout until stdin ends. */
export function serveStdio(handle: (req: Request) => Promise<Reply | null>): void {
  const send = (msg: unknown): void => {
    process.stdout.write(`${JSON.stringify(msg)}\n`);
  };
  const pending = new Set<Promise<void>>();
  const onLine = (line: string): void => {
    if (!line.trim()) return;
    let req: Request;
    try {
      req = JSON.parse(line) as Request;
    } catch {
      send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: each line must be one JSON-RPC message' } });
      return;
    }
    if (!req || typeof req !== 'object' || Array.isArray(req) || typeof req.method !== 'string') {
      // A response to a request we never sent, or not a message at all.
      if (req && typeof req === 'object' && !Array.isArray(req) && 'id' in req && !('result' in req) && !('error' in req)) send({ jsonrpc: '2.0', id: req.id ?? null, error: { code: -32600, message: 'invalid request: a method is required' } });
      return;
    }
    const hasId = 'id' in req && req.id !== undefined && req.id !== null;
    const p = handle(req)
      .then((reply) => {
        if (reply && hasId) send({ jsonrpc: '2.0', id: req.id, ...reply });
      })
      .catch((err: unknown) => {
        if (hasId) send({ jsonrpc: '2.0', id: req.id, error: { code: -32603, message: err instanceof Error ? err.message : String(err) } });
      })
      .finally(() => pending.delete(p));
    pending.add(p);
  };
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      onLine(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
  process.stdin.on('end', () => {
    if (buf) onLine(buf);
    void Promise.allSettled([...pending]).then(() => process.exit(0));
  });
}

// The server lives as long as the session and every hook of it comes through here: a stray error
// is reported on stderr (Claude Code's MCP log) and the server goes on serving.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) process.on(event, (err: unknown) => process.stderr.write(`memory MCP server: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`));
serveStdio(createHandler(process.env, path.resolve(path.dirname(process.argv[1] ?? '.'), '..')));
