/** /v1/entities: users, agents, apps and runs with counts and activity, personal visibility, cascading delete and purge. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertError } from '../helpers/errors.js';
import { startTestServer } from '../helpers/server.js';
import { buildTeam, ok } from '../helpers/team.js';

describe('entities', () => {
  it('lists users, agents, apps and runs with memory counts and activity, and gets one', async () => {
    const s = await startTestServer();
    try {
      const t = await buildTeam(s);
      const alice = s.as(t.alice.key);
      await alice('POST', '/v1/memories', { user_id: 'ann', agent_id: 'claude', app_id: 'cli', run_id: 'run-1', content: 'first' });
      await alice('POST', '/v1/memories', { user_id: 'ann', agent_id: 'claude', run_id: 'run-2', content: 'second' });
      await alice('POST', '/v1/memories', { user_id: 'ann', content: 'ann private', space: 'personal' });
      const gone = ok(await alice('POST', '/v1/memories', { user_id: 'cy', content: 'deleted later' }), 201);
      await alice('DELETE', `/v1/memories/${gone.memory_id}`);
      const list = ok(await alice('GET', '/v1/entities')).results;
      const pick = (type: string, id: string): any => list.find((e: any) => e.type === type && e.id === id);
      assert.equal(pick('user', 'ann').memories, 3);
      assert.equal(pick('agent', 'claude').memories, 2);
      assert.equal(pick('app', 'cli').memories, 1);
      assert.equal(pick('run', 'run-2').memories, 1);
      assert.equal(pick('user', 'cy'), undefined, 'tombstoned memories do not count');
      assert.ok(Date.parse(pick('user', 'ann').last_activity) >= Date.parse(pick('user', 'ann').first_seen));
      for (let i = 1; i < list.length; i++) assert.ok(Date.parse(list[i - 1].last_activity) >= Date.parse(list[i].last_activity), 'most recent first');
      assert.equal(ok(await s.as(t.bob.key)('GET', '/v1/entities/user/ann')).memories, 2, 'Bob does not count Alice’s personal memory');
      assert.deepEqual(
        ok(await alice('GET', '/v1/entities?type=run')).results.map((e: any) => e.id).sort(),
        ['run-1', 'run-2'],
      );
      assertError(await alice('GET', '/v1/entities/robot/x'), 400, 'INVALID_REQUEST');
      assertError(await alice('GET', '/v1/entities?type=robot'), 400, 'INVALID_REQUEST');
      assertError(await alice('GET', '/v1/entities/user/nobody'), 404, 'NOT_FOUND');
    } finally {
      await s.close();
    }
  });

  it('tombstones an entity’s memories, and purges every version of them (tombstoned ones too) with ?purge=true', async () => {
    const s = await startTestServer();
    try {
      const t = await buildTeam(s);
      const alice = s.as(t.alice.key);
      const a = ok(await alice('POST', '/v1/memories', { user_id: 'dan', content: 'dan likes tea' }), 201);
      const b = ok(await alice('POST', '/v1/memories', { user_id: 'dan', content: 'dan prefers vim' }), 201);
      const mine = ok(await alice('POST', '/v1/memories', { user_id: 'dan', content: 'dan private', space: 'personal' }), 201);
      const other = ok(await alice('POST', '/v1/memories', { user_id: 'eve', content: 'eve stays' }), 201);
      assertError(await s.as(t.reader.key)('DELETE', '/v1/entities/user/dan'), 403, 'FORBIDDEN');
      const del = ok(await s.as(t.bob.key)('DELETE', '/v1/entities/user/dan'));
      assert.equal(del.memories, 2, 'Bob’s delete reaches only what Bob can see');
      assert.equal(del.purged, false);
      assertError(await alice('GET', `/v1/memories/${a.memory_id}`), 404, 'NOT_FOUND');
      assert.deepEqual(
        ok(await alice('GET', `/v1/memories/${b.memory_id}/history`)).versions.map((v: any) => v.event),
        ['ADD', 'DELETE'],
      );
      assert.equal(ok(await alice('GET', `/v1/memories/${mine.memory_id}`)).content, 'dan private');
      const purge = ok(await alice('DELETE', '/v1/entities/user/dan?purge=true'));
      assert.equal(purge.memories, 3);
      for (const id of [a.memory_id, b.memory_id, mine.memory_id]) assertError(await alice('GET', `/v1/memories/${id}/history`), 404, 'NOT_FOUND');
      assert.equal(ok(await alice('GET', `/v1/memories/${other.memory_id}`)).content, 'eve stays');
      const events = ok(await alice('GET', '/v1/events?limit=1000')).results;
      assert.equal(events.filter((e: any) => e.type === 'memory.purged').length, 3);
      assert.ok(!JSON.stringify(events).includes('dan likes tea'), 'purged content is gone from the feed');
      assertError(await alice('DELETE', '/v1/entities/user/dan?purge=true'), 404, 'NOT_FOUND');
      assertError(await alice('DELETE', '/v1/entities/user/eve?purge=maybe'), 400, 'INVALID_REQUEST');
    } finally {
      await s.close();
    }
  });
});
