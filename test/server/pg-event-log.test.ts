/**
 * The PostgreSQL event log against a real PostgreSQL: two logs on one project (as two replicas)
 * appending at once number one gap-free feed both read the same; a version's second event is
 * dropped; at open the catch-up point stops at the first version without an event; purge
 * redaction reaches the stored rows.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { pgPoolClient, type SqlClient } from '../../engine/index.js';
import type { EventInput } from '../../server/event-types.js';
import { PgEventLog } from '../../server/pg-event-log.js';
import { migrateServer } from '../../server/pg-state.js';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';

const cluster = sharedPostgres();
const clients: SqlClient[] = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

async function database(): Promise<SqlClient> {
  const db = pgPoolClient(await (await cluster()).createDatabase(), { max: 6 });
  clients.push(db);
  await migrateServer(db);
  return db;
}

function memoryEvent(engineSeq: number, memoryId = `m${engineSeq}`): EventInput {
  return { type: 'memory.added', status: 'SUCCEEDED', memory_id: memoryId, data: { memory_id: memoryId, content: `note ${engineSeq}` }, engine_seq: engineSeq, visible_to: null };
}

/** `db`, counting the statements that read the feed (syncs). */
function counting(db: SqlClient): { db: SqlClient; reads: () => number } {
  let reads = 0;
  const count = (text: string): void => {
    if (/^SELECT seq, event_id/.test(text)) reads++;
  };
  return {
    db: {
      query: (text, params) => (count(text), db.query(text, params)),
      transaction: (fn) => db.transaction((tx) => fn({ query: (text, params) => (count(text), tx.query(text, params)) })),
      close: async () => {},
    },
    reads: () => reads,
  };
}

describe('PgEventLog', { skip: skipWithoutPostgres() }, () => {
  it('shares one flush among the callers that arrive while one runs (a burst of answered writes reads the feed once or twice, not once each)', async () => {
    const c = counting(await database());
    const log = await PgEventLog.open(c.db, 'burst');
    const before = c.reads();
    log.append({ type: 'import.completed', status: 'SUCCEEDED', data: { i: 0 }, visible_to: null });
    await Promise.all(Array.from({ length: 20 }, () => log.flush()));
    assert.ok(c.reads() - before <= 2, `${c.reads() - before} reads of the feed for 20 flushes at once`);
    assert.equal(log.durable, 1);
    // A flush asked for after one started still runs after it (it must see what came since).
    log.append({ type: 'import.completed', status: 'SUCCEEDED', data: { i: 1 }, visible_to: null });
    const first = log.flush();
    log.append({ type: 'import.completed', status: 'SUCCEEDED', data: { i: 2 }, visible_to: null });
    await Promise.all([first, log.flush()]);
    assert.equal(log.durable, 3);
  });

  it('numbers the appends of two replicas as one gap-free feed that both read the same', async () => {
    const db = await database();
    const [a, b] = await Promise.all([PgEventLog.open(db, 'p1'), PgEventLog.open(db, 'p1')]);
    const writers = [a, b].map(async (log, w) => {
      for (let i = 0; i < 40; i++) {
        log.append({ type: 'import.completed', status: 'SUCCEEDED', data: { writer: w, i }, visible_to: null });
        if (i % 3 === 0) await log.flush();
      }
      await log.flush();
    });
    await Promise.all(writers);
    await a.flush();
    await b.flush();
    assert.equal(a.durable, 80);
    assert.equal(b.durable, 80);
    const [viaA, viaB] = [await a.bySeq(Array.from({ length: 80 }, (_, i) => i + 1)), await b.read(b.entriesAfter(0))];
    assert.deepEqual(viaA, viaB);
    assert.deepEqual(
      viaA.map((e) => e.seq),
      Array.from({ length: 80 }, (_, i) => i + 1),
    );
    // Each writer's events keep their order within the feed.
    for (const w of [0, 1]) {
      const mine = viaA.map((e) => e.data as { writer: number; i: number }).filter((d) => d.writer === w);
      assert.deepEqual(
        mine.map((d) => d.i),
        Array.from({ length: 40 }, (_, i) => i),
      );
    }
    // Another project's feed starts at 1.
    const other = await PgEventLog.open(db, 'p2');
    other.append(memoryEvent(1));
    await other.flush();
    assert.deepEqual(
      other.entriesAfter(0).map((e) => e.seq),
      [1],
    );
    await Promise.all([a.close(), b.close(), other.close()]);
  });

  it('records a version once, and catches up from the first version without an event', async () => {
    const db = await database();
    const a = await PgEventLog.open(db, 'p');
    const b = await PgEventLog.open(db, 'p');
    a.append(memoryEvent(1));
    b.append(memoryEvent(1)); // the same version, recorded by a second replica catching up
    a.append(memoryEvent(3));
    await a.flush();
    await b.flush();
    await a.flush();
    assert.deepEqual(
      a.entriesAfter(0).map((e) => [e.seq, e.engine_seq]),
      [
        [1, 1],
        [2, 3],
      ],
    );
    // Version 2's event was never written (its replica died): a replica opening now starts at 1.
    const c = await PgEventLog.open(db, 'p');
    assert.equal(c.lastEngineSeq, 1);
    c.append(memoryEvent(2));
    c.append(memoryEvent(3));
    await c.flush();
    assert.deepEqual(
      c.entriesAfter(0).map((e) => e.engine_seq),
      [1, 3, 2],
    );
    assert.equal((await PgEventLog.open(db, 'p')).lastEngineSeq, 3);
    assert.equal((await PgEventLog.open(db, 'empty')).lastEngineSeq, 0);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('redacts a purged memory in the stored rows and keeps the others', async () => {
    const db = await database();
    const log = await PgEventLog.open(db, 'p');
    log.append(memoryEvent(1, 'gone'));
    log.append(memoryEvent(2, 'kept'));
    assert.equal(await log.redact(new Set(['gone'])), 1);
    assert.equal(await log.redact(new Set(['gone'])), 0);
    const rows = (await db.query<{ memory_id: string; data: unknown; redacted: boolean }>(`SELECT memory_id, data, redacted FROM ms_events WHERE project_id = 'p' ORDER BY seq`)).rows;
    assert.deepEqual(rows, [
      { memory_id: 'gone', data: { memory_id: 'gone', purged: true }, redacted: true },
      { memory_id: 'kept', data: { memory_id: 'kept', content: 'note 2' }, redacted: false },
    ]);
    assert.equal(log.lastEventOf('gone')?.redacted, true);
    await log.close();
  });
});
