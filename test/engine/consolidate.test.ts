import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentHash, decide, subjectOf, termJaccard, type Candidate, type Category, type Neighbor } from '../../engine/index.js';

let ids = 0;

/** A neighbor as callers build it: subject from `subjectOf`, hash from `contentHash`. */
function neighbor(content: string, over: Partial<Neighbor> = {}): Neighbor {
  return {
    memory_id: `m-${++ids}`,
    content,
    content_hash: contentHash(content),
    category: 'decision',
    subject: subjectOf(content),
    similarity: 0.5,
    ...over,
  };
}

function candidate(content: string, category: Category = 'decision', over: Partial<Candidate> = {}): Candidate & { content_hash: string } {
  return {
    content,
    category,
    space: 'project',
    confidence: 0.8,
    subject: subjectOf(content),
    role: 'user',
    content_hash: contentHash(content),
    ...over,
  };
}

describe('decide: findings', () => {
  it('replaces a finding of the same subject (the question answered again), and keeps findings of other subjects', () => {
    const subject = 'finding:list pane tmux | list pane';
    const old = neighbor('List panes: it returns {:error, reason} when tmux is missing.', { category: 'fact', subject, similarity: 0.4 });
    const other = neighbor('Session registry: pane ids sit in an ETS table.', { category: 'fact', subject: 'finding:registry session | session registry', similarity: 0.4 });
    assert.deepEqual(decide(candidate('List panes: it raises when tmux is missing.', 'fact', { subject }), [other, old]), { action: 'UPDATE', memory_id: old.memory_id, mode: 'supersede' });
    assert.deepEqual(decide(candidate('Session storage: sessions live in SQLite.', 'fact', { subject: 'finding:session storage | session storage' }), [other, old]), { action: 'ADD' });
  });
});

describe('decide: consolidation against existing memories', () => {
  it('adds when there are no neighbors or none is related', () => {
    assert.deepEqual(decide(candidate('We use pnpm.'), []), { action: 'ADD' });
    assert.deepEqual(decide(candidate('We use pnpm.'), [neighbor('Tests live in test/.', { similarity: 0.3 })]), { action: 'ADD' });
    // Overlapping wording below the near-duplicate thresholds is a different memory.
    const overlap = neighbor('We use pnpm for installs and caching.', { category: 'convention', similarity: 0.9 });
    const c = candidate('We use pnpm for installs in CI.', 'convention');
    assert.ok(termJaccard(c.content, overlap.content) >= 0.5 && termJaccard(c.content, overlap.content) < 0.8);
    assert.deepEqual(decide(c, [overlap]), { action: 'ADD' });
  });

  it('is a no-op for an exact duplicate (same hash, whatever the casing and spacing)', () => {
    const n = neighbor('We use pnpm for installs.');
    assert.deepEqual(decide(candidate('we use  PNPM for installs.'), [neighbor('Other.'), n]), { action: 'NOOP', memory_id: n.memory_id, reason: 'exact' });
  });

  it('is a no-op for a near duplicate by terms that adds nothing', () => {
    const n = neighbor('We use pnpm for all of the installs.');
    assert.ok(termJaccard('We use pnpm for installs.', n.content) >= 0.8);
    assert.deepEqual(decide(candidate('We use pnpm for installs.'), [n]), { action: 'NOOP', memory_id: n.memory_id, reason: 'near' });
  });

  it('is a no-op for a near duplicate by embedding similarity that adds nothing', () => {
    const n = neighbor('Tests live in the test/ folder and mirror the src/ tree.', { category: 'convention', similarity: 0.95 });
    assert.ok(termJaccard('Tests live in test/.', n.content) < 0.8, 'only the vector says near');
    assert.deepEqual(decide(candidate('Tests live in test/.', 'convention'), [n]), { action: 'NOOP', memory_id: n.memory_id, reason: 'near' });
  });

  it('refreshes a near duplicate when the candidate adds terms', () => {
    const n = neighbor('Commit messages follow Conventional Commits with a scope.', { category: 'convention' });
    const c = candidate('Commit messages follow Conventional Commits with a scope and a ticket.', 'convention');
    assert.ok(termJaccard(c.content, n.content) >= 0.8);
    assert.deepEqual(decide(c, [n]), { action: 'UPDATE', memory_id: n.memory_id, mode: 'refresh' });
    const bySimilarity = neighbor('Deploys go through GitHub Actions.', { category: 'context', similarity: 0.94 });
    assert.deepEqual(decide(candidate('Deploys go through GitHub Actions and need a green build.', 'context'), [bySimilarity]), {
      action: 'UPDATE',
      memory_id: bySimilarity.memory_id,
      mode: 'refresh',
    });
  });

  it('takes the same statement with other asides in brackets for a near duplicate (blind-12, llm-guard)', () => {
    // The assistant restated one root cause with another detail in brackets; stored twice, one copy was a false memory.
    const n = neighbor('Root Cause: OpenAPI is disabled in production mode (line 81 in app.py).', { category: 'fact', similarity: 0.5 });
    const c = candidate('Root cause: OpenAPI disabled in production mode (only enabled when is_debug=True).', 'fact');
    assert.ok(termJaccard(c.content, n.content) < 0.8, 'the whole texts are not near');
    assert.deepEqual(decide(c, [n]), { action: 'UPDATE', memory_id: n.memory_id, mode: 'refresh' });
    // Too little is left without the asides to tell: two memories.
    const short = neighbor('Use pnpm (not npm).', { category: 'convention', similarity: 0.5 });
    assert.deepEqual(decide(candidate('Use pnpm (for workspaces).', 'convention'), [short]), { action: 'ADD' });
    // Different statements stay apart whatever their asides.
    const other = neighbor('OpenAPI is enabled in debug mode (line 81 in app.py).', { category: 'fact', similarity: 0.5 });
    assert.deepEqual(decide(c, [other]), { action: 'ADD' });
  });

  it('supersedes a memory with the same subject and another value', () => {
    const cases: Array<[string, string, Category, Category]> = [
      ['We use npm.', 'We switched to pnpm.', 'convention', 'decision'],
      ['We use jest for tests.', "We're moving from jest to vitest.", 'convention', 'decision'],
      ['We indent with tabs.', 'We switched indentation to spaces.', 'convention', 'decision'],
      ['The API server runs on port 3000.', 'The API server runs on port 8080.', 'fact', 'fact'],
    ];
    for (const [old, next, oldCat, newCat] of cases) {
      const n = neighbor(old, { category: oldCat });
      assert.notEqual(n.subject, null, old);
      assert.deepEqual(decide(candidate(next, newCat), [neighbor('Unrelated note.', { category: 'note' }), n]), { action: 'UPDATE', memory_id: n.memory_id, mode: 'supersede' }, next);
    }
  });

  it('prefers supersede over refresh when only the value changed', () => {
    const n = neighbor('The API server runs on port 3000.', { category: 'fact', similarity: 0.97 });
    assert.deepEqual(decide(candidate('The API server runs on port 8080.', 'fact'), [n]), { action: 'UPDATE', memory_id: n.memory_id, mode: 'supersede' });
  });

  it('does not supersede across category families', () => {
    const team = neighbor('We use tabs for indentation.', { category: 'convention' });
    assert.deepEqual(decide(candidate('I prefer spaces for indentation.', 'preference', { space: 'personal' }), [team]), { action: 'ADD' });
    const compat = neighbor('The CLI has to support Node 18.', { category: 'constraint' });
    assert.deepEqual(decide(candidate('We upgraded the dev containers to Node 22.', 'decision'), [compat]), { action: 'ADD' });
  });

  it('does not supersede when a value is unknown or the same', () => {
    const n = neighbor('We use pnpm.', { category: 'convention' });
    const sameValue = candidate('We switched from npm to pnpm because of workspace support.', 'decision');
    assert.equal(sameValue.subject, n.subject);
    assert.deepEqual(decide(sameValue, [n]), { action: 'ADD' });
    const noSubject = candidate('Never run npm publish by hand.', 'decision', { subject: 'package manager' });
    assert.deepEqual(decide(noSubject, [n]), { action: 'ADD' });
  });

  it('needs the neighbor to carry the same subject', () => {
    const n = neighbor('We use npm.', { category: 'convention', subject: null });
    assert.deepEqual(decide(candidate('We switched to pnpm.'), [n]), { action: 'ADD' });
  });

  it('lets an exact duplicate win over everything else', () => {
    const old = neighbor('We use npm.', { category: 'convention' });
    const same = neighbor('We switched to pnpm.');
    assert.deepEqual(decide(candidate('We switched to pnpm.'), [old, same]), { action: 'NOOP', memory_id: same.memory_id, reason: 'exact' });
  });

  it('picks the most similar neighbor, and the first one on a tie', () => {
    const a = neighbor('Tests live in test/ next to fixtures.', { category: 'convention', similarity: 0.94 });
    const b = neighbor('Tests live in test/ beside the fixtures.', { category: 'convention', similarity: 0.96 });
    const c = candidate('Tests live in test/.', 'convention');
    assert.equal(decide(c, [a, b]).action, 'NOOP');
    assert.deepEqual(decide(c, [a, b]), { action: 'NOOP', memory_id: b.memory_id, reason: 'near' });
    const b2 = { ...b, similarity: 0.94 };
    assert.deepEqual(decide(c, [a, b2]), { action: 'NOOP', memory_id: a.memory_id, reason: 'near' });
  });
});
