/**
 * Scopes that add up: a project memory with no repository, written through the server's REST API
 * by a teammate, syncs to a member's daemon and is found in `repo` scope of every repository there
 * (`service search`, `service list`, the UserPromptSubmit recall hook); `service status` counts
 * add up to the total.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, runHook, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/errors.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../helpers/team.js';

let s: TestServer;
let d: TestDaemon;
let shop: string;
let billing: string;
let restId = '';
const keys = { alice: '', bob: '' };

before(async () => {
  s = await startTestServer();
  const v = ok(await s.req('GET', '/api/v1/verify'));
  const member = async (name: string): Promise<string> => ok(await s.req('POST', `/v1/orgs/${v.org_id}/members`, { name, role: 'member' }), 201).member_id;
  const key = async (m: string): Promise<string> => ok(await s.req('POST', `/v1/orgs/${v.org_id}/projects/${v.project_id}/keys`, { member_id: m }), 201).key;
  keys.alice = await key(await member('Alice'));
  keys.bob = await key(await member('Bob'));
  shop = makeRepo('git@github.com:acme/shop.git');
  billing = makeRepo('git@github.com:acme/billing.git');
  d = await startTestDaemon({
    env: { SERVICE_BASE_URL: s.url, SERVICE_API_KEY: keys.alice, SERVICE_USER_ID: 'alice', SERVICE_SYNC_INTERVAL_MS: '300', SERVICE_SYNC_RETRY_BASE_MS: '100', SERVICE_SYNC_TIMEOUT_MS: '5000' },
  });
  // Alice's own memories: one in each repository, one personal.
  await d.client.remember({ text: 'Decision: the shop renders prices with Intl.NumberFormat.', cwd: shop });
  await d.client.remember({ text: 'Decision: billing runs invoices nightly at 02:00 UTC.', cwd: billing });
  await d.client.remember({ text: 'I prefer reading diffs side by side.', cwd: shop, personal: true });
  // Bob writes a project memory through REST, with no repository.
  const written = ok(await call(s.url, keys.bob, 'POST', '/v1/memories', { user_id: 'bob', infer: false, content: 'Team rule: every service logs in JSON with a request_id field.' }), 201);
  restId = written.results?.[0]?.memory_id ?? written.memory_id;
  assert.ok(restId, JSON.stringify(written));
  const stored = ok(await call(s.url, keys.bob, 'GET', `/v1/memories/${restId}`));
  assert.equal(stored.space, 'project');
  assert.equal(stored.repo, null, 'written with no repository');
  assert.equal((await cli(['sync', 'now'], d.env)).code, 0);
  await eventually(async () => (await d.client.get(restId).catch(() => null)) !== null, 20_000, 'the REST memory reaching the daemon');
});

after(async () => {
  await d?.stop();
  await s?.close();
});

describe('project memories with no repository', () => {
  it('are found by service search in repo scope of every repository', async () => {
    for (const cwd of [shop, billing]) {
      const r = await cli(['search', 'request_id JSON logs', '--scope', 'repo', '--json'], d.env, cwd);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { results: { memory_id: string; repo: string | null }[]; scope: string };
      assert.equal(out.scope, 'repo');
      assert.ok(
        out.results.some((x) => x.memory_id === restId),
        `in ${cwd}: ${r.stdout}`,
      );
    }
    // Repo scope still keeps other repositories' memories out.
    const other = JSON.parse((await cli(['search', 'invoices nightly', '--scope', 'repo', '--json'], d.env, shop)).stdout) as { results: { content: string }[] };
    assert.ok(!other.results.some((x) => x.content.includes('invoices')), 'billing’s memory is not in the shop’s repo scope');
  });

  it('are recalled by the UserPromptSubmit hook and listed by service list --scope repo', async () => {
    const hook = await runHook('UserPromptSubmit', { session_id: 'aaaaaaaa-0000-4000-8000-00000000000a', cwd: billing, hook_event_name: 'UserPromptSubmit', prompt: 'how should this service format its logs, JSON with request_id?' }, d.env, billing);
    assert.equal(hook.code, 0, hook.stderr);
    assert.match(hook.stdout, /every service logs in JSON with a request_id field/);
    const listed = JSON.parse((await cli(['list', '--scope', 'repo', '--json'], d.env, shop)).stdout) as { results: { memory_id: string; content: string }[] };
    assert.ok(listed.results.some((m) => m.memory_id === restId));
    assert.ok(!listed.results.some((m) => m.content.includes('invoices')));
  });

  it('make service status counts add up to the total', async () => {
    const j = JSON.parse((await cli(['status', '--json'], d.env, shop)).stdout) as {
      memories: { total: number; by_scope: Record<string, number | null>; by_place: Record<string, number> };
    };
    const m = j.memories;
    assert.equal(m.total, 4);
    assert.deepEqual(m.by_place, { this_repo: 1, project_wide: 1, other_repos: 1, personal: 1, others_personal: 0 });
    assert.equal(Object.values(m.by_place).reduce((a, b) => a + b, 0), m.total);
    assert.equal(m.by_scope.repo, m.by_place.this_repo! + m.by_place.project_wide!, 'repo scope = this repository + project-wide');
    assert.equal(m.by_scope.user, 1);
    const text = (await cli(['status'], d.env, shop)).stdout;
    assert.match(text, /^ +4 = 1 this repository \+ 1 project-wide \(no repository\) \+ 1 other repositories \+ 1 personal$/m);
    assert.match(text, /^scopes +repo 2, dir \d+, user 1, session/m);
  });
});
