/**
 * The README's "Setting up a team" walkthrough, run exactly: `service serve` as a real child
 * process, the printed key parsed from its output, then the README's requests in the README's
 * order (the test reads them from the README and fails when the two drift apart).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { call, type Reply } from '../helpers/server.js';
import { repoRoot, sharedDir, tempDir } from '../helpers/tmp.js';

/** Method and path template of every curl line in the README section, in order. */
function readmeRequests(): string[] {
  const readme = fs.readFileSync(repoRoot('README.md'), 'utf8');
  const start = readme.indexOf('## Setting up a team');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  return section
    .split('\n')
    .filter((l) => l.startsWith('curl '))
    .map((l) => `${/-X (\w+)/.exec(l)?.[1] ?? 'GET'} ${/\$BASE(\/[^\s"']*)/.exec(l)![1]}`);
}

it('sets up a team from nothing exactly as the README says', async () => {
  const home = tempDir('walkthrough-');
  const data = path.join(home, 'team-data');
  const child = spawn(process.execPath, [repoRoot('dist', 'cli', 'main.js'), 'serve', '--port', '0', '--data', data], {
    env: { ...process.env, SERVICE_HOME: home, SERVICE_MODEL_DIR: sharedDir('models', 'random-bert-tiny'), SERVICE_OFFLINE: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        const u = /listening on (http:\/\/\S+)/.exec(out);
        const k = /^\s+(msk_\S+)\s*$/m.exec(out);
        if (u && k) resolve({ url: u[1]!, key: k[1]! });
      });
      void exited.then((code) => reject(new Error(`serve exited early (${code}): ${out}`)));
    });

    const vars: Record<string, string> = { ADMIN: key };
    const done: string[] = [];
    const curl = async (method: string, template: string, as: string, body?: unknown): Promise<Reply> => {
      done.push(`${method} ${template}`);
      const p = template.replace(/\$([A-Z_]+)/g, (_, v: string) => vars[v] ?? `<unset ${v}>`);
      return call(url, vars[as]!, method, p, body);
    };

    // 2. The operator creates the team's org.
    const team = await curl('POST', '/v1/orgs', 'ADMIN', { name: 'acme', owner: { name: 'Olivia', email: 'olivia@acme.dev' }, project: { name: 'web' } });
    assert.equal(team.status, 201, team.text);
    Object.assign(vars, { OWNER: team.json.key.key, ORG: team.json.org.org_id, WEB: team.json.project.project_id });
    assert.deepEqual(team.json.key.permissions, ['read', 'write', 'admin']);
    // 3. Members.
    const bob = await curl('POST', '/v1/orgs/$ORG/members', 'OWNER', { name: 'Bob', role: 'member' });
    const rita = await curl('POST', '/v1/orgs/$ORG/members', 'OWNER', { name: 'Rita', role: 'reader' });
    assert.equal(bob.status, 201);
    assert.equal(rita.status, 201);
    Object.assign(vars, { BOB_ID: bob.json.member_id, RITA_ID: rita.json.member_id });
    // 4. Keys.
    const bobKey = await curl('POST', '/v1/orgs/$ORG/projects/$WEB/keys', 'OWNER', { member_id: vars.BOB_ID, name: 'bob laptop' });
    const ritaKey = await curl('POST', '/v1/orgs/$ORG/projects/$WEB/keys', 'OWNER', { member_id: vars.RITA_ID, name: 'rita laptop' });
    assert.deepEqual(bobKey.json.permissions, ['read', 'write']);
    assert.deepEqual(ritaKey.json.permissions, ['read']);
    Object.assign(vars, { BOB: bobKey.json.key, BOB_KEY_ID: bobKey.json.key_id, RITA: ritaKey.json.key });
    // 5. Verify.
    const v = await curl('GET', '/api/v1/verify', 'BOB');
    assert.deepEqual([v.status, v.json.org_id, v.json.project_id, v.json.scopes], [200, vars.ORG, vars.WEB, ['read', 'write']]);
    // 6. Share, find, and a refused write.
    assert.equal((await curl('POST', '/v1/memories', 'BOB', { user_id: 'bob', content: 'We deploy web with GitHub Actions to Fly.io' })).status, 201);
    const found = await curl('POST', '/v1/memories/search', 'RITA', { query: 'how do we deploy web?' });
    assert.equal(found.json.results[0].content, 'We deploy web with GitHub Actions to Fly.io');
    const refused = await curl('POST', '/v1/memories', 'RITA', { user_id: 'rita', content: 'refused: 403' });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.error.code, 'FORBIDDEN');
    // 7. List keys, revoke Bob's, and Bob is refused at once.
    const listed = await curl('GET', '/v1/orgs/$ORG/projects/$WEB/keys', 'OWNER');
    assert.equal(listed.json.results.length, 3);
    assert.ok(listed.json.results.every((k: any) => k.prefix && !('hash' in k) && !('key' in k)));
    assert.equal((await curl('DELETE', '/v1/orgs/$ORG/projects/$WEB/keys/$BOB_KEY_ID', 'OWNER')).status, 200);
    const after = await curl('GET', '/api/v1/verify', 'BOB');
    assert.equal(after.status, 401);
    assert.equal(after.json.error.code, 'UNAUTHORIZED');

    assert.deepEqual(done, readmeRequests(), 'the README walkthrough and this test make the same requests');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, 'serve shuts down cleanly on SIGTERM');
});
