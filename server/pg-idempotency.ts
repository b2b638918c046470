/**
 * Idempotency-Keys in PostgreSQL, so a retry that reaches another replica is answered from the
 * first response (or waits for it) instead of writing twice. A key is claimed with one INSERT;
 * a claim whose replica died is taken over after CLAIM_MS.
 */
import { createHash } from 'node:crypto';
import { httpError, IdempotencyStore, MAX_IDEMPOTENCY_KEY, type StoredResponse } from '../api/index.js';
import type { SqlClient } from '../engine/index.js';
import { DB_NOW_MS } from './pg-state.js';

const TTL_MS = 24 * 3600_000;
const CLAIM_MS = 120_000;
const POLL_MS = 50;

export class PgIdempotencyStore extends IdempotencyStore {
  private calls = 0;

  constructor(private readonly db: SqlClient) {
    super();
  }

  override async run(scope: string, key: string, body: unknown, fn: () => Promise<StoredResponse>): Promise<StoredResponse & { replayed: boolean }> {
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
      throw httpError('INVALID_REQUEST', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`, { header: 'Idempotency-Key' });
    }
    // Not the in-memory store's NUL separator: PostgreSQL text cannot hold NUL (every keyed request failed with 500).
    const id = JSON.stringify([scope, key]);
    const fingerprint = createHash('sha256').update(JSON.stringify(body ?? null)).digest('hex');
    if (++this.calls % 1000 === 0) void this.db.query(`DELETE FROM ms_idempotency WHERE expires_ms <= ${DB_NOW_MS}`).catch(() => {});
    const deadline = Date.now() + CLAIM_MS + 5_000;
    for (;;) {
      const claim = await this.db.query(
        `INSERT INTO ms_idempotency AS i (id, fingerprint, expires_ms, claimed_ms) VALUES ($1, $2, ${DB_NOW_MS} + $3, ${DB_NOW_MS})
         ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, expires_ms = excluded.expires_ms, claimed_ms = excluded.claimed_ms, status = NULL, body = NULL
         WHERE i.expires_ms <= ${DB_NOW_MS} OR (i.status IS NULL AND i.claimed_ms < ${DB_NOW_MS} - $4)
         RETURNING 1`,
        [id, fingerprint, TTL_MS, CLAIM_MS],
      );
      if (claim.rows.length > 0) {
        let out: StoredResponse;
        try {
          out = await fn();
        } catch (err) {
          // A failed request is not remembered: the client may retry it.
          await this.db.query(`DELETE FROM ms_idempotency WHERE id = $1 AND status IS NULL`, [id]).catch(() => {});
          throw err;
        }
        await this.db.query(`UPDATE ms_idempotency SET status = $2, body = $3::json WHERE id = $1`, [id, out.status, JSON.stringify(out.body ?? null)]);
        return { ...out, replayed: false };
      }
      const r = await this.db.query<{ fingerprint: string; status: number | null; body: unknown }>(`SELECT fingerprint, status, body FROM ms_idempotency WHERE id = $1`, [id]);
      const e = r.rows[0];
      if (e) {
        if (e.fingerprint !== fingerprint) throw httpError('CONFLICT', 'this Idempotency-Key was already used with a different request body; use a new key', { header: 'Idempotency-Key' });
        if (e.status !== null) return { status: Number(e.status), body: e.body, replayed: true };
      }
      if (Date.now() > deadline) throw httpError('CONFLICT', 'a request with this Idempotency-Key is still running; retry later', { header: 'Idempotency-Key' });
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
