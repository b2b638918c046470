/**
 * `service forget` cannot surprise: a query forgets only confident matches (the relevance floor of
 * engine/search/forget-floor.ts), the preview shows scores and ids, `--yes` with no confident match
 * forgets nothing, and `service undo` / `forget --undo` bring the last forget back from history.
 * The store holds 1,000 real conversation lines (LoCoMo, read from ../shared/bench).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { sharedDir } from '../helpers/tmp.js';

const REPO = 'github.com/acme/shop';
const TARGET = 'We use PostgreSQL for the session store, with one connection pool per worker.';

function locomoLines(n: number): string[] {
  const data = JSON.parse(fs.readFileSync(sharedDir('bench', 'locomo10.json'), 'utf8')) as { conversation: Record<string, unknown> }[];
  const out = new Set<string>();
  for (const sample of data) {
    for (const [k, v] of Object.entries(sample.conversation)) {
      if (!/^session_\d+$/.test(k) || !Array.isArray(v)) continue;
      for (const turn of v as { speaker: string; text: string }[]) if (turn.text.length > 30) out.add(`${turn.speaker}: ${turn.text}`);
    }
  }
  return [...out].slice(0, n);
}

describe('service forget', () => {
  let d: TestDaemon;
  let cwd: string;
  let targetId: string;

  const total = async (): Promise<number> => ((await d.client.status<{ memories: { total: number } }>({ cwd })).memories.total);

  before(async () => {
    d = await startTestDaemon();
    cwd = makeRepo();
    const lines = [...locomoLines(999), TARGET];
    for (let i = 0; i < lines.length; i += 50) {
      await Promise.all(lines.slice(i, i + 50).map((content) => d.client.request('POST', '/v1/memories', { content, infer: false, repo: REPO, user_id: 'tester' })));
    }
    const hit = await d.client.localSearch({ query: 'PostgreSQL session store', cwd, scope: 'repo', top_k: 1 });
    targetId = hit.results[0]!.memory_id;
    assert.equal(await total(), 1000);
  });
  after(async () => {
    await d?.stop();
  });

  for (const query of ['zzzz nothing matches', 'kubernetes helm chart rollout', 'what did Caroline think about the quarterly tax filing deadline']) {
    it(`forgets nothing for an unrelated query (${query}) in a store of 1,000`, async () => {
      const r = await cli(['forget', '--query', query, '--yes', '--json'], d.env, cwd);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { matches: unknown[]; weaker: { score: number }[]; forgotten: string[] };
      assert.deepEqual(out.forgotten, []);
      assert.deepEqual(out.matches, []);
      assert.equal(await total(), 1000);
      const text = await cli(['forget', '--query', query, '--yes'], d.env, cwd);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /No memory matches .* confidently; nothing was forgotten\./);
      assert.equal(await total(), 1000);
    });
  }

  it('previews scores and ids, forgets the confident match, and undo restores it from history', async () => {
    const r = await cli(['forget', '--query', 'PostgreSQL session store', '--yes'], d.env, cwd);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^1 memory in scope "repo" matches "PostgreSQL session store" \(score, id\):$/m);
    assert.match(r.stdout, new RegExp(`^ {2}\\d\\.\\d\\d {2}${targetId} {2}\\[\\w+\\] We use PostgreSQL`, 'm'));
    assert.match(r.stdout, /^forgot 1 memory \(undo: service undo\)$/m);
    assert.equal(await total(), 999);

    const u = await cli(['undo', '--json'], d.env, cwd);
    assert.equal(u.code, 0, u.stderr);
    assert.deepEqual((JSON.parse(u.stdout) as { restored: string[] }).restored, [targetId]);
    assert.equal(await total(), 1000);
    const again = await d.client.localSearch({ query: 'PostgreSQL session store', cwd, scope: 'repo', top_k: 1 });
    assert.equal(again.results[0]?.memory_id, targetId);
    const h = await d.client.history(targetId);
    assert.deepEqual(
      h.versions.map((v) => v.event),
      ['ADD', 'DELETE', 'UPDATE'],
    );
    assert.equal(h.versions[2]!.content, TARGET);

    const none = await cli(['undo', '--json'], d.env, cwd);
    assert.equal(none.code, 5, 'nothing left to undo is not found');
    assert.equal((JSON.parse(none.stdout) as { error: { code: string } }).error.code, 'NOT_FOUND');
  });

  it('forgets by id and restores one memory with forget --undo <id>; unknown ids exit 5', async () => {
    const f = await cli(['forget', targetId], d.env, cwd);
    assert.equal(f.code, 0, f.stderr);
    assert.equal(await total(), 999);
    const u = await cli(['forget', '--undo', targetId], d.env, cwd);
    assert.equal(u.code, 0, u.stderr);
    assert.match(u.stdout, /restored 1 memory/);
    assert.equal(await total(), 1000);
    const twice = await cli(['forget', '--undo', targetId, '--json'], d.env, cwd);
    assert.notEqual(twice.code, 0, 'a memory that is not forgotten cannot be restored');
    assert.ok((JSON.parse(twice.stdout) as { error: { message: string } }).error.message.includes('not forgotten'));

    const missing = await cli(['forget', '01234567-89ab-7def-8123-456789abcdef'], d.env, cwd);
    assert.equal(missing.code, 5, missing.stderr);
    const bad = await cli(['forget', 'not-an-id'], d.env, cwd);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /not a memory id/);
  });

  it('refuses to undo a purge, which erased every version', async () => {
    const m = await d.client.remember({ text: 'The staging cluster runs in eu-west-3 behind a bastion host.', cwd });
    const id = m.results[0]!.memory_id;
    const f = await cli(['forget', id, '--purge'], d.env, cwd);
    assert.equal(f.code, 0, f.stderr);
    assert.match(f.stdout, /cannot be undone/);
    const u = await cli(['undo'], d.env, cwd);
    assert.equal(u.code, 1);
    assert.match(u.stderr, /cannot be undone/);
    assert.equal(await total(), 1000);
  });

  it('asks for --yes when there is no terminal, and forgets nothing', async () => {
    const r = await cli(['forget', '--query', 'PostgreSQL session store'], d.env, cwd);
    assert.equal(r.code, 2);
    assert.match(r.stdout, /PostgreSQL/);
    assert.match(r.stderr, /confirm with --yes/);
    assert.equal(await total(), 1000);
  });
});
