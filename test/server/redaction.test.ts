/**
 * Every write path of the server redacts before storing: POST and PATCH /v1/memories (content and
 * metadata, `<private>` spans included), infer adds, NDJSON imports and sync pushes. The secrets
 * are generated at run time; afterwards nothing under the data dir holds them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../helpers/team.js';
import { rnd } from '../helpers/secrets.js';
import { filesUnder } from '../helpers/tmp.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.close();
});

function line(content: string, metadata: Record<string, unknown>): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    kind: 'version', version_id: crypto.randomUUID(), memory_id: crypto.randomUUID(), version: 1, tx: 1, content, user_id: 'u', agent_id: null, app_id: null, run_id: null,
    space: 'project', repo: null, dir: null, category: 'note', metadata, source: { kind: 'import' }, valid_from: now, valid_to: null, recorded_at: now, created_at: now, deleted: false, block: null,
  };
}

describe('redaction on every server write path', () => {
  it('stores no secret sent through POST, PATCH, infer, import or sync push', async () => {
    const secrets = Array.from({ length: 8 }, () => `ghp_${rnd('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 36)}`);
    const privateNote = `door code ${rnd('0123456789', 6)}`;
    const [a, b, c, d, e, f, g, h] = secrets as [string, string, string, string, string, string, string, string];
    const m = ok(await s.req('POST', '/v1/memories', { user_id: 'u', content: `CI pushes with ${a} <private>${privateNote}</private>`, metadata: { token: b, nested: { note: `key ${c}` } } }), 201);
    assert.ok(!JSON.stringify(m).includes(a) && !JSON.stringify(m).includes(privateNote));
    assert.match(m.content, /\[REDACTED:github_token\].*\[REDACTED:private\]/);
    ok(await s.req('PATCH', `/v1/memories/${m.memory_id}`, { content: `CI now pushes with ${d}`, metadata: { password: 'hunter2-staging!' } }));
    ok(await s.req('POST', '/v1/memories', { user_id: 'u', infer: true, messages: [{ role: 'user', content: `We decided to always deploy with the token ${e}.` }] }));
    ok(await s.req('POST', '/v1/imports', JSON.stringify(line(`imported with ${f}`, { k: g })), { 'Content-Type': 'application/x-ndjson' }));
    const pushed = ok(await s.req('POST', '/v1/sync/push', { versions: [line(`pushed with ${h}`, {})] }));
    assert.equal(pushed.results[0].status, 'accepted');
    await s.close();
    const leaks: string[] = [];
    for (const file of filesUnder(s.dataDir)) {
      const bytes = fs.readFileSync(file);
      for (const x of [...secrets, privateNote, 'hunter2-staging!']) if (bytes.includes(x)) leaks.push(`${x.slice(0, 12)}… in ${path.relative(s.dataDir, file)}`);
    }
    assert.deepEqual(leaks, []);
    s = await startTestServer({ dataDir: s.dataDir });
  });
});
