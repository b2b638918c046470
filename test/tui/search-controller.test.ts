import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DaemonApiError } from '../../daemon/client.js';
import { SearchController } from '../../tui/search-controller.js';
import { emptyHint, nextScope, resultRow } from '../../tui/search-model.js';
import { FakeClient } from './fake-client.js';
import { hit, NOW } from './fixtures.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until the search settles (answered or failed), however slow the machine. */
async function settled(s: SearchController): Promise<void> {
  const deadline = Date.now() + 5000;
  while (s.get().loading) {
    assert.ok(Date.now() < deadline, 'the search settled');
    await wait(5);
  }
}

function setup(debounceMs = 30) {
  const client = new FakeClient();
  client.memories = [hit('m1', 'Use PostgreSQL for the session store'), hit('m2', 'Deploy with blue-green releases')];
  const s = new SearchController({ client, cwd: '/work/shop', debounceMs });
  return { client, s };
}

describe('live search', () => {
  it('asks the daemon once typing pauses, with the last query only', async () => {
    const { client, s } = setup();
    s.set('p', null);
    s.set('po', null);
    s.set('postgres', null);
    assert.equal(s.get().loading, true);
    assert.equal(client.callsOf('localSearch').length, 0, 'nothing sent while typing');
    await settled(s);
    assert.deepEqual(client.callsOf('localSearch'), [{ query: 'postgres', cwd: '/work/shop', top_k: 20, prefix: true }], 'the word being typed is a prefix');
    assert.deepEqual(
      s.get().hits.map((h) => h.memory_id),
      ['m1'],
    );
    assert.equal(s.get().loading, false);
    assert.equal(s.get().searchedScope, 'repo');
    s.dispose();
  });

  it('sends the chosen scope', async () => {
    const { client, s } = setup();
    s.set('deploy', 'user');
    await settled(s);
    assert.equal((client.callsOf('localSearch')[0] as { scope: string }).scope, 'user');
    s.dispose();
  });

  it('drops an answer that arrives after the query changed', async () => {
    const { client, s } = setup(0);
    const release: Record<string, () => void> = {};
    client.searchGate = (q) => new Promise<void>((r) => (release[q] = r));
    const asked = async (q: string) => {
      const deadline = Date.now() + 5000;
      while (!release[q]) {
        assert.ok(Date.now() < deadline, `"${q}" was asked`);
        await wait(2);
      }
    };
    s.set('postgres', null);
    await asked('postgres');
    s.set('deploy', null);
    await asked('deploy');
    release.deploy!();
    await settled(s);
    release.postgres!();
    await wait(5);
    assert.equal(s.get().query, 'deploy');
    assert.deepEqual(
      s.get().hits.map((h) => h.memory_id),
      ['m2'],
      'the late answer to "postgres" did not replace the results of "deploy"',
    );
    s.dispose();
  });

  it('clears the results at once for an empty query, without asking', async () => {
    const { client, s } = setup();
    s.set('postgres', null);
    await settled(s);
    s.set('', null);
    assert.deepEqual(s.get().hits, []);
    await wait(60);
    assert.equal(client.callsOf('localSearch').length, 1);
    s.dispose();
  });

  it('says where else to look when nothing matches, and reports failures', async () => {
    const { client, s } = setup();
    s.set('kubernetes', null);
    await settled(s);
    assert.equal(s.get().hint, 'No matches in scope repo (github.com/acme/shop). Other scopes hold user 3: press tab to switch.');
    client.down = true;
    await s.refresh();
    assert.match(s.get().error ?? '', /not running/);
    s.dispose();
  });
});

describe('a scope that does not apply here', () => {
  it('says first that tab changes the scope, then why', async () => {
    const { client, s } = setup(0);
    client.localSearch = async () => {
      throw new DaemonApiError(422, 'VALIDATION_FAILED', 'scope "repo" searches the current repository, and /tmp is not inside one', { scope: 'repo' });
    };
    s.set('postgres', null);
    await settled(s);
    assert.equal(s.get().error, 'press tab for another scope. scope "repo" searches the current repository, and /tmp is not inside one');
    s.dispose();
  });
});

describe('search rows', () => {
  it('show score, category, scope, age and content on one line each', () => {
    assert.deepEqual(resultRow(hit('m1', 'Use  PostgreSQL\nfor sessions'), NOW), { id: 'm1', score: '0.82', category: 'decision', scope: 'project · acme/shop', age: '2h ago', content: 'Use PostgreSQL for sessions' });
    assert.equal(resultRow(hit('m2', 'x', { space: 'personal', repo: null }), NOW).scope, 'personal');
  });

  it('cycle scopes and explain empty results', () => {
    assert.equal(nextScope(null), 'repo');
    assert.equal(nextScope('session'), 'repo');
    assert.equal(emptyHint('user', null, { repo: 0, user: 0 }), 'No matches in scope user.');
  });
});
