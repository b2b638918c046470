/**
 * GET /api/v1/verify and revocation: 401 bodies follow the error shape, and a revoked key is
 * refused on its very next request, also when `service keys revoke` runs in another process
 * while the server is up.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { assertError } from '../helpers/errors.js';
import { startTestServer, testServerBackend } from '../helpers/server.js';
import { repoRoot, tempDir } from '../helpers/tmp.js';
import { buildTeam, ok } from '../helpers/team.js';

const run = promisify(execFile);

describe('verify and revocation', () => {
  it('describes a good key and answers 401 with the error body otherwise', async () => {
    const s = await startTestServer();
    try {
      const t = await buildTeam(s);
      const v = ok(await s.as(t.bob.key)('GET', '/api/v1/verify'));
      assert.deepEqual(
        { ...v, key_id: typeof v.key_id },
        {
          valid: true,
          key_id: 'string',
          org_id: t.orgId,
          project_id: t.projectA,
          member_id: t.bob.member,
          role: 'member',
          scopes: ['read', 'write'],
          storage: testServerBackend === 'postgres' ? { backend: 'postgres', vector_path: 'resident' } : { backend: 'embedded', vector_path: 'lancedb' },
        },
      );
      for (const auth of [undefined, 'Bearer', 'Bearer msk_nope', 'Basic dXNlcjpwdw==', `Bearer ${t.bob.key}x`]) {
        const r = await fetch(`${s.url}/api/v1/verify`, { headers: auth ? { Authorization: auth } : {} });
        const body = (await r.json()) as any;
        assertError({ status: r.status, json: body }, 401, 'UNAUTHORIZED');
        assert.match(body.error.message, /API key/);
      }
    } finally {
      await s.close();
    }
  });

  it('refuses a key at once after `service keys revoke` in another process', async () => {
    const s = await startTestServer();
    try {
      const t = await buildTeam(s);
      const bob = s.as(t.bob.key);
      assert.equal((await bob('GET', '/v1/memories?limit=1')).status, 200);
      const keyId = ok(await bob('GET', '/api/v1/verify')).key_id;
      const home = tempDir('cli-home-');
      const { stdout } = await run(process.execPath, [repoRoot('dist', 'cli', 'main.js'), 'keys', 'revoke', keyId, '--data', s.dataDir, '--json'], { env: { ...process.env, SERVICE_HOME: home, SERVICE_DATABASE_URL: s.databaseUrl } });
      assert.equal(JSON.parse(stdout).key_id, keyId);
      assertError(await bob('GET', '/v1/memories?limit=1'), 401, 'UNAUTHORIZED');
      assertError(await bob('GET', '/api/v1/verify'), 401, 'UNAUTHORIZED');
      assert.equal((await s.as(t.alice.key)('GET', '/v1/memories?limit=1')).status, 200, 'other keys still work');
      // A key created by the CLI in another process works at once too.
      const created = await run(process.execPath, [repoRoot('dist', 'cli', 'main.js'), 'keys', 'create', '--data', s.dataDir, '--project', t.projectA, '--member', t.bob.member, '--json'], { env: { ...process.env, SERVICE_HOME: home, SERVICE_DATABASE_URL: s.databaseUrl } });
      const fresh = JSON.parse(created.stdout);
      assert.deepEqual(fresh.permissions, ['read', 'write']);
      assert.equal(ok(await s.as(fresh.key)('GET', '/api/v1/verify')).key_id, fresh.key_id);
      const denied = await run(process.execPath, [repoRoot('dist', 'cli', 'main.js'), 'keys', 'create', '--data', s.dataDir, '--project', t.projectA, '--member', t.reader.member, '--permissions', 'read,write'], { env: { ...process.env, SERVICE_HOME: home, SERVICE_DATABASE_URL: s.databaseUrl } }).catch((e: any) => e);
      assert.equal(denied.code, 2);
      assert.match(denied.stderr, /reader/);
    } finally {
      await s.close();
    }
  });

  it('serves an organization made by `service orgs create` in another process at once, and lists it', async () => {
    const s = await startTestServer();
    try {
      const env = { ...process.env, SERVICE_HOME: tempDir('cli-home-'), SERVICE_DATABASE_URL: s.databaseUrl };
      const cli = (...args: string[]) => run(process.execPath, [repoRoot('dist', 'cli', 'main.js'), ...args, '--data', s.dataDir, '--json'], { env });
      const made = JSON.parse((await cli('orgs', 'create', 'globex', '--owner', 'hank', '--project', 'launch')).stdout);
      const v = ok(await s.as(made.key.key)('GET', '/api/v1/verify'));
      assert.equal(v.org_id, made.org.org_id);
      assert.equal(v.project_id, made.project.project_id);
      assert.equal(v.role, 'owner');
      assert.equal(ok(await s.as(made.key.key)('POST', '/v1/memories', { user_id: 'hank', content: 'globex launches on Monday' }), 201).content, 'globex launches on Monday');
      const listed = JSON.parse((await cli('orgs', 'list')).stdout).orgs;
      const globex = listed.find((o: { org_id: string }) => o.org_id === made.org.org_id);
      assert.ok(globex, 'listed');
      assert.deepEqual(
        globex.projects.map((p: { name: string }) => p.name),
        ['launch'],
      );
      assert.deepEqual(
        globex.members.map((m: { name: string; role: string }) => [m.name, m.role]),
        [['hank', 'owner']],
      );
    } finally {
      await s.close();
    }
  });

  it('refuses a key revoked over the API on its next request', async () => {
    const s = await startTestServer();
    try {
      const t = await buildTeam(s);
      const keyId = ok(await s.as(t.alice.key)('GET', '/api/v1/verify')).key_id;
      ok(await s.req('DELETE', `/v1/orgs/${t.orgId}/projects/${t.projectA}/keys/${keyId}`));
      assertError(await s.as(t.alice.key)('POST', '/v1/memories', { user_id: 'a', content: 'too late' }), 401, 'UNAUTHORIZED');
    } finally {
      await s.close();
    }
  });
});
