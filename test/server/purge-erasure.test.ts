/**
 * A purge through the real server erases the memory everywhere under the data dir: the store, the
 * event feed (add/update/delete and infer events), finished export files (rewritten without it,
 * and the job says so), infer job records. Each purge route: one id, bulk by filter, entity. A
 * purge a crash interrupted is completed, export files included, at the next start.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { eventually } from '../helpers/errors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { filesUnder } from '../helpers/tmp.js';

const marker = (name: string): string => `${name}${randomBytes(6).toString('hex').toUpperCase()}`;

async function exportDone(s: TestServer): Promise<string> {
  const job = await s.req('POST', '/v1/exports', {});
  assert.equal(job.status, 202, job.text);
  await eventually(async () => (await s.req('GET', `/v1/exports/${job.json.export_id}`)).json.status === 'SUCCEEDED', 10_000, 'export');
  return job.json.export_id;
}

/** Files under the data dir whose bytes contain `text`, relative to it. */
function holding(dir: string, text: string): string[] {
  return filesUnder(dir)
    .filter((f) => fs.readFileSync(f).includes(text))
    .map((f) => path.relative(dir, f));
}

async function allEventsText(s: TestServer): Promise<string> {
  let after = 0;
  let out = '';
  for (;;) {
    const r = await s.req('GET', `/v1/events?after=${after}&limit=100`);
    assert.equal(r.status, 200, r.text);
    out += JSON.stringify(r.json.results);
    after = r.json.next_after;
    if (!r.json.has_more) return out;
  }
}

describe('purge erasure (server)', () => {
  it('leaves no copy of purged memories in exports, jobs, events or anywhere under the data dir, by every purge route', async () => {
    const s = await startTestServer();
    try {
      const one = marker('PURGEONE');
      const bulk = marker('PURGEBULK');
      const entity = marker('PURGEENTITY');
      const keep = marker('KEEPME');
      const m1 = await s.req('POST', '/v1/memories', { user_id: 'u', content: `The staging database password rotation uses ${one} as its ticket` });
      assert.equal(m1.status, 201, m1.text);
      await s.req('PATCH', `/v1/memories/${m1.json.memory_id}`, { content: `The staging database rotation ticket is ${one}` });
      const kept = await s.req('POST', '/v1/memories', { user_id: 'u', content: `Releases are cut on Tuesdays, see ${keep}` });
      assert.equal(kept.status, 201, kept.text);
      const ent = await s.req('POST', '/v1/memories', { user_id: 'u', agent_id: 'agent-purged', content: `The agent prefers ${entity} for deploy notes` });
      assert.equal(ent.status, 201, ent.text);
      // An infer job that makes a memory holding the bulk marker: its results and events carry it.
      const job = await s.req('POST', '/v1/memories', { user_id: 'infer-user', infer: true, async: true, messages: [{ role: 'user', content: `We decided to always tag production releases with ${bulk} from now on.` }] });
      assert.equal(job.status, 202, job.text);
      await eventually(async () => (await s.req('GET', `/v1/jobs/${job.json.job_id}`)).json.status === 'SUCCEEDED', 10_000, 'infer job');
      const done = await s.req('GET', `/v1/jobs/${job.json.job_id}`);
      assert.ok(JSON.stringify(done.json.results).includes(bulk), `the infer job made a memory with the marker: ${done.text}`);
      const exportId = await exportDone(s);
      const before = await s.req('GET', `/v1/exports/${exportId}`);
      const download = await s.req('GET', `/v1/exports/${exportId}/download`);
      for (const m of [one, bulk, entity, keep]) assert.ok(download.text.includes(m), `the export holds ${m} before the purge`);
      for (const m of [one, bulk, entity]) assert.ok(holding(s.dataDir, m).length > 0, `${m} is on disk before the purge`);

      assert.equal((await s.req('DELETE', `/v1/memories/${m1.json.memory_id}?purge=true`)).status, 200);
      const b = await s.req('DELETE', '/v1/memories?user_id=infer-user&purge=true');
      assert.equal(b.status, 200, b.text);
      assert.ok(b.json.deleted >= 1);
      const e = await s.req('DELETE', '/v1/entities/agent/agent-purged?purge=true');
      assert.equal(e.status, 200, e.text);

      // The export is rewritten without them, and says so; the rest of it is intact.
      const after = await s.req('GET', `/v1/exports/${exportId}`);
      assert.equal(after.json.status, 'SUCCEEDED');
      assert.equal(after.json.erased_versions, before.json.count - after.json.count);
      assert.ok(after.json.erased_versions >= 4, after.text);
      assert.ok(typeof after.json.erased_at === 'string');
      const again = await s.req('GET', `/v1/exports/${exportId}/download`);
      assert.equal(Buffer.byteLength(again.text), after.json.bytes);
      assert.ok(again.text.includes(keep));
      for (const m of [one, bulk, entity]) assert.ok(!again.text.includes(m), `the export no longer holds ${m}`);
      // The infer job shows the memory as purged, never its text; so do the events.
      const jobAfter = await s.req('GET', `/v1/jobs/${job.json.job_id}`);
      assert.ok(!jobAfter.text.includes(bulk), jobAfter.text);
      assert.ok(jobAfter.json.results.some((r: { purged?: boolean }) => r.purged === true));
      const feed = await allEventsText(s);
      for (const m of [one, bulk, entity]) assert.ok(!feed.includes(m), `no event carries ${m}`);
      assert.ok(feed.includes('"purged":true'));

      // A retry with the Idempotency-Key of a purged memory's add is not answered from memory.
      const idem = marker('IDEMPOTENT');
      const body = { user_id: 'u', content: `The deploy freeze note is ${idem}` };
      const first = await s.req('POST', '/v1/memories', body, { 'Idempotency-Key': 'purge-idem-1' });
      assert.equal(first.status, 201, first.text);
      assert.equal((await s.req('POST', '/v1/memories', body, { 'Idempotency-Key': 'purge-idem-1' })).headers.get('idempotent-replayed'), 'true');
      assert.equal((await s.req('DELETE', `/v1/memories/${first.json.memory_id}?purge=true`)).status, 200);
      const retry = await s.req('POST', '/v1/memories', body, { 'Idempotency-Key': 'purge-idem-1' });
      assert.equal(retry.headers.get('idempotent-replayed'), null);
      assert.notEqual(retry.json.memory_id, first.json.memory_id);

      await s.close();
      for (const m of [one, bulk, entity]) assert.deepEqual(holding(s.dataDir, m), [], `no file under the data dir holds ${m}`);
      assert.ok(holding(s.dataDir, keep).length > 0, 'the grep finds what was not purged');
    } finally {
      await s.close().catch(() => {});
    }
  });

  it('erases a memory from finished exports when it completes a purge a crash interrupted', async () => {
    let s = await startTestServer();
    const secret = marker('HALFPURGED');
    const m = await s.req('POST', '/v1/memories', { user_id: 'u', content: `The VPN shared key is kept under ${secret}` });
    const pid = (await s.req('GET', '/api/v1/verify')).json.project_id as string;
    const exportId = await exportDone(s);
    await s.close();
    // The crash: the intent is on disk, nothing was erased yet.
    fs.writeFileSync(path.join(s.dataDir, 'projects', pid, 'events', 'purge-intent.json'), JSON.stringify({ memory_ids: [m.json.memory_id] }));
    s = await startTestServer({ dataDir: s.dataDir, key: s.key });
    try {
      assert.equal((await s.req('GET', `/v1/memories/${m.json.memory_id}`)).status, 404);
      const job = await s.req('GET', `/v1/exports/${exportId}`);
      assert.equal(job.json.erased_versions, 1, job.text);
      assert.ok(!fs.existsSync(path.join(s.dataDir, 'projects', pid, 'events', 'purge-intent.json')));
      await s.close();
      assert.deepEqual(holding(s.dataDir, secret), []);
    } finally {
      await s.close().catch(() => {});
    }
  });
});
