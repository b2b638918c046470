/**
 * POST /v1/sync/push on a real server: idempotent by version id, sequencing of concurrent edits,
 * transaction time kept monotone, tenancy (personal memories, purges), per-version refusals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contentHash, exportLine, uuidv7, type PlannedRow } from '../../engine/index.js';
import { assertError } from '../helpers/errors.js';
import { row } from '../helpers/rows.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../helpers/team.js';

let s: TestServer;
const keys: Record<'alice' | 'bob' | 'reader', string> = { alice: '', bob: '', reader: '' };
const members: Record<string, string> = {};
const T = Date.parse('2026-05-01T00:00:00Z');

before(async () => {
  s = await startTestServer({ embedder: null });
  const v = ok(await s.req('GET', '/api/v1/verify'));
  for (const [name, role] of [
    ['alice', 'member'],
    ['bob', 'member'],
    ['reader', 'reader'],
  ] as const) {
    const m = ok(await s.req('POST', `/v1/orgs/${v.org_id}/members`, { name, role }), 201).member_id;
    members[name] = m;
    keys[name] = ok(await s.req('POST', `/v1/orgs/${v.org_id}/projects/${v.project_id}/keys`, { member_id: m }), 201).key;
  }
});
after(() => s.close());

function v(memoryId: string, n: number, over: Partial<PlannedRow> = {}): PlannedRow {
  const content = over.content ?? `version ${n} of the note`;
  return row({ memory_id: memoryId, version: n, tx: n, content, content_hash: contentHash(content), recorded_at: T + n * 1000, created_at: T + 1000, ...over });
}

const push = (key: string, rows: unknown[]) => s.as(key)('POST', '/v1/sync/push', { versions: rows.map((r) => (typeof r === 'object' && r && 'vector' in r ? exportLine({ ...(r as PlannedRow), seq: 0 }) : r)) });

async function history(key: string, id: string): Promise<{ version: number; content: string; version_id: string; recorded_at: string }[]> {
  return ok(await s.as(key)('GET', `/v1/memories/${id}/history`)).versions;
}

async function eventsOf(key: string, id: string): Promise<unknown[]> {
  return ok(await s.as(key)('GET', '/v1/events?limit=1000')).results.filter((e: { memory_id?: string }) => e.memory_id === id);
}

describe('POST /v1/sync/push', () => {
  it('stores a version, and a retried push answers exists without storing it twice', async () => {
    const m = uuidv7();
    const first = ok(await push(keys.alice, [v(m, 1)]));
    assert.equal(first.results[0].status, 'accepted');
    assert.equal(first.results[0].version, 1);
    const again = ok(await push(keys.alice, [v(m, 1, { version_id: first.results[0].version_id })]));
    assert.deepEqual(
      again.results.map((r: { status: string; version: number }) => [r.status, r.version]),
      [['exists', 1]],
    );
    assert.equal((await history(keys.alice, m)).length, 1);
    assert.equal((await eventsOf(keys.alice, m)).length, 1, 'one event, not two');
  });

  it('sequences a concurrent edit after the one that arrived first; both stay in history', async () => {
    const m = uuidv7();
    const base = v(m, 1);
    ok(await push(keys.alice, [base]));
    const fromA = v(m, 2, { content: 'A: we use postgres', recorded_at: T + 5000 });
    // B's edit is a change in the world: the old fact clipped at T+2500, the new one from then on.
    const fromB = [
      v(m, 2, { content: 'B: clipped old fact', recorded_at: T + 4000, valid_from: T, valid_to: T + 2500 }),
      { ...v(m, 3, { content: 'B: we use sqlite', recorded_at: T + 4000, valid_from: T + 2500 }), tx: 2 },
    ];
    assert.equal(ok(await push(keys.alice, [fromA])).results[0].version, 2);
    const b = ok(await push(keys.bob, fromB)).results;
    assert.deepEqual(
      b.map((r: { status: string; version: number; tx: number }) => [r.status, r.version, r.tx]),
      [
        ['accepted', 3, 3],
        ['accepted', 4, 3],
      ],
    );
    assert.ok(Date.parse(b[0].recorded_at) > T + 5000, 'B’s transaction, recorded earlier, is re-stamped after A’s');
    assert.deepEqual(
      (await history(keys.bob, m)).map((h) => [h.version, h.content]),
      [
        [1, 'version 1 of the note'],
        [2, 'A: we use postgres'],
        [3, 'B: clipped old fact'],
        [4, 'B: we use sqlite'],
      ],
    );
    assert.equal(ok(await s.as(keys.alice)('GET', `/v1/memories/${m}`)).content, 'B: we use sqlite');
    const retried = ok(await push(keys.bob, fromB)).results;
    assert.deepEqual(
      retried.map((r: { status: string; version: number }) => [r.status, r.version]),
      [
        ['exists', 3],
        ['exists', 4],
      ],
      'a retry learns the numbers the server gave',
    );
  });

  it('stamps personal versions with the pusher as owner and refuses them to anyone else', async () => {
    const m = uuidv7();
    const res = ok(await push(keys.alice, [v(m, 1, { space: 'personal', owner_id: 'someone-else', content: 'I prefer tabs' })])).results[0];
    assert.equal(res.owner_id, members.alice);
    const byBob = ok(await push(keys.bob, [v(m, 2, { space: 'project', content: 'taken over' })])).results[0];
    assert.equal(byBob.status, 'rejected');
    assert.equal(byBob.error.code, 'CONFLICT');
    assert.ok(!byBob.error.message.includes('tabs'));
    assert.equal((await eventsOf(keys.bob, m)).length, 0, 'bob’s feed never shows alice’s personal memory');
    assert.equal((await eventsOf(keys.alice, m)).length, 1);
    assert.equal((await history(keys.alice, m)).length, 1);
  });

  it('never revives a purged memory', async () => {
    const m = uuidv7();
    ok(await push(keys.alice, [v(m, 1)]));
    ok(await s.as(keys.alice)('DELETE', `/v1/memories/${m}?purge=true`));
    const late = ok(await push(keys.bob, [v(m, 2, { content: 'an edit made before the purge was known' })])).results[0];
    assert.equal(late.status, 'purged');
    assertError(await s.as(keys.alice)('GET', `/v1/memories/${m}`), 404, 'NOT_FOUND');
  });

  it('refuses bad versions one by one (whole transactions), storing the rest', async () => {
    const good = uuidv7();
    const tooLong = uuidv7();
    const multi = uuidv7();
    const res = ok(
      await push(keys.alice, [
        { kind: 'version', version_id: 'not-a-uuid' },
        v(good, 1),
        v(tooLong, 1, { content: 'x'.repeat(4001) }),
        v(multi, 1),
        { ...exportLine({ ...v(multi, 2), seq: 0 }), tx: 1, category: 'bogus' },
      ]),
    ).results;
    assert.deepEqual(
      res.map((r: { status: string; error?: { code: string } }) => [r.status, r.error?.code ?? null]),
      [
        ['rejected', 'VALIDATION_FAILED'],
        ['accepted', null],
        ['rejected', 'PAYLOAD_TOO_LARGE'],
        ['rejected', 'VALIDATION_FAILED'],
        ['rejected', 'VALIDATION_FAILED'],
      ],
    );
    assertError(await s.as(keys.alice)('GET', `/v1/memories/${multi}`), 404, 'NOT_FOUND');
  });

  it('refuses a key without write permission, a missing key and malformed requests as a whole', async () => {
    assertError(await push(keys.reader, [v(uuidv7(), 1)]), 403, 'FORBIDDEN');
    assertError(await s.as('nope')('POST', '/v1/sync/push', { versions: [] }), 401, 'UNAUTHORIZED');
    assertError(await push(keys.alice, []), 422, 'VALIDATION_FAILED');
    assertError(await s.as(keys.alice)('POST', '/v1/sync/push', { versions: new Array(1001).fill({}) }), 422, 'VALIDATION_FAILED');
    assertError(await s.as(keys.alice)('POST', '/v1/sync/push', { rows: [] }), 422, 'VALIDATION_FAILED');
  });
});
