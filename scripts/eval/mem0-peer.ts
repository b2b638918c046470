/**
 * The peer: mem0's open-source TypeScript memory (npm `mem0ai`, `Memory` from `mem0ai/oss`), in
 * this process, configured the way its docs describe for local use and the way this comparison
 * needs it:
 * - embedder: its `openai` provider pointed at our loopback OpenAI-compatible endpoint, which runs
 *   the same transformers.js pipeline as our engine (scripts/eval/embeddings-endpoint.ts);
 * - vector store: its `memory` provider (SQLite in memory, `:memory:`); history disabled;
 * - LLM: required by its config even with `infer: false`; pointed at the same endpoint, whose chat
 *   route only counts calls and refuses them (the run fails unless the count stays 0);
 * - telemetry off (`MEM0_TELEMETRY=false`, read when the module loads), HOME in a temp dir (it
 *   writes a user-id file there).
 * Its types are not imported: the interface below is the part this benchmark uses.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface Mem0SearchResult {
  id: string;
  memory: string;
  score?: number;
  metadata?: Record<string, unknown>;
}

export interface Mem0Memory {
  add(messages: string, config: { userId: string; metadata?: Record<string, unknown>; infer?: boolean }): Promise<unknown>;
  search(query: string, config: { filters: Record<string, unknown>; topK?: number; threshold?: number }): Promise<{ results: Mem0SearchResult[] }>;
}

interface Mem0Module {
  Memory: new (config: Record<string, unknown>) => Mem0Memory;
}

/** Time and calls spent inside SQLite by mem0's store (the better-sqlite3 stand-in counts them). */
export interface SqliteTiming {
  ms: number;
  calls: number;
}

export interface Mem0Peer {
  memory: Mem0Memory;
  version: string;
  sqlite: SqliteTiming;
}

/** The package.json of `name` above a file it resolved to (its `exports` do not expose it). */
function packageFile(resolved: string, name: string): string {
  for (let dir = path.dirname(resolved); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string }).name === name) return file;
  }
  throw new Error(`cannot find the package.json of ${name} above ${resolved}`);
}

export async function createMem0(opts: { baseURL: string; dim: number; home: string; model: string }): Promise<Mem0Peer> {
  fs.mkdirSync(opts.home, { recursive: true });
  process.env.MEM0_TELEMETRY = 'false';
  process.env.HOME = opts.home;
  const require = createRequire(import.meta.url);
  const pkgFile = packageFile(require.resolve('mem0ai'), 'mem0ai');
  const version = (JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { version: string }).version;
  // A variable specifier keeps TypeScript from loading mem0's own declarations.
  const spec = 'mem0ai/oss';
  const mod = (await import(spec)) as Mem0Module;
  const sqlite = (require(require.resolve('better-sqlite3', { paths: [path.dirname(pkgFile)] })) as { timing?: SqliteTiming }).timing;
  if (!sqlite) throw new Error('better-sqlite3 is not the benchmark stand-in (scripts/eval/peer-deps/better-sqlite3): run npm ci');
  const memory = new mod.Memory({
    version: 'v1.1',
    disableHistory: true,
    embedder: { provider: 'openai', config: { apiKey: 'local-no-key', baseURL: opts.baseURL, model: opts.model, embeddingDims: opts.dim } },
    vectorStore: { provider: 'memory', config: { collectionName: 'locomo', dimension: opts.dim, dbPath: ':memory:' } },
    llm: { provider: 'openai', config: { apiKey: 'never-used', baseURL: opts.baseURL, model: 'must-not-be-called' } },
  });
  return { memory, version, sqlite };
}
