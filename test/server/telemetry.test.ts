/** Telemetry intake: strict anonymous events, aggregate counts that survive a restart, summary for admin keys. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { assertError } from '../helpers/errors.js';
import { startTestServer } from '../helpers/server.js';
import { buildTeam, ok } from '../helpers/team.js';

const event = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  event: 'recall.completed',
  plugin_version: '1.2.0',
  runtime: { node: 'v20.11.1', os: 'linux', arch: 'x64' },
  duration_ms: 12,
  install_id: randomUUID(),
  ...over,
});

describe('telemetry', () => {
  it('keeps aggregate counts per event, version and error class, across a restart', async () => {
    let s = await startTestServer();
    const install = randomUUID();
    try {
      const t = await buildTeam(s);
      const r = await s.as(t.reader.key)('POST', '/v1/telemetry', {
        events: [event({ install_id: install }), event({ install_id: install, duration_ms: 30 }), event({ event: 'capture.failed', error_class: 'TimeoutError', duration_ms: undefined, install_id: install }), event({ plugin_version: '1.1.0', runtime: { node: '18.19.0', os: 'darwin', arch: 'arm64' } })],
      });
      assert.equal(r.status, 202);
      assert.deepEqual(r.json, { accepted: 4 });
      assertError(await s.as(t.alice.key)('GET', '/v1/telemetry/summary'), 403, 'FORBIDDEN');
    } finally {
      await s.close();
    }
    s = await startTestServer({ dataDir: s.dataDir, key: s.key });
    try {
      const sum = ok(await s.req('GET', '/v1/telemetry/summary'));
      assert.equal(sum.events_total, 4);
      assert.equal(sum.installs, 2);
      const row = (e: string, v: string, err: string | null): any => sum.by_event.find((x: any) => x.event === e && x.plugin_version === v && x.error_class === err);
      assert.deepEqual(row('recall.completed', '1.2.0', null), { event: 'recall.completed', plugin_version: '1.2.0', error_class: null, count: 2, duration_ms: { count: 2, mean: 21, max: 30 } });
      assert.equal(row('capture.failed', '1.2.0', 'TimeoutError').count, 1);
      assert.equal(row('capture.failed', '1.2.0', 'TimeoutError').duration_ms, null);
      assert.equal(row('recall.completed', '1.1.0', null).count, 1);
      assert.deepEqual(sum.by_runtime.find((x: any) => x.os === 'darwin'), { os: 'darwin', arch: 'arm64', node_major: 18, count: 1 });
      assert.ok(!JSON.stringify(sum).includes('-4'), 'no install ids in the summary');
    } finally {
      await s.close();
    }
  });

  it('refuses any field beyond the schema, so nothing identifying can ride along', async () => {
    const s = await startTestServer();
    try {
      const bad: unknown[] = [
        { events: [event({ content: 'the user said…' })] },
        { events: [event({ path: '/home/me/secret' })] },
        { events: [event({ runtime: { node: 'v20.1.0', os: 'linux', arch: 'x64', hostname: 'me-laptop' } })] },
        { events: [event({ install_id: 'me@example.com' })] },
        { events: [event({ event: '/home/me/project' })] },
        { events: [event({ error_class: 'ENOENT: /home/me/file' })] },
        { events: [event({ plugin_version: 'latest' })] },
        { events: [event({ duration_ms: -1 })] },
        { events: [] },
        { events: Array.from({ length: 101 }, () => event()) },
        { events: [event()], user_id: 'alice' },
        [event()],
      ];
      for (const body of bad) assertError(await s.req('POST', '/v1/telemetry', body), 422, 'VALIDATION_FAILED');
      assert.equal(ok(await s.req('GET', '/v1/telemetry/summary')).events_total, 0, 'nothing was counted');
    } finally {
      await s.close();
    }
  });
});
