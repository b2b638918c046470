/**
 * Tenancy records in PostgreSQL, shared by every replica. The records stay one document (as in
 * tenancy.json) so the routes keep their synchronous TenancyStore calls; what changes is where
 * it lives and when a change becomes durable:
 *
 * - before a request is authenticated, `pull()` adopts the database's document when its version
 *   moved (one indexed read), so a key revoked through replica A is refused by B on its next request;
 * - a change is applied in memory and queued; `tenancyCommit` holds the response back until
 *   `commit()` wrote it (optimistic: when another replica committed first, the queued changes are
 *   applied again to its document, the way the file store re-applies them to a newer file).
 */
import type { RequestHandler, Response } from 'express';
import type { SqlClient } from '../engine/index.js';
import { bearerSecret, callerForSecret, invalidKey, missingKey } from './auth.js';
import type { PgRateLimiter, SharedTake } from './pg-rate-limit.js';
import { TenancyStore } from './tenancy.js';
import type { ApiKeyRecord, Member, Org, Project, TenancyDoc } from './tenancy-records.js';

/** The tenancy document's version, as a scalar subquery (read with each request's rate-limit token). */
export const TENANCY_VERSION_SQL = '(SELECT version FROM ms_tenancy WHERE id = 1)';

export class PgTenancyStore extends TenancyStore {
  private db: SqlClient | null = null;
  private ownsDb = false;
  private version = -1;
  private pending: (() => unknown)[] = [];
  private chain: Promise<void> = Promise.resolve();

  static async open(db: SqlClient, dir: string, ownsDb = false): Promise<PgTenancyStore> {
    const t = new PgTenancyStore(dir);
    t.db = db;
    t.ownsDb = ownsDb;
    await t.pull();
    return t;
  }

  /** Closes the pool when this store opened it (the CLI); the server closes its own. */
  override async close(): Promise<void> {
    await this.writeUsage();
    if (this.ownsDb) await this.sql.close();
  }

  private get sql(): SqlClient {
    if (!this.db) throw new Error('PgTenancyStore used before open()');
    return this.db;
  }

  /** Nothing on disk to watch: `pull()` brings the database's changes. */
  protected override refresh(): void {}

  /** Changes become durable in `commit()`. */
  protected override save(): void {}

  protected override change<T>(fn: () => T): T {
    const out = fn();
    this.pending.push(fn);
    return out;
  }

  /** Changes made in memory and not yet committed. */
  get dirty(): boolean {
    return this.pending.length > 0;
  }

  private adoptFromDb(doc: TenancyDoc, version: number): void {
    this.adopt(doc);
    this.version = version;
    // Changes of this process not yet committed stay applied.
    for (const fn of this.pending) fn();
  }

  /** Whether the database's document (at `version`) differs from the one held here. */
  moved(version: number): boolean {
    return Number(version) !== this.version;
  }

  /** Adopt the database's document if another replica changed it. */
  async pull(): Promise<void> {
    const v = await this.sql.query<{ version: number }>(`SELECT version FROM ms_tenancy WHERE id = 1`);
    if (Number(v.rows[0]?.version) === this.version) return;
    const r = await this.sql.query<{ version: number; doc: TenancyDoc }>(`SELECT version, doc FROM ms_tenancy WHERE id = 1`);
    const usage = await this.sql.query<{ key_id: string; last_used_at: string }>(`SELECT key_id, last_used_at FROM ms_key_usage`);
    for (const u of usage.rows) if ((this.usage.get(u.key_id) ?? '') < u.last_used_at) this.usage.set(u.key_id, u.last_used_at);
    this.adoptFromDb(r.rows[0]!.doc, Number(r.rows[0]!.version));
  }

  /** Write the queued changes (one at a time per process). */
  override commit(): Promise<void> {
    const run = this.chain.then(() => this.commitNow());
    this.chain = run.catch(() => {});
    return run;
  }

  private async commitNow(): Promise<void> {
    if (this.pending.length === 0) return;
    const fns = this.pending;
    this.pending = [];
    try {
      await this.sql.transaction(async (tx) => {
        const r = await tx.query<{ version: number; doc: TenancyDoc }>(`SELECT version, doc FROM ms_tenancy WHERE id = 1 FOR UPDATE`);
        const cur = r.rows[0]!;
        if (Number(cur.version) !== this.version) {
          this.adopt(cur.doc);
          for (const fn of [...fns, ...this.pending]) fn();
        }
        await tx.query(`UPDATE ms_tenancy SET doc = $1::json, version = $2 WHERE id = 1`, [JSON.stringify(this.doc), Number(cur.version) + 1]);
        this.version = Number(cur.version) + 1;
      });
    } catch (err) {
      // What is in memory may now differ from the database: start again from the database.
      this.version = -1;
      await this.pull().catch(() => {});
      throw err;
    }
  }

  /**
   * First start on an empty database, once across replicas starting together: the default org,
   * project, owner and admin key. Null when the database already has an organization.
   */
  async bootstrapShared(): Promise<{ secret: string; key: ApiKeyRecord; org: Org; project: Project; member: Member } | null> {
    return this.sql.transaction(async (tx) => {
      const r = await tx.query<{ version: number; doc: TenancyDoc }>(`SELECT version, doc FROM ms_tenancy WHERE id = 1 FOR UPDATE`);
      this.adoptFromDb(r.rows[0]!.doc, Number(r.rows[0]!.version));
      const boot = this.bootstrap();
      if (!boot) return null;
      await tx.query(`UPDATE ms_tenancy SET doc = $1::json, version = version + 1 WHERE id = 1`, [JSON.stringify(this.doc)]);
      this.version = Number(r.rows[0]!.version) + 1;
      this.pending = [];
      return boot;
    });
  }

  /** Last-use times go to the database (newest wins), not per request. */
  override flushUsage(): void {
    void this.writeUsage();
  }

  async writeUsage(): Promise<void> {
    if (!this.dirtyUsage || !this.db) return;
    this.dirtyUsage = false;
    const rows = [...this.usage];
    await this.sql
      .query(
        `INSERT INTO ms_key_usage (key_id, last_used_at) SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (key_id) DO UPDATE SET last_used_at = GREATEST(ms_key_usage.last_used_at, excluded.last_used_at)`,
        [rows.map(([k]) => k), rows.map(([, v]) => v)],
      )
      .catch(() => {
        this.dirtyUsage = true;
      });
  }
}

/**
 * Before the routes, on PostgreSQL, in one statement: take a token from the key's shared rate
 * bucket, read the tenancy document's version (another replica changed it: adopt it and
 * authenticate again, so a key revoked through A is refused by B on its next request) and how
 * far the key's project's store is (a search then reads nothing more when its view is that far
 * along). A key this replica does not know yet (made through another one) adopts the database's
 * document first. After the routes: hold the response until the tenancy changes it reports are
 * committed (a failed commit answers 503 and keeps nothing of the change).
 */
export function pgRequestGate(t: PgTenancyStore, limiter: PgRateLimiter): RequestHandler {
  return (req, res, next) => {
    commitBeforeAnswer(t, res);
    const gate = async (): Promise<SharedTake> => {
      const secret = bearerSecret(req.get('Authorization'));
      if (!secret) throw missingKey();
      let caller = callerForSecret(t, secret);
      if (!caller) {
        await t.pull();
        caller = callerForSecret(t, secret);
        if (!caller) throw invalidKey();
      }
      const took = await limiter.takeShared(caller.key.key_id, caller.project_id);
      if (took.tenancyVersion !== null && t.moved(took.tenancyVersion)) {
        await t.pull();
        caller = callerForSecret(t, secret);
        if (!caller) throw invalidKey();
      }
      res.locals.caller = caller;
      if (took.storeChange !== null) res.locals.storeChange = took.storeChange;
      return took;
    };
    gate().then((took) => limiter.respond(res, next, took), next);
  };
}

/** Hold the response until the tenancy changes it reports are committed (a failed commit answers 503). */
function commitBeforeAnswer(t: PgTenancyStore, res: Response): void {
  const end = res.end.bind(res) as (...a: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      if (!t.dirty) return end(...args);
      t.commit().then(
        () => end(...args),
        () => {
          res.statusCode = 503;
          res.removeHeader('Content-Length');
          res.setHeader('Content-Type', 'application/json; charset=utf-8');
          end(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'the change could not be written to the database; nothing was changed, retry' } }));
        },
      );
      return res;
    }) as typeof res.end;
}
