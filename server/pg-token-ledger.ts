/**
 * The LLM extractor's daily token budget in PostgreSQL (`ms_llm_usage`), one for every replica:
 * a reservation is one conditional UPSERT, so replicas extracting at once can never take more
 * than the day's budget between them.
 */
import type { SqlClient, TokenLedger } from '../engine/index.js';

export class PgTokenLedger implements TokenLedger {
  private last = { day: '', used: 0, calls: 0 };

  constructor(private readonly db: SqlClient) {}

  async reserve(day: string, tokens: number, budget: number): Promise<boolean> {
    const r = await this.db.query<{ used: number; calls: number }>(
      `INSERT INTO ms_llm_usage AS u (day, used, calls) SELECT $1, $2::bigint, 0 WHERE $2::bigint <= $3::bigint
       ON CONFLICT (day) DO UPDATE SET used = u.used + excluded.used WHERE u.used + excluded.used <= $3::bigint
       RETURNING used, calls`,
      [day, tokens, budget],
    );
    if (r.rows[0]) {
      this.last = { day, used: r.rows[0].used, calls: r.rows[0].calls };
      return true;
    }
    await this.refresh(day);
    return false;
  }

  async settle(day: string, delta: number, call: boolean): Promise<void> {
    const r = await this.db.query<{ used: number; calls: number }>(
      `UPDATE ms_llm_usage SET used = GREATEST(0, used + $2::bigint), calls = calls + $3::bigint WHERE day = $1 RETURNING used, calls`,
      [day, delta, call ? 1 : 0],
    );
    if (r.rows[0]) this.last = { day, used: r.rows[0].used, calls: r.rows[0].calls };
  }

  usage(day: string): { used: number; calls: number } {
    return this.last.day === day ? { used: this.last.used, calls: this.last.calls } : { used: 0, calls: 0 };
  }

  /** Read the day's use (status, before the first extraction of the day). */
  async refresh(day: string): Promise<{ used: number; calls: number }> {
    const r = await this.db.query<{ used: number; calls: number }>(`SELECT used, calls FROM ms_llm_usage WHERE day = $1`, [day]);
    this.last = { day, used: r.rows[0]?.used ?? 0, calls: r.rows[0]?.calls ?? 0 };
    return this.usage(day);
  }
}
