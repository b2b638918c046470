/**
 * On PostgreSQL a version commits with its event (and the event's webhook deliveries), and an
 * export job's status with its event, in one transaction: a fault in the event write (a trigger
 * that raises, as a dropped connection or a full disk would) rolls the version or the status back
 * and the client gets a 5xx, so no committed state ever lacks its event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const skip = skipWithoutPostgres();
const cluster = sharedPostgres();

describe('events in the transaction of what they describe (PostgreSQL)', { skip }, () => {
  let s: TestServer;
  let sql: pg.Client;

  before(async () => {
    const databaseUrl = await (await cluster()).createDatabase();
    s = await startTestServer({ config: { databaseUrl } });
    sql = new pg.Client({ connectionString: databaseUrl });
    await sql.connect();
    // Fails the insert of any event whose payload or type matches a pattern the test sets.
    await sql.query(`CREATE TABLE fault (pattern text NOT NULL)`);
    await sql.query(`CREATE FUNCTION fail_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM fault WHERE NEW.data::text LIKE pattern OR NEW.type LIKE pattern) THEN
          RAISE EXCEPTION 'injected fault in the event write';
        END IF;
        RETURN NEW;
      END $$`);
    await sql.query(`CREATE TRIGGER fail_event BEFORE INSERT ON ms_events FOR EACH ROW EXECUTE FUNCTION fail_event()`);
  });

  after(async () => {
    await sql?.end();
    await s?.close();
  });

  const inject = (pattern: string): Promise<unknown> => sql.query(`INSERT INTO fault (pattern) VALUES ($1)`, [pattern]);
  const heal = (): Promise<unknown> => sql.query(`DELETE FROM fault`);

  it('rolls the version back and answers 5xx when its event cannot be written', async () => {
    await inject('%poisoned-walrus%');
    const add = await s.req('POST', '/v1/memories', { user_id: 'u', content: 'the poisoned-walrus deploy key rotates on Fridays' });
    assert.ok(add.status >= 500, `a 5xx, not ${add.status}: ${add.text}`);
    const stored = await sql.query(`SELECT count(*)::int AS n FROM ms_versions WHERE content LIKE '%poisoned-walrus%'`);
    assert.equal(stored.rows[0].n, 0, 'no version committed without its event');
    const list = await s.req('GET', '/v1/memories?user_id=u');
    assert.equal(list.status, 200, list.text);
    assert.ok(!list.text.includes('poisoned-walrus'));

    await heal();
    const again = await s.req('POST', '/v1/memories', { user_id: 'u', content: 'the poisoned-walrus deploy key rotates on Fridays' });
    assert.equal(again.status, 201, again.text);
    const id = again.json.memory_id as string;
    // Every version has exactly one event, and the feed has no gap.
    const versions = await sql.query(`SELECT seq FROM ms_versions WHERE memory_id = $1`, [id]);
    const events = await sql.query(`SELECT engine_seq FROM ms_events WHERE memory_id = $1`, [id]);
    assert.deepEqual(
      events.rows.map((r) => Number(r.engine_seq)),
      versions.rows.map((r) => Number(r.seq)),
    );
    const seqs = (await sql.query(`SELECT seq FROM ms_events ORDER BY seq`)).rows.map((r) => Number(r.seq));
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
    );
    const feed = await s.req('GET', '/v1/events?limit=100');
    assert.equal(feed.status, 200, feed.text);
    assert.ok(feed.json.results.some((e: { memory_id?: string; type: string }) => e.memory_id === id && e.type === 'memory.added'), feed.text);
  });

  it('keeps an update and a delete out of the store when their events fail', async () => {
    const add = await s.req('POST', '/v1/memories', { user_id: 'u', content: 'the build cache lives on volume nine' });
    assert.equal(add.status, 201, add.text);
    const id = add.json.memory_id as string;
    await inject('%volume eleven%');
    const patch = await s.req('PATCH', `/v1/memories/${id}`, { content: 'the build cache lives on volume eleven' });
    assert.ok(patch.status >= 500, `a 5xx, not ${patch.status}: ${patch.text}`);
    await heal();
    await inject('memory.deleted');
    const del = await s.req('DELETE', `/v1/memories/${id}`);
    assert.ok(del.status >= 500, `a 5xx, not ${del.status}: ${del.text}`);
    await heal();
    const got = await s.req('GET', `/v1/memories/${id}`);
    assert.equal(got.status, 200, got.text);
    assert.match(got.text, /volume nine/);
    const versions = await sql.query(`SELECT count(*)::int AS n FROM ms_versions WHERE memory_id = $1`, [id]);
    assert.equal(versions.rows[0].n, 1, 'only the first version was committed');
  });

  it('creates no export job when its export.created event cannot be written', async () => {
    await inject('export.created');
    const ex = await s.req('POST', '/v1/exports', {});
    assert.ok(ex.status >= 500, `a 5xx, not ${ex.status}: ${ex.text}`);
    assert.equal((await sql.query(`SELECT count(*)::int AS n FROM ms_export_jobs`)).rows[0].n, 0, 'no job without its event');
    await heal();
  });

  it('leaves an export RUNNING (never SUCCEEDED) while its export.succeeded event cannot be written', async () => {
    await inject('export.succeeded');
    const ex = await s.req('POST', '/v1/exports', {});
    assert.equal(ex.status, 202, ex.text);
    const id = ex.json.export_id as string;
    // Wait until the run has tried to finish: its RUNNING event is in the feed and the job stopped changing.
    for (let i = 0; i < 100; i++) {
      const running = await sql.query(`SELECT 1 FROM ms_events WHERE subject_id = $1 AND type = 'export.running'`, [id]);
      if (running.rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 500));
    const job = await sql.query(`SELECT status FROM ms_export_jobs WHERE export_id = $1`, [id]);
    assert.equal(job.rows[0].status, 'RUNNING');
    const types = (await sql.query(`SELECT type FROM ms_events WHERE subject_id = $1 ORDER BY seq`, [id])).rows.map((r) => r.type);
    assert.deepEqual(types, ['export.created', 'export.running']);
    await heal();

    const ok = await s.req('POST', '/v1/exports', {});
    assert.equal(ok.status, 202, ok.text);
    for (let i = 0; i < 100; i++) {
      if ((await s.req('GET', `/v1/exports/${ok.json.export_id}`)).json.status === 'SUCCEEDED') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const done = (await sql.query(`SELECT type FROM ms_events WHERE subject_id = $1 ORDER BY seq`, [ok.json.export_id])).rows.map((r) => r.type);
    assert.deepEqual(done, ['export.created', 'export.running', 'export.succeeded']);
  });
});
