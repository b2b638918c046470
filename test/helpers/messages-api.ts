/**
 * A stand-in for the Anthropic Messages API on 127.0.0.1, for driving the real Claude Code client
 * (`claude -p`) in tests and benchmarks. It answers POST /v1/messages as a server-sent event stream
 * or as plain JSON (whichever the request asks for), /v1/messages/count_tokens with an estimate,
 * and anything else with a 404 in the API's error shape; every request is logged with its body.
 *
 * What the "model" answers is scripted by the test through `respond` (a function of the request);
 * the default script reads directives from the newest user text, so a prompt can make the model
 * call tools: `[[tool Read {"file_path":"/x"}]]` answers with that tool_use block (every directive
 * of the message becomes one block of the same answer), once: when the newest user message carries
 * tool results, it answers with text instead. Requests
 * without tools (titles, topic checks, quota probes) get a short text.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ApiRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (null when there was none or it did not parse). */
  body: any;
  at: number;
}

/** A text answer, or tool calls (several run as one assistant turn, the way parallel calls do). */
export type Reply = { text: string } | { tools: { name: string; input: unknown }[] };

export interface MessagesApi {
  /** Base URL for ANTHROPIC_BASE_URL (no trailing slash). */
  url: string;
  /** Every request received, oldest first. */
  requests: ApiRequest[];
  /** The script; replace it to change what the model says. */
  respond: (req: any) => Reply;
  /** /v1/messages requests that offered tools (the agent's own turns, not side requests). */
  agentTurns(): ApiRequest[];
  close(): Promise<void>;
}

/** Every text the message carries (string content, text blocks, tool_result text). */
export function textOf(message: { content?: unknown } | undefined): string {
  const c = message?.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c
    .map((b: any) => {
      if (b?.type === 'text') return String(b.text ?? '');
      if (b?.type === 'tool_result') return typeof b.content === 'string' ? b.content : Array.isArray(b.content) ? b.content.map((x: any) => (x?.type === 'text' ? x.text : '')).join('\n') : '';
      return '';
    })
    .join('\n');
}

/** The text of every user message of a request, joined (system reminders included). */
export function userText(body: any): string {
  return ((body?.messages ?? []) as any[])
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m))
    .join('\n');
}

/** The request's system prompt as text. */
export function systemText(body: any): string {
  const s = body?.system;
  return typeof s === 'string' ? s : Array.isArray(s) ? s.map((b: any) => String(b?.text ?? '')).join('\n') : '';
}

/**
 * Every tool a request offers the model: its tools, and (Claude Code 2.1.331 defers MCP and rarely
 * used tools) the deferred tools its prompt lists for ToolSearch to load.
 */
export function offeredTools(body: any): string[] {
  const names = ((body?.tools ?? []) as { name: string }[]).map((t) => t.name);
  if (!names.includes('ToolSearch')) return names;
  const listing = /deferred tools are now available via ToolSearch[^\n]*\n((?:[\w-]+\n)+)/.exec(`${systemText(body)}\n${JSON.stringify(body.messages ?? []).replace(/\\n/g, '\n')}`);
  return [...names, ...(listing?.[1]?.trim().split('\n') ?? [])];
}

const DIRECTIVE = /\[\[tool (\S+) (\{.*?\})\]\]/gs;

/** The default script: follow the `[[tool …]]` directives of the newest user message once, else say "Done." */
export function directiveScript(body: any): Reply {
  if (!Array.isArray(body?.tools) || body.tools.length === 0) return { text: 'Memory test session' };
  // The newest user message (Claude Code may append system-role messages after it).
  const last = ((body.messages ?? []) as any[]).filter((m) => m.role === 'user').at(-1);
  const answered = Array.isArray(last?.content) && last.content.some((b: any) => b?.type === 'tool_result');
  if (answered) return { text: 'Done.' };
  // Like a real model, call only tools the request offers (Claude Code does not wait for MCP
  // servers before its first request: a slow one joins later).
  const offered = offeredTools(body);
  const tools = [...textOf(last).matchAll(DIRECTIVE)].map((m) => ({ name: m[1]!, input: JSON.parse(m[2]!) as unknown })).filter((t) => offered.includes(t.name));
  return tools.length > 0 ? { tools } : { text: 'Done.' };
}

function tokensOf(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));
}

let idSeq = 0;

function message(body: any, reply: Reply): { msg: any; blocks: any[] } {
  const blocks = 'text' in reply ? [{ type: 'text', text: reply.text }] : reply.tools.map((t) => ({ type: 'tool_use', id: `toolu_standin_${++idSeq}`, name: t.name, input: t.input }));
  const msg = {
    id: `msg_standin_${++idSeq}`,
    type: 'message',
    role: 'assistant',
    model: String(body?.model ?? 'claude-standin'),
    content: blocks,
    stop_reason: 'text' in reply ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: tokensOf(body?.messages), output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  return { msg, blocks };
}

function sse(res: http.ServerResponse, body: any, reply: Reply): void {
  const { msg, blocks } = message(body, reply);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': msg.id });
  const send = (event: string, data: unknown): boolean => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', { type: 'message_start', message: { ...msg, content: [], stop_reason: null, usage: { ...msg.usage, output_tokens: 1 } } });
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: msg.usage.output_tokens } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function error(res: http.ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

export async function startMessagesApi(opts: { respond?: (req: any) => Reply } = {}): Promise<MessagesApi> {
  const api: MessagesApi = {
    url: '',
    requests: [],
    respond: opts.respond ?? directiveScript,
    agentTurns: () => api.requests.filter((r) => r.path === '/v1/messages' && Array.isArray(r.body?.tools) && r.body.tools.length > 0),
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const pathname = new URL(req.url ?? '/', 'http://standin').pathname;
      api.requests.push({ method: req.method ?? 'GET', path: pathname, headers: req.headers, body, at: Date.now() });
      if (req.method === 'POST' && pathname === '/v1/messages/count_tokens') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: tokensOf(body) }));
        return;
      }
      if (req.method === 'POST' && pathname === '/v1/messages') {
        if (!body || !Array.isArray(body.messages)) return error(res, 400, 'invalid_request_error', 'messages: field required');
        let reply: Reply;
        try {
          reply = api.respond(body);
        } catch (err) {
          return error(res, 500, 'api_error', `stand-in script failed: ${(err as Error).message}`);
        }
        if (body.stream) return sse(res, body, reply);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(message(body, reply).msg));
        return;
      }
      error(res, 404, 'not_found_error', `the stand-in does not serve ${req.method} ${pathname}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return api;
}
