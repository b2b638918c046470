/** The server's limits: per-key rate limit (429 + Retry-After), body size (413), page size bounds on every list route. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiter } from '../../server/rate-limit.js';
import { assertError } from '../helpers/errors.js';
import { startTestServer } from '../helpers/server.js';
import { buildTeam, ok } from '../helpers/team.js';

describe('limits', () => {
  it('answers 429 with Retry-After and the error body once a key spends its minute, per key', async () => {
    const s = await startTestServer({ config: { rateLimitPerMinute: 4 } });
    try {
      for (let i = 0; i < 4; i++) assert.equal((await s.req('GET', '/v1/memories?limit=1')).status, 200);
      const r = await s.req('GET', '/v1/memories?limit=1');
      assertError(r, 429, 'RATE_LIMITED');
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
      assert.equal(r.json.error.details.limit_per_minute, 4);
      assertError(await s.req('GET', '/api/v1/verify'), 429, 'RATE_LIMITED');
      assertError(await s.req('POST', '/v1/memories', { user_id: 'u', content: 'refused' }), 429, 'RATE_LIMITED');
    } finally {
      await s.close();
    }
    const s2 = await startTestServer({ config: { rateLimitPerMinute: 1000 } });
    try {
      const t = await buildTeam(s2);
      assert.equal((await s2.as(t.alice.key)('GET', '/api/v1/verify')).status, 200, 'each key has its own bucket');
    } finally {
      await s2.close();
    }
  });

  it('refills the bucket at the per-minute rate', () => {
    let now = 0;
    const rl = new RateLimiter(60, () => now);
    for (let i = 0; i < 60; i++) assert.equal(rl.take('k').retryAfter, 0);
    assert.equal(rl.take('k').retryAfter, 1);
    now += 1000;
    assert.equal(rl.take('k').retryAfter, 0, 'one token per second at 60/min');
    assert.equal(rl.take('k').retryAfter, 1);
    assert.equal(rl.take('other').retryAfter, 0);
  });

  it('never answers a Retry-After longer than a minute when the clock steps back', () => {
    let now = 1_000_000;
    const rl = new RateLimiter(60, () => now);
    for (let i = 0; i < 60; i++) rl.take('k');
    now -= 30 * 24 * 3600_000;
    assert.ok(rl.take('k').retryAfter <= 60);
    now += 30 * 24 * 3600_000 + 2000;
    assert.equal(rl.take('k').retryAfter, 0);
  });

  it('answers 413 for bodies over the limit and stores nothing', async () => {
    const s = await startTestServer({ config: { bodyLimitBytes: 2048, webhookAllowPrivate: true } });
    try {
      const big = 'x'.repeat(4096);
      assertError(await s.req('POST', '/v1/memories', { user_id: 'u', content: big }), 413, 'PAYLOAD_TOO_LARGE');
      assertError(await s.req('POST', '/v1/memories/search', { query: big }), 413, 'PAYLOAD_TOO_LARGE');
      assertError(await s.req('POST', '/v1/webhooks', { url: `http://127.0.0.1/${big}`, events: ['*'] }), 413, 'PAYLOAD_TOO_LARGE');
      assertError(await s.req('POST', '/v1/telemetry', { events: [], pad: big }), 413, 'PAYLOAD_TOO_LARGE');
      assert.equal(ok(await s.req('GET', '/v1/memories')).results.length, 0);
      assert.equal(ok(await s.req('GET', '/v1/events')).results.length, 0);
    } finally {
      await s.close();
    }
  });

  it('bounds limit on every list route and pages with a cursor', async () => {
    const s = await startTestServer({ config: { pageSizeMax: 10, webhookAllowPrivate: true } });
    try {
      const t = await buildTeam(s);
      const hook = ok(await s.req('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['*'] }), 201);
      const org = `/v1/orgs/${t.orgId}`;
      const lists = ['/v1/memories', '/v1/events', '/v1/entities', '/v1/webhooks', `/v1/webhooks/${hook.webhook_id}/deliveries`, '/v1/orgs', `${org}/projects`, `${org}/members`, `${org}/projects/${t.projectA}/keys`];
      for (const p of lists) {
        assert.equal((await s.req('GET', `${p}?limit=10`)).status, 200, p);
        assertError(await s.req('GET', `${p}?limit=11`), 400, 'INVALID_REQUEST');
        assertError(await s.req('GET', `${p}?limit=0`), 400, 'INVALID_REQUEST');
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = ok(await s.req('GET', `${org}/members?limit=2${cursor ? `&cursor=${cursor}` : ''}`));
        assert.ok(page.results.length <= 2);
        seen.push(...page.results.map((m: any) => m.member_id));
        cursor = page.next_cursor;
      } while (cursor);
      assert.equal(seen.length, 6, 'owner and the five members of the team, each once');
      assert.equal(new Set(seen).size, 6);
      assertError(await s.req('GET', `${org}/members?cursor=bogus`), 400, 'INVALID_REQUEST');
    } finally {
      await s.close();
    }
  });
});
