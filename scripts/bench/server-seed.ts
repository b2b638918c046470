/** Seeding a project for a `bench:server` run, on the embedded backend or on PostgreSQL. */
import path from 'node:path';
import { LanceStore, MemoryEngine, PgStore, pgPoolClient, uuidv7 } from '../../engine/index.js';
import { migrateServer, PgTenancyStore, TenancyStore } from '../../server/index.js';
import type { Corpus } from './server-corpus.js';
import { N } from './server-settings.js';

/**
 * Seed a project through the engine's batch path (`engine.import`, what POST /v1/imports runs:
 * one check of the whole set, then appends of 500 rows a transaction) with the corpus's vectors
 * attached, so the import embeds nothing. The server records the versions' events when it opens
 * the project.
 */
export async function seed(dataDir: string, c: Corpus, databaseUrl = ''): Promise<{ key: string; projectId: string; dim: number; seedMs: number; indexMs: number }> {
  const db = databaseUrl ? pgPoolClient(databaseUrl) : null;
  if (db) await migrateServer(db);
  const boot = db ? await (await PgTenancyStore.open(db, dataDir)).bootstrapShared() : new TenancyStore(dataDir).bootstrap();
  if (!boot) throw new Error(`${dataDir} is not empty`);
  const engine = new MemoryEngine({
    store: db
      ? new PgStore({ db, store: boot.project.project_id, dim: c.dim })
      : new LanceStore({ dir: path.join(dataDir, 'projects', boot.project.project_id, 'lance'), dim: c.dim }),
    embedder: null,
    background: false,
  });
  await engine.open();
  const t0 = performance.now();
  const now = Date.now() - N; // one ms apart, all in the past
  const byMemory = new Map<string, number>();
  const lines = c.rows.map((x, i) => {
    const at = new Date(now + i).toISOString();
    const memory_id = uuidv7(now + i);
    byMemory.set(memory_id, i);
    return JSON.stringify({
      kind: 'version', version_id: uuidv7(now + i), memory_id, version: 1, tx: 1, content: x.content, user_id: x.user_id, agent_id: 'bench', app_id: null, run_id: null,
      owner_id: null, space: 'project', repo: 'github.com/acme/app', dir: null, category: 'note', metadata: {}, source: { kind: 'api' },
      valid_from: at, valid_to: null, recorded_at: at, created_at: at, deleted: false, block: null,
    });
  });
  await engine.import(lines, { rewrite: (row) => ({ ...row, vector: c.vectors[byMemory.get(row.memory_id)!]!, embed_model: c.model }) });
  const seedMs = performance.now() - t0;
  const t1 = performance.now();
  await engine.maintain(true); // compaction and the vector index, as the server's upkeep would
  const indexMs = performance.now() - t1;
  await engine.close();
  await db?.close();
  return { key: boot.secret, projectId: boot.project.project_id, dim: c.dim, seedMs, indexMs };
}
