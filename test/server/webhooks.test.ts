/**
 * Webhooks against a real receiver on another loopback port that verifies every signature:
 * delivery, retries after 500s, timeouts and refused connections, giving up after the configured
 * attempts, delivery after a server restart, subscriptions by type, personal visibility, the test
 * delivery, and the refusal of private targets.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { assertError, eventually } from '../helpers/errors.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buildTeam, ok } from '../helpers/team.js';

const FAST = { webhookAllowPrivate: true, webhookRetryBaseMs: 20, webhookTimeoutMs: 1000 };

async function hook(s: TestServer, r: Receiver, events: string[] = ['*']): Promise<any> {
  const h = ok(await s.req('POST', '/v1/webhooks', { url: r.url, events, description: 'test receiver' }), 201);
  r.secret = h.secret;
  return h;
}

async function deliveries(s: TestServer, id: string): Promise<any[]> {
  return ok(await s.req('GET', `/v1/webhooks/${id}/deliveries`)).results;
}

describe('webhooks', () => {
  it('delivers each event signed, with its id, type and timestamp headers, and records the attempt', async () => {
    const s = await startTestServer({ config: FAST });
    const r = await startReceiver();
    try {
      const h = await hook(s, r);
      assert.match(h.secret, /^whsec_/);
      assert.equal(ok(await s.req('GET', `/v1/webhooks/${h.webhook_id}`)).secret, undefined, 'the secret is shown once');
      const m = ok(await s.req('POST', '/v1/memories', { user_id: 'u', content: 'deliver me' }), 201);
      await eventually(async () => r.received.length === 1, 5000, 'a delivery');
      const got = r.received[0]!;
      assert.equal(got.valid, true, 'signature verifies with the secret');
      assert.equal(got.headers['x-memory-event'], 'memory.added');
      assert.match(String(got.headers['x-memory-delivery']), /^[0-9a-f-]{36}$/);
      assert.match(String(got.headers['x-memory-timestamp']), /^\d{10}$/);
      assert.deepEqual(Object.keys(got.json).sort(), ['created_at', 'data', 'event_id', 'type']);
      assert.equal(got.json.data.memory_id, m.memory_id);
      assert.equal(got.json.data.content, 'deliver me');
      const event = ok(await s.req('GET', `/v1/events/${got.json.event_id}`));
      assert.deepEqual(event.data, got.json.data);
      const list = await eventually(async () => {
        const d = await deliveries(s, h.webhook_id);
        return d[0]?.status === 'SUCCEEDED' ? d : null;
      });
      assert.equal(list[0].delivery_id, got.headers['x-memory-delivery']);
      assert.equal(list[0].attempts.length, 1);
      assert.equal(list[0].attempts[0].status_code, 200);
      assert.equal(typeof list[0].attempts[0].duration_ms, 'number');
      // Tampering is detectable: the same headers do not verify another body.
      const { verifySignature } = await import('../../server/index.js');
      assert.equal(verifySignature(h.secret, String(got.headers['x-memory-signature']), String(got.headers['x-memory-timestamp']), got.body.replace('deliver', 'DELIVER')), false);
    } finally {
      await s.close();
      await r.close();
    }
  });

  it('retries after the receiver answers 500 twice, then succeeds', async () => {
    const s = await startTestServer({ config: FAST });
    const r = await startReceiver();
    try {
      const h = await hook(s, r);
      r.script = [500, 500];
      await s.req('POST', '/v1/memories', { user_id: 'u', content: 'retry me' });
      const [d] = await eventually(async () => {
        const list = await deliveries(s, h.webhook_id);
        return list[0]?.status === 'SUCCEEDED' ? list : null;
      });
      assert.deepEqual(
        d.attempts.map((a: any) => a.status_code),
        [500, 500, 200],
      );
      assert.equal(d.attempts[0].error, 'HTTP 500');
      assert.equal(r.received.length, 3);
      assert.ok(r.received.every((x) => x.valid));
      assert.equal(new Set(r.received.map((x) => x.headers['x-memory-delivery'])).size, 1, 'one delivery id across attempts');
      assert.ok(Date.parse(d.attempts[2].started_at) - Date.parse(d.attempts[1].started_at) >= 15, 'backoff between attempts');
    } finally {
      await s.close();
      await r.close();
    }
  });

  it('counts timeouts and refused connections as failures and gives up after the configured attempts', async () => {
    const s = await startTestServer({ config: { ...FAST, webhookMaxAttempts: 2, webhookTimeoutMs: 200 } });
    const r = await startReceiver();
    const gone = await startReceiver();
    await gone.close();
    try {
      const slow = await hook(s, r, ['memory.added']);
      r.script = [0, 0];
      const refused = ok(await s.req('POST', '/v1/webhooks', { url: gone.url, events: ['memory.added'] }), 201);
      await s.req('POST', '/v1/memories', { user_id: 'u', content: 'nobody answers this' });
      for (const [id, error] of [
        [slow.webhook_id, /^timeout after 200 ms$/],
        [refused.webhook_id, /ECONNREFUSED/],
      ] as const) {
        const [d] = await eventually(async () => {
          const list = await deliveries(s, id);
          return list[0]?.status === 'FAILED' ? list : null;
        });
        assert.equal(d.attempts.length, 2);
        assert.equal(d.attempts[1].status_code, null);
        assert.match(d.attempts[1].error, error);
        assert.equal(d.next_attempt_at, null);
      }
    } finally {
      await s.close();
      await r.close();
    }
  });

  it('resumes pending deliveries and fans out recorded events after a restart', async () => {
    const r0 = await startReceiver();
    const port = new URL(r0.url).port;
    await r0.close(); // the receiver is down: connections are refused
    let s = await startTestServer({ config: { ...FAST, webhookRetryBaseMs: 400 } });
    const h = ok(await s.req('POST', '/v1/webhooks', { url: r0.url, events: ['memory.*'] }), 201);
    await s.req('POST', '/v1/memories', { user_id: 'u', content: 'sent while the receiver was down' });
    await eventually(async () => (await deliveries(s, h.webhook_id))[0]?.attempts.length === 1, 5000, 'a failed first attempt');
    await s.close(); // stopped with the delivery pending
    const r = await startReceiver(Number(port));
    r.secret = h.secret;
    s = await startTestServer({ dataDir: s.dataDir, key: s.key, config: FAST });
    try {
      await eventually(async () => r.received.length === 1, 5000, 'the resumed delivery');
      assert.equal(r.received[0]!.json.data.content, 'sent while the receiver was down');
      assert.equal(r.received[0]!.valid, true);
      const [d] = await eventually(async () => {
        const list = await deliveries(s, h.webhook_id);
        return list[0]?.status === 'SUCCEEDED' ? list : null;
      });
      assert.deepEqual(
        d.attempts.map((a: any) => a.status_code),
        [null, 200],
      );
      assert.match(d.attempts[0].error, /ECONNREFUSED/);
      await s.close();
      if (s.databaseUrl) {
        // PostgreSQL creates deliveries in the events' own transaction, so no fan-out can be lost;
        // what a crash can leave is a delivery claimed by a replica that died mid-attempt: it is
        // sent again once that replica's lease expires.
        const db = new pg.Client({ connectionString: s.databaseUrl });
        await db.connect();
        const leased = await db.query(
          `UPDATE ms_deliveries SET status = 'PENDING', next_at_ms = 0, lease_owner = 'a-dead-replica', lease_until_ms = (extract(epoch from clock_timestamp()) * 1000) + 3000 WHERE delivery_id = $1 RETURNING delivery_id`,
          [d.delivery_id],
        );
        await db.end();
        assert.equal(leased.rowCount, 1);
      } else {
        // As if the last start died after recording the event but before persisting its fan-out.
        const pid = fs.readdirSync(path.join(s.dataDir, 'projects'))[0]!;
        const dir = path.join(s.dataDir, 'projects', pid, 'webhooks');
        fs.rmSync(path.join(dir, 'deliveries.ndjson'));
        fs.writeFileSync(path.join(dir, 'fanout.json'), JSON.stringify({ seq: 0 }));
      }
      const leasedAt = Date.now();
      s = await startTestServer({ dataDir: s.dataDir, key: s.key, config: FAST });
      if (s.databaseUrl) {
        await new Promise((x) => setTimeout(x, Math.max(0, leasedAt + 2000 - Date.now())));
        assert.equal(r.received.length, 1, 'nobody sends a delivery another replica holds the lease of');
      }
      await eventually(async () => r.received.length === 2, 5000, 'the event delivered again');
      assert.equal(r.received[1]!.json.event_id, r.received[0]!.json.event_id, 'at least once: same event id, receivers dedupe by it');
    } finally {
      await s.close();
      await r.close();
    }
  });

  it('stops the pending deliveries of a deleted webhook, also across a restart', async () => {
    const r0 = await startReceiver();
    const port = new URL(r0.url).port;
    await r0.close();
    let s = await startTestServer({ config: { ...FAST, webhookRetryBaseMs: 200 } });
    const h = ok(await s.req('POST', '/v1/webhooks', { url: r0.url, events: ['*'] }), 201);
    await s.req('POST', '/v1/memories', { user_id: 'u', content: 'never delivered' });
    await eventually(async () => (await deliveries(s, h.webhook_id))[0]?.attempts.length === 1, 5000, 'a failed first attempt');
    ok(await s.req('DELETE', `/v1/webhooks/${h.webhook_id}`));
    await s.close();
    const r = await startReceiver(Number(port));
    s = await startTestServer({ dataDir: s.dataDir, key: s.key, config: FAST });
    try {
      await new Promise((x) => setTimeout(x, 600));
      assert.equal(r.received.length, 0);
    } finally {
      await s.close();
      await r.close();
    }
  });

  it('delivers only subscribed types and only what the creator may see', async () => {
    const s = await startTestServer({ config: FAST });
    const r = await startReceiver();
    try {
      const team = await buildTeam(s);
      await hook(s, r, ['memory.deleted', 'export.*']);
      const alice = s.as(team.alice.key);
      const mine = ok(await alice('POST', '/v1/memories', { user_id: 'alice', content: 'alice private note', space: 'personal' }), 201);
      await alice('DELETE', `/v1/memories/${mine.memory_id}`);
      const shared = ok(await alice('POST', '/v1/memories', { user_id: 'alice', content: 'shared decision' }), 201);
      await alice('DELETE', `/v1/memories/${shared.memory_id}`);
      await s.req('POST', '/v1/exports', {});
      await eventually(async () => r.received.length >= 4, 5000, 'four deliveries');
      await new Promise((x) => setTimeout(x, 200));
      assert.deepEqual(
        r.received.map((x) => x.json.type).sort(),
        ['export.created', 'export.running', 'export.succeeded', 'memory.deleted'],
      );
      assert.equal(r.received.find((x) => x.json.type === 'memory.deleted')!.json.data.memory_id, shared.memory_id);
      assert.ok(!r.received.some((x) => x.body.includes(mine.memory_id)), 'nothing about another member’s personal memory');
    } finally {
      await s.close();
      await r.close();
    }
  });

  it('manages webhooks: test delivery, update, pause, delete, validation and permissions', async () => {
    const s = await startTestServer({ config: FAST });
    const r = await startReceiver();
    try {
      const team = await buildTeam(s);
      const h = await hook(s, r);
      const t = ok(await s.req('POST', `/v1/webhooks/${h.webhook_id}/test`));
      assert.equal(t.status, 'SUCCEEDED');
      assert.equal(t.test, true);
      assert.equal(r.received[0]!.json.type, 'webhook.test');
      assert.equal(r.received[0]!.valid, true);
      assert.equal((await deliveries(s, h.webhook_id))[0].delivery_id, t.delivery_id);
      assert.equal(ok(await s.req('GET', '/v1/webhooks')).results.length, 1);
      const paused = ok(await s.req('PATCH', `/v1/webhooks/${h.webhook_id}`, { active: false, events: ['memory.added'] }));
      assert.equal(paused.active, false);
      assert.deepEqual(paused.events, ['memory.added']);
      await s.req('POST', '/v1/memories', { user_id: 'u', content: 'while paused' });
      await s.req('PATCH', `/v1/webhooks/${h.webhook_id}`, { active: true });
      await s.req('POST', '/v1/memories', { user_id: 'u', content: 'after resuming' });
      await eventually(async () => r.received.length === 2, 5000, 'the post-resume delivery');
      await new Promise((x) => setTimeout(x, 100));
      assert.deepEqual(
        r.received.map((x) => x.json.data.content ?? null),
        [null, 'after resuming'],
      );
      assertError(await s.req('POST', '/v1/webhooks', { url: r.url, events: ['memory.exploded'] }), 422, 'VALIDATION_FAILED');
      assertError(await s.req('POST', '/v1/webhooks', { url: r.url, events: [] }), 422, 'VALIDATION_FAILED');
      assertError(await s.req('POST', '/v1/webhooks', { url: 'ftp://example.com/x', events: ['*'] }), 422, 'VALIDATION_FAILED');
      assertError(await s.req('POST', '/v1/webhooks', { url: r.url, events: ['*'], secret: 'mine' }), 422, 'VALIDATION_FAILED');
      assertError(await s.req('PATCH', `/v1/webhooks/${h.webhook_id}`, {}), 422, 'VALIDATION_FAILED');
      assertError(await s.req('POST', `/v1/webhooks/${h.webhook_id}/test`, { x: 1 }), 422, 'VALIDATION_FAILED');
      assertError(await s.req('GET', `/v1/webhooks/${h.webhook_id}/deliveries?status=LOST`), 400, 'INVALID_REQUEST');
      assertError(await s.req('GET', '/v1/webhooks/01890a5d-ac96-774b-bcce-b302099a8057'), 404, 'NOT_FOUND');
      assertError(await s.as(team.alice.key)('GET', '/v1/webhooks'), 403, 'FORBIDDEN');
      assertError(await s.as(team.alice.key)('POST', '/v1/webhooks', { url: r.url, events: ['*'] }), 403, 'FORBIDDEN');
      assert.equal(ok(await s.req('GET', '/v1/webhooks')).results.length, 1, 'rejected requests created nothing');
      ok(await s.req('DELETE', `/v1/webhooks/${h.webhook_id}`));
      assertError(await s.req('GET', `/v1/webhooks/${h.webhook_id}`), 404, 'NOT_FOUND');
      assertError(await s.req('GET', `/v1/webhooks/${h.webhook_id}/deliveries`), 404, 'NOT_FOUND');
    } finally {
      await s.close();
      await r.close();
    }
  });

  it('refuses loopback, private, link-local and unresolvable targets unless the operator allows them', async () => {
    const s = await startTestServer();
    try {
      for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://[::1]/x', 'http://10.1.2.3/x', 'http://192.168.1.1/', 'http://169.254.169.254/latest', 'http://[fd00::1]/', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/']) {
        const res = await s.req('POST', '/v1/webhooks', { url, events: ['*'] });
        assertError(res, 422, 'VALIDATION_FAILED');
        assert.equal(res.json.error.details.reason, 'private_address', url);
      }
      const unresolvable = await s.req('POST', '/v1/webhooks', { url: 'http://no-such-host.invalid/x', events: ['*'] });
      assertError(unresolvable, 422, 'VALIDATION_FAILED');
      assert.equal(unresolvable.json.error.details.reason, 'unresolvable');
      assertError(await s.req('POST', '/v1/webhooks', { url: 'http://user:pw@example.com/', events: ['*'] }), 422, 'VALIDATION_FAILED');
      assert.equal(ok(await s.req('GET', '/v1/webhooks')).results.length, 0);
    } finally {
      await s.close();
    }
  });
});
