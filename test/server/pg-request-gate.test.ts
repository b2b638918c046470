/**
 * What a request costs the database before its route, on PostgreSQL: one statement (a token from
 * the key's shared bucket, the tenancy document's version, the project's store change number),
 * and a search whose resident view is already that far along reads nothing more. Another
 * replica's changes still count at once: a key revoked there is refused here on its next request,
 * a key made there is accepted here, and a write there is found by the next search here.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, describe, it } from 'node:test';
import type { Request, Response } from 'express';
import { PgStore, pgPoolClient, type SqlClient } from '../../engine/index.js';
import { PgRateLimiter } from '../../server/pg-rate-limit.js';
import { migrateServer } from '../../server/pg-state.js';
import { pgRequestGate, PgTenancyStore } from '../../server/pg-tenancy.js';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';
import { row } from '../helpers/rows.js';

const cluster = sharedPostgres();
const clients: SqlClient[] = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

/** `db`, recording every statement sent outside transactions. */
function recording(db: SqlClient): SqlClient & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    query: (text, params) => {
      sent.push(text);
      return db.query(text, params);
    },
    transaction: (fn) => db.transaction(fn),
    close: async () => {},
  };
}

/** Run the gate for one request with `secret`; resolves to the error it passed on (or null) and what it left in `res.locals`. */
async function request(gate: ReturnType<typeof pgRequestGate>, secret: string): Promise<{ err: unknown; locals: Record<string, unknown> }> {
  const req = { get: (h: string) => (h.toLowerCase() === 'authorization' ? `Bearer ${secret}` : undefined) } as unknown as Request;
  const locals: Record<string, unknown> = {};
  const res = { locals, end: () => res, setHeader: () => res, removeHeader: () => res } as unknown as Response;
  const err = await new Promise<unknown>((resolve) => gate(req, res, (e?: unknown) => resolve(e ?? null)));
  return { err, locals };
}

describe('one statement per request before the route (PostgreSQL)', { skip: skipWithoutPostgres() }, () => {
  it('authenticates, rate-limits and reads the store head in one statement, and still sees the other replica at once', async () => {
    const url = await (await cluster()).createDatabase();
    const pool = pgPoolClient(url, { max: 4 });
    clients.push(pool);
    await migrateServer(pool);
    const dir = os.tmpdir();
    const db = recording(pool);
    const here = await PgTenancyStore.open(db, dir);
    const boot = (await here.bootstrapShared())!;
    const there = await PgTenancyStore.open(pool, dir);
    const gate = pgRequestGate(here, new PgRateLimiter(db, 1000));

    // The project's store, written through "another replica".
    const project = boot.project.project_id;
    const store = new PgStore({ db: pool, store: project, dim: 16 });
    await store.open();
    await store.append([row({ content: 'a memory written elsewhere' })]);

    db.sent.length = 0;
    const ok = await request(gate, boot.secret);
    assert.equal(ok.err, null);
    assert.equal(db.sent.length, 1, `statements before the route: ${db.sent.join(' | ')}`);
    assert.equal(typeof ok.locals.storeChange, 'number');
    assert.ok((ok.locals.storeChange as number) >= 1);

    // A key made through the other replica: adopted here (this replica did not know it).
    const made = there.createKey(project, boot.member.member_id, ['read'], 'made there');
    await there.commit();
    assert.equal((await request(gate, made.secret)).err, null);

    // A key revoked through the other replica: refused here on its next request.
    there.revokeKey(made.record.key_id);
    await there.commit();
    const refused = await request(gate, made.secret);
    assert.equal((refused.err as { status?: number } | null)?.status, 401);
    assert.equal((await request(gate, 'msk_not_a_key_at_all_0000000000')).err !== null, true);
    await store.close();
  });

  it('takes the tokens of requests that arrive together in one statement: exactly the bucket, in arrival order', async () => {
    const url = await (await cluster()).createDatabase();
    const pool = pgPoolClient(url, { max: 4 });
    clients.push(pool);
    await migrateServer(pool);
    const db = recording(pool);
    const perMinute = 30;
    const limiter = new PgRateLimiter(db, perMinute);
    const other = new PgRateLimiter(pool, perMinute);
    db.sent.length = 0;
    // 50 requests of one key and 3 of another at once, through this replica, and 5 through another.
    const mine = Array.from({ length: 50 }, () => limiter.takeShared('key-a', 'p'));
    const second = Array.from({ length: 3 }, () => limiter.takeShared('key-b', 'p'));
    const elsewhere = await Promise.all(Array.from({ length: 5 }, () => other.takeShared('key-a', 'p')));
    const got = await Promise.all(mine);
    assert.ok(db.sent.length <= 2, `${db.sent.length} statements for 53 requests`);
    const allowed = [...got, ...elsewhere].filter((t) => t.retryAfter === 0).length;
    assert.equal(allowed, perMinute, 'one bucket for both replicas: exactly its tokens were granted');
    // In arrival order: the allowed ones come first, the refused ones are told when to retry.
    const firstRefused = got.findIndex((t) => t.retryAfter > 0);
    assert.ok(got.slice(firstRefused).every((t) => t.retryAfter >= 1 && t.remaining === 0));
    assert.ok(got.slice(0, firstRefused).every((t) => t.retryAfter === 0));
    assert.deepEqual(
      got.slice(0, firstRefused).map((t) => t.remaining),
      [...got.slice(0, firstRefused).map((t) => t.remaining)].sort((x, y) => y - x),
      'each sees what its own token left',
    );
    assert.ok((await Promise.all(second)).every((t) => t.retryAfter === 0), 'another key has its own bucket');
    assert.equal(typeof got[0]!.tenancyVersion, 'number');
  });

  it('lets a search whose view is as far along as the head read at the request skip its own read, and catch up when it is not', async () => {
    const url = await (await cluster()).createDatabase();
    const pool = pgPoolClient(url, { max: 4 });
    clients.push(pool);
    const db = recording(pool);
    const reader = new PgStore({ db, store: 'p', dim: 16 });
    const writer = new PgStore({ db: pool, store: 'p', dim: 16 });
    await reader.open();
    await writer.open();
    await writer.append([row({ content: 'first heron note' })]);
    const head = async (): Promise<number> => Number((await pool.query<{ n: number }>(`SELECT change_no AS n FROM ms_store_meta WHERE store = 'p'`)).rows[0]!.n);
    const search = (changeSeen?: number) => reader.search({ text: 'heron', vector: null, model: null, filter: {}, validAt: Date.now() + 1000, limit: 10, changeSeen });
    assert.equal((await search()).length, 1, 'the view loads');
    db.sent.length = 0;
    assert.equal((await search(await head())).length, 1);
    assert.deepEqual(db.sent, [], 'the view is as far along as the head seen: no statement');
    await writer.append([row({ content: 'second heron note' })]);
    assert.equal((await search(await head())).length, 2, 'a later head: the view catches up first');
    assert.ok(db.sent.length > 0);
    await reader.close();
    await writer.close();
  });
});
