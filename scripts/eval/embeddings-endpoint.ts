/**
 * A small OpenAI-compatible endpoint on loopback, for a peer system that can only reach an
 * embedding model over HTTP: `POST /v1/embeddings` runs the given Embedder (the same
 * transformers.js pipeline our engine uses, in this process). Requests that arrive while a batch
 * runs are embedded together in the next one, as embedding servers do (TEI, vLLM), so the peer is
 * not held back by one-request-one-inference.
 *
 * Any other route, `POST /v1/chat/completions` included, is counted and answered 503: a peer
 * configured with an LLM it must never call proves it did not by `llmCalls` staying 0.
 *
 * `known` (optional) holds vectors the same model already made for some texts; while `useKnown`
 * is on, those texts are answered from it instead of the model (only to load bulk data faster:
 * it is off while anything is timed).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from '../../engine/index.js';

export interface EndpointStats {
  /** Embedding requests answered, and texts embedded in them. */
  requests: number;
  texts: number;
  /** Model time (ms) spent on those texts. */
  embedMs: number;
  /** Requests to the chat/completions route (an LLM call). */
  llmCalls: number;
  /** Requests to any other route. */
  otherCalls: number;
}

export interface EmbeddingsEndpoint {
  /** Base URL for an OpenAI client (`http://127.0.0.1:<port>/v1`). */
  baseURL: string;
  stats: EndpointStats;
  /** Answer texts found in `known` from it (see above). */
  useKnown: boolean;
  close(): Promise<void>;
}

interface Waiting {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: unknown) => void;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startEmbeddingsEndpoint(embedder: Embedder, opts: { model?: string; known?: ReadonlyMap<string, Float32Array> } = {}): Promise<EmbeddingsEndpoint> {
  const stats: EndpointStats = { requests: 0, texts: 0, embedMs: 0, llmCalls: 0, otherCalls: 0 };
  const endpoint: EmbeddingsEndpoint = { baseURL: '', stats, useKnown: false, close: async () => {} };
  let queue: Waiting[] = [];
  let running = false;
  const pump = async (): Promise<void> => {
    if (running) return;
    running = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const texts = batch.flatMap((w) => w.texts);
      const t0 = performance.now();
      try {
        const vectors = await embedder.embedDocuments(texts);
        stats.embedMs += performance.now() - t0;
        stats.texts += texts.length;
        let at = 0;
        for (const w of batch) {
          w.resolve(vectors.slice(at, at + w.texts.length));
          at += w.texts.length;
        }
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    running = false;
  };
  const embed = (texts: string[]): Promise<Float32Array[]> => {
    const known = endpoint.useKnown ? opts.known : undefined;
    const hits = known ? texts.map((t) => known.get(t)) : [];
    if (known && hits.every((v) => v !== undefined)) return Promise.resolve(hits as Float32Array[]);
    return new Promise((resolve, reject) => {
      queue.push({ texts, resolve, reject });
      void pump();
    });
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url.endsWith('/embeddings')) {
        const body = JSON.parse(await readBody(req)) as { input?: unknown; model?: string };
        const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input.map(String) : null;
        if (!input || input.length === 0) return send(res, 400, { error: { message: 'input must be a string or an array of strings', type: 'invalid_request_error' } });
        stats.requests++;
        const vectors = await embed(input);
        return send(res, 200, {
          object: 'list',
          model: body.model ?? opts.model ?? embedder.model,
          data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      }
      if (url.includes('/chat/completions')) stats.llmCalls++;
      else stats.otherCalls++;
      await readBody(req);
      return send(res, 503, { error: { message: 'this endpoint serves embeddings only; the LLM must not be called', type: 'server_error' } });
    })().catch((err: unknown) => send(res, 500, { error: { message: String(err), type: 'server_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(endpoint, {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return endpoint;
}
