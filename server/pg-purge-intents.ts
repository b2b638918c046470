/**
 * One project's purges in flight in PostgreSQL (SERVICE_DATABASE_URL): written before the store
 * erases anything and deleted once the purge is complete. Any replica completes what it finds:
 * when it opens the project and before each purge it runs, so a replica that died mid-purge
 * (its local disk possibly gone with it) leaves nothing half erased for long.
 */
import type { SqlClient } from '../engine/index.js';
import { DB_NOW_MS } from './pg-state.js';
import type { PurgeIntents } from './purge-intents.js';

export class PgPurgeIntents implements PurgeIntents {
  readonly shared = true;

  constructor(
    private readonly db: SqlClient,
    private readonly projectId: string,
  ) {}

  async add(memoryIds: readonly string[]): Promise<void> {
    await this.db.query(`INSERT INTO ms_purge_intents (project_id, memory_id, at_ms) SELECT $1, m, ${DB_NOW_MS} FROM unnest($2::text[]) AS m ON CONFLICT DO NOTHING`, [this.projectId, [...new Set(memoryIds)]]);
  }

  async done(memoryIds: readonly string[]): Promise<void> {
    await this.db.query(`DELETE FROM ms_purge_intents WHERE project_id = $1 AND memory_id = ANY($2::text[])`, [this.projectId, [...new Set(memoryIds)]]);
  }

  async pending(olderThanMs = 0): Promise<string[]> {
    const r = await this.db.query<{ memory_id: string }>(`SELECT memory_id FROM ms_purge_intents WHERE project_id = $1 AND at_ms <= ${DB_NOW_MS} - $2 ORDER BY memory_id`, [
      this.projectId,
      olderThanMs,
    ]);
    return r.rows.map((x) => x.memory_id);
  }
}
