import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeEmbedder, RuleExtractor, subjectOf, type Candidate, type Embedder, type ExtractTurn } from '../../engine/index.js';
import { HOLDOUT_FIXTURES, TURN_FIXTURES, type TurnFixture } from '../fixtures/extract-turns.js';

const user = (text: string): ExtractTurn => ({ role: 'user', text });
const assistant = (text: string): ExtractTurn => ({ role: 'assistant', text });

function best(candidates: readonly Candidate[]): Candidate | undefined {
  return [...candidates].sort((a, b) => b.confidence - a.confidence)[0];
}

/** Share of fixtures whose outcome matches exactly (none, or best candidate's category + space). */
async function agreement(extractor: RuleExtractor, fixtures: readonly TurnFixture[]): Promise<{ rate: number; misses: string[] }> {
  const misses: string[] = [];
  for (const f of fixtures) {
    const got = await extractor.extract([f.turn]);
    const top = best(got);
    const ok = f.expect === null ? got.length === 0 : top?.category === f.expect.category && top.space === f.expect.space;
    if (!ok) misses.push(`${f.name}: expected ${f.expect ? `${f.expect.category}/${f.expect.space}` : 'none'}, got ${top ? `${top.category}/${top.space}` : 'none'}`);
  }
  return { rate: (fixtures.length - misses.length) / fixtures.length, misses };
}

describe('RuleExtractor: fixture agreement', () => {
  it('has at least 40 fixture turns covering every category, noise and injected context', () => {
    assert.ok(TURN_FIXTURES.length >= 40, `${TURN_FIXTURES.length} fixtures`);
    const cats = new Set(TURN_FIXTURES.flatMap((f) => (f.expect ? [f.expect.category] : [])));
    assert.deepEqual([...cats].sort(), ['constraint', 'context', 'convention', 'decision', 'fact', 'note', 'preference']);
    assert.ok(TURN_FIXTURES.some((f) => f.kind === 'noise') && TURN_FIXTURES.some((f) => f.kind === 'memory-context'));
  });

  for (const [label, make] of [
    ['rules only', () => new RuleExtractor()],
    ['with a prototype embedder', () => new RuleExtractor({ embedder: new FakeEmbedder(64) })],
  ] as const) {
    it(`agrees on the exact category and space for at least 90% of the fixtures (${label})`, async (t) => {
      const { rate, misses } = await agreement(make(), TURN_FIXTURES);
      t.diagnostic(`agreement ${(rate * 100).toFixed(1)}% over ${TURN_FIXTURES.length} fixtures`);
      assert.ok(rate >= 0.9, `agreement ${(rate * 100).toFixed(1)}%; misses:\n${misses.join('\n')}`);
    });

    it(`extracts nothing from noise or injected <memory-context> blocks (${label})`, async () => {
      const extractor = make();
      for (const f of TURN_FIXTURES.filter((x) => x.kind !== undefined)) {
        assert.deepEqual(await extractor.extract([f.turn]), [], f.name);
      }
    });
  }

  it('generalizes to held-out turns it was not tuned on', async (t) => {
    const { rate, misses } = await agreement(new RuleExtractor(), HOLDOUT_FIXTURES);
    t.diagnostic(`held-out agreement ${(rate * 100).toFixed(1)}% over ${HOLDOUT_FIXTURES.length} turns`);
    assert.ok(rate >= 0.8, `held-out agreement ${(rate * 100).toFixed(1)}%; misses:\n${misses.join('\n')}`);
    for (const f of HOLDOUT_FIXTURES.filter((x) => x.kind !== undefined)) assert.deepEqual(await new RuleExtractor().extract([f.turn]), [], f.name);
  });
});

describe('RuleExtractor: behaviour', () => {
  const session = TURN_FIXTURES.map((f) => f.turn);

  it("never extracts from a parent agent's task for a subagent or a subagent's report (they stay in the episode)", async () => {
    const x = new RuleExtractor();
    const stated = 'We decided to use Postgres for sessions from now on.';
    assert.equal((await x.extract([{ role: 'user', text: stated }])).length, 1, 'the same words typed by the user are a memory');
    assert.deepEqual(await x.extract([{ role: 'user', text: stated, kind: 'task' }]), []);
    assert.deepEqual(await x.extract([{ role: 'tool', tool: 'Task', text: stated, kind: 'report' }]), []);
  });

  it("takes findings from the reply to the user's question list, never from a subagent's task and report", async () => {
    const x = new RuleExtractor();
    const ask = 'I need to understand:\n1. Where events are stored\n2. How the server pushes new events';
    const answer = '## Findings\n\n### 1. Event Storage\n\nEvents are kept in a SQLite database at `./data/observe.db`.\n\n### 2. Pushing New Events\n\nThe server broadcasts each new event over a WebSocket to subscribed clients.';
    const expected = [
      ['fact', 0.6, 'assistant', 'Event Storage: Events are kept in a SQLite database at `./data/observe.db`.'],
      ['fact', 0.6, 'assistant', 'Pushing New Events: The server broadcasts each new event over a WebSocket to subscribed clients.'],
    ];
    const shape = (cs: readonly Candidate[]) => cs.map((c) => [c.category, c.confidence, c.role, c.content]);
    assert.deepEqual(shape(await x.extract([{ role: 'user', kind: 'prompt', text: ask }, assistant('Let me look.'), assistant(answer)])), expected);
    assert.deepEqual(await x.extract([{ role: 'user', kind: 'prompt', text: 'Look into the event storage and tell me what you see.' }, assistant(answer)]), [], 'a prompt that asks no list');
    // A subagent's work is the parent's raw material: its own transcript (the task, then its answer)
    // and its report in the parent's transcript stay in the episode.
    assert.deepEqual(await x.extract([{ role: 'user', kind: 'task', text: ask }, assistant('Let me look.'), assistant(answer)]), []);
    assert.deepEqual(await x.extract([user('go'), { role: 'tool', tool: 'Agent', kind: 'report', task: ask, text: answer }]), []);
    assert.deepEqual(await x.extract([{ role: 'user', kind: 'prompt', text: ask }, { role: 'user', kind: 'task', text: 'Explore the server.' }, assistant(answer)]), [], 'a subagent answer never pairs with the prompt before its task');
  });

  it('is deterministic: same turns, same candidates, across calls and instances', async () => {
    for (const make of [() => new RuleExtractor(), () => new RuleExtractor({ embedder: new FakeEmbedder(64) })]) {
      const a = make();
      const first = await a.extract(session);
      assert.ok(first.length >= 30, `a whole session yields many candidates (${first.length})`);
      assert.deepEqual(await a.extract(session), first);
      assert.deepEqual(await make().extract(session), first);
    }
  });

  it('never re-extracts text inside <memory-context>, but keeps statements around it', async () => {
    const got = await new RuleExtractor().extract([
      user('<memory-context>\nMemory: We use npm.\nMemory: Never deploy on Fridays.\n</memory-context>\nWe decided to move the queue to SQS because Redis streams kept losing messages.'),
    ]);
    assert.equal(got.length, 1);
    assert.match(got[0]!.content, /^We decided to move the queue to SQS/);
    assert.ok(!got.some((c) => /npm|Fridays/.test(c.content)));
  });

  it('trims fillers, keeps "we", and returns one clean sentence', async () => {
    const [c] = await new RuleExtractor().extract([user('ok so I think we should use pnpm workspaces for the monorepo :)')]);
    assert.equal(c?.content, 'We should use pnpm workspaces for the monorepo.');
    const [d] = await new RuleExtractor().extract([user('We decided on Postgres, right?')]);
    assert.equal(d?.content, 'We decided on Postgres.');
  });

  it('keeps a following "because" sentence with the memory it explains', async () => {
    const [c] = await new RuleExtractor().extract([user("Let's go with pino for logging. Because winston allocates too much on the hot path.")]);
    assert.equal(c?.content, "Let's go with pino for logging. Because winston allocates too much on the hot path.");
  });

  it('drops very long fragments and code-like lines even when they carry cue words', async () => {
    const long = `We decided to ${'keep refactoring the adapter layer and '.repeat(12)}ship it.`;
    assert.ok(long.length > 400);
    assert.deepEqual(await new RuleExtractor().extract([user(long)]), []);
    assert.deepEqual(await new RuleExtractor().extract([user('const decided = mustUse(config) && never(false);')]), []);
    assert.deepEqual(await new RuleExtractor().extract([user('we must')]), []);
  });

  it('keeps the prose around a code block and never the code', async () => {
    const got = await new RuleExtractor().extract([
      user('We decided to validate env vars with zod at startup:\n```ts\n// we must never read process.env directly\nconst Env = z.object({ PORT: z.number() });\n```\nthanks'),
    ]);
    assert.deepEqual(got.map((c) => c.content), ['We decided to validate env vars with zod at startup.']);
  });

  it('takes only conclusions from the assistant, not narration', async () => {
    const x = new RuleExtractor();
    assert.deepEqual(await x.extract([assistant("I'll switch the logger to pino and then run the tests.")]), []);
    assert.deepEqual(await x.extract([assistant('We should use pino here.')]), []);
    const [c] = await x.extract([assistant("I've switched the logger from winston to pino because it is five times faster.")]);
    assert.equal(c?.category, 'decision');
    assert.equal(c?.role, 'assistant');
    const bullets = await x.extract([assistant('## Summary\n- Moved the fixtures to test/fixtures\n- Fixed a typo')]);
    assert.deepEqual(bullets.map((b) => b.content), ['Moved the fixtures to test/fixtures.']);
  });

  it('reads only shell tools, and only failures that name a requirement (a passing test run is not a rule)', async () => {
    const x = new RuleExtractor();
    assert.deepEqual(await x.extract([{ role: 'tool', tool: 'Read', ok: true, text: 'requires Node >= 20' }]), []);
    assert.deepEqual(await x.extract([{ role: 'tool', tool: 'Bash', ok: false, text: '$ npm test\n# pass 3\n# fail 1' }]), []);
    // Exit code 0 is not enough: the output must show passing tests and no failures.
    assert.deepEqual(await x.extract([{ role: 'tool', tool: 'Bash', ok: true, text: '$ npm test || true\n# pass 3\n# fail 1' }]), []);
    assert.deepEqual(await x.extract([{ role: 'tool', tool: 'Bash', ok: true, text: '$ npm test\n> echo "no tests yet"' }]), []);
    assert.deepEqual(await x.extract([{ role: 'tool', ok: true, text: '$ npx vitest run\n Test Files  3 passed (3)\n      Tests  41 passed (41)' }]), []);
    assert.deepEqual(await x.extract([{ role: 'tool', tool: 'Bash', ok: false, text: '$ go build ./...\ngo: go.mod requires go >= 1.24.0 (running go 1.23.12)' }]), [], 'the project’s own pin is its choice, which the session may change');
    const [c] = await x.extract([{ role: 'tool', tool: 'Bash', ok: false, text: 'error: this package requires Node >= 20.11' }]);
    assert.deepEqual([c?.content, c?.category, c?.role], ['Requires Node >= 20.11.', 'constraint', 'tool']);
    assert.ok(c!.confidence < 0.7, 'tool facts rank below stated decisions');
  });

  it('sends personal taste to the personal space and everything else to the project', async () => {
    const got = await new RuleExtractor().extract([user('I prefer tabs in my own scripts.'), user('We prefer tabs in this repo.'), user('We must not log tokens.')]);
    assert.deepEqual(
      got.map((c) => [c.category, c.space]),
      [
        ['preference', 'personal'],
        ['preference', 'project'],
        ['constraint', 'project'],
      ],
    );
  });

  it('merges a statement repeated within a batch into one candidate', async () => {
    const got = await new RuleExtractor().extract([user('We use tabs for indentation.'), assistant('Done.'), user('we use tabs for indentation')]);
    assert.equal(got.length, 1);
  });

  it('drops candidates below minConfidence', async () => {
    const turns = [user('Decision: we ship on Tuesdays.'), user('FYI the worker runs on Fly.io.')];
    assert.equal((await new RuleExtractor().extract(turns)).length, 2);
    const strict = await new RuleExtractor({ minConfidence: 0.85 }).extract(turns);
    assert.deepEqual(strict.map((c) => c.content), ['We ship on Tuesdays.']);
  });

  it('lets prototype similarity move a confidence by at most 0.1', async () => {
    const plain = await new RuleExtractor().extract(session);
    const blended = await new RuleExtractor({ embedder: new FakeEmbedder(64), minConfidence: 0 }).extract(session);
    const byContent = new Map(blended.map((c) => [c.content, c]));
    let moved = 0;
    for (const c of plain) {
      const b = byContent.get(c.content);
      assert.ok(b, `blended run keeps ${c.content}`);
      assert.ok(Math.abs(b.confidence - c.confidence) <= 0.1 + 1e-9, `${c.content}: ${c.confidence} → ${b.confidence}`);
      if (b.confidence !== c.confidence) moved++;
    }
    assert.ok(moved > 0, 'the embedder is actually used');
  });

  it('embeds prototypes once and falls back to rules when the embedder fails or is not ready', async () => {
    const fake = new FakeEmbedder(32);
    const x = new RuleExtractor({ embedder: fake });
    await x.extract([user('We use tabs for indentation.')]);
    assert.equal(fake.calls, 2, 'prototypes + the batch');
    await x.extract([user('We use tabs for indentation.')]);
    assert.equal(fake.calls, 3, 'prototypes are cached');

    const rulesOnly = await new RuleExtractor().extract(session);
    const failing: Embedder = Object.assign(new FakeEmbedder(32), {
      embedDocuments: async () => {
        throw new Error('MODEL_MISSING');
      },
    });
    assert.deepEqual(await new RuleExtractor({ embedder: failing }).extract(session), rulesOnly);
    let called = false;
    const loading: Embedder = Object.assign(new FakeEmbedder(32), {
      state: () => ({ status: 'loading' }) as const,
      embedDocuments: async () => {
        called = true;
        return [];
      },
    });
    assert.deepEqual(await new RuleExtractor({ embedder: loading }).extract(session), rulesOnly);
    assert.equal(called, false);
  });
});

describe('subjectOf', () => {
  const pairs: Array<[string, string, string]> = [
    ['We use npm.', 'We switched to pnpm.', 'package manager'],
    ['Tests run on jest for now.', "We're moving the tests from jest to vitest.", 'test runner'],
    ['We indent with tabs.', 'Switch indentation from tabs to spaces.', 'indentation'],
    ['The dev server runs on port 3000.', 'The dev server now runs on port 8080.', 'dev port'],
    ['The port is 3000.', 'Port 8080 is the new default.', 'port'],
    ["We'll use Postgres for sessions.", "Let's use Redis for sessions instead.", 'db for session'],
    ['The CLI has to support Node 18.', 'We now require Node >= 20.', 'node version'],
    ['We use Black for formatting.', 'We use prettier instead of dprint for formatting.', 'formatter'],
  ];
  for (const [a, b, key] of pairs) {
    it(`gives "${a}" and "${b}" the subject "${key}"`, () => {
      assert.equal(subjectOf(a), key);
      assert.equal(subjectOf(b), key);
    });
  }

  it('keeps unrelated subjects apart and returns null when there is none', () => {
    assert.notEqual(subjectOf('We use pnpm.'), subjectOf('We use vitest.'));
    assert.notEqual(subjectOf('The API runs on port 8080.'), subjectOf('Redis runs on localhost:6379.'));
    assert.equal(subjectOf('Never commit directly to main.'), null);
    assert.equal(subjectOf('From now on I will run `npm run lint` before every commit.'), null);
  });

  it('is what the extractor puts on its candidates', async () => {
    const [c] = await new RuleExtractor().extract([user("We're switching from npm to pnpm because of workspaces.")]);
    assert.equal(c?.subject, 'package manager');
  });
});
