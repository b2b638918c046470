import path from 'node:path';
import { LanceStore, loadConfig, PgStore, pgPoolClient, resolveModelSpec, TransformersEmbedder, type Config, type Embedder, type MemoryStore } from '../../engine/index.js';
import { createServer, type MemoryServer } from '../../server/index.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { sharedDir, tempDir } from './tmp.js';

let tiny: Embedder | null = null;

/** The random-weight tiny BERT from ../shared/models (real transformers.js path, no network). */
export function tinyEmbedder(): Embedder {
  tiny ??= new TransformersEmbedder({
    spec: resolveModelSpec({ model: '', modelDir: sharedDir('models', 'random-bert-tiny'), cacheDir: '' }),
    cacheDir: tempDir('models-'),
    offline: true,
  });
  return tiny;
}

export interface TestServer {
  url: string;
  key: string;
  dataDir: string;
  /** The server's database ('' on the embedded backend). */
  databaseUrl: string;
  server: MemoryServer;
  close(): Promise<void>;
  /** fetch against the server with the admin key (override headers to test auth). */
  req(method: string, pathname: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** The same with another key. */
  as(key: string): (method: string, pathname: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>;
}

export interface Reply {
  status: number;
  json: any;
  text: string;
  headers: Headers;
}

/** One HTTP request with a bearer key; the body is JSON unless it is a string. */
export async function call(url: string, key: string, method: string, pathname: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const h: Record<string, string> = { Authorization: `Bearer ${key}`, ...headers };
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    h['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(url + pathname, { method, headers: h, body: payload });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/**
 * The server backend the suites run on: the embedded default, or PostgreSQL when
 * TEST_SERVER_BACKEND=postgres (test/server/backends.test.ts re-runs the server suites that way).
 */
export const testServerBackend: 'embedded' | 'postgres' = process.env.TEST_SERVER_BACKEND === 'postgres' ? 'postgres' : 'embedded';

let cluster: Promise<TestPostgres> | null = null;
const databaseOf = new Map<string, string>();

/** The database of a data dir (a restart on the same dir finds the same state), on one cluster per process. */
async function serverDatabase(dataDir: string): Promise<string> {
  cluster ??= startPostgres();
  let url = databaseOf.get(dataDir);
  if (!url) databaseOf.set(dataDir, (url = await (await cluster).createDatabase()));
  return url;
}

/**
 * The store of a project of a stopped server, opened as the server opens it (LanceDB in the data
 * dir, or PostgreSQL): for tests that look at or change committed versions behind the server.
 */
export function projectStore(s: Pick<TestServer, 'dataDir' | 'databaseUrl'>, projectId: string): { store: MemoryStore; close(): Promise<void> } {
  if (!s.databaseUrl) return { store: new LanceStore({ dir: path.join(s.dataDir, 'projects', projectId, 'lance'), dim: tinyEmbedder().dim }), close: async () => {} };
  const db = pgPoolClient(s.databaseUrl, { max: 2 });
  return { store: new PgStore({ db, store: projectId, dim: tinyEmbedder().dim }), close: () => db.close() };
}

export async function startTestServer(opts: { dataDir?: string; config?: Partial<Config>; embedder?: Embedder | null; key?: string } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? path.join(tempDir('server-'), 'data');
  const config = { ...loadConfig({ SERVICE_HOME: dataDir }), ...opts.config };
  if (testServerBackend === 'postgres' && opts.config?.databaseUrl === undefined) config.databaseUrl = await serverDatabase(path.resolve(dataDir));
  const server = await createServer({ dataDir, config, embedder: opts.embedder === undefined ? tinyEmbedder() : opts.embedder });
  const { url } = await server.listen(0, '127.0.0.1');
  const key = opts.key ?? server.bootstrap?.secret ?? '';
  const req: TestServer['req'] = (method, pathname, body, headers) => call(url, key, method, pathname, body, headers);
  const as: TestServer['as'] = (other) => (method, pathname, body, headers) => call(url, other, method, pathname, body, headers);
  return { url, key, dataDir, databaseUrl: config.databaseUrl, server, req, as, close: () => server.close() };
}

/** Every route an app serves, as "method path" (paths as mounted under their router). */
export function appRoutes(server: MemoryServer): Set<string> {
  const out = new Set<string>();
  const walk = (stack: any[]): void => {
    for (const l of stack) {
      if (l.route) for (const m of Object.keys(l.route.methods)) out.add(`${m} ${l.route.path}`);
      else if (l.handle?.stack) walk(l.handle.stack);
    }
  };
  walk((server.app as any).router.stack);
  return out;
}
