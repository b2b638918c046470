/**
 * The context block: items chosen by score within the budget, grouped by section; two blocks
 * joined into one (a session's opening block and its first prompt's recall).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assembleContext, CONTEXT_CLOSE, CONTEXT_OPEN, joinContext } from '../../engine/index.js';

const item = (content: string, score: number, category = 'decision') => ({ content, category, score });

describe('context assembly', () => {
  it('keeps the best items within the character budget, in their sections', () => {
    const out = assembleContext([{ title: 'Project', items: [item('a'.repeat(300), 0.9), item('b'.repeat(300), 0.5)] }, { title: 'Personal', items: [item('c'.repeat(300), 0.8, 'preference')] }], { maxTokens: 1500, maxChars: 900 });
    assert.equal(out.count, 2);
    assert.ok(out.text.length <= 900);
    assert.match(out.text, /## Project\n- \[decision\] a+\n## Personal\n- \[preference\] c+/);
    assert.doesNotMatch(out.text, /bbb/);
  });

  it('joins two blocks into one, sections of the same title together, nothing lost', () => {
    const opening = assembleContext([{ title: 'Project (acme/shop)', items: [item('Sessions live in PostgreSQL.', 0.95)] }, { title: 'Last session here', items: [item('Moved the fixtures to test/fixtures.', 0.9, 'context')] }], { maxTokens: 1500, maxChars: 4500 });
    const prompt = assembleContext([{ title: 'Project (acme/shop)', items: [item('Use pnpm, not npm.', 0.7, 'convention')] }, { title: 'This session', items: [item('The cart test is flaky.', 0.6, 'fact')] }], { maxTokens: 1500, maxChars: 4500 });
    const both = joinContext(opening, prompt);
    assert.equal(both.count, 4);
    assert.equal(both.text.split(CONTEXT_OPEN).length - 1, 1, 'one block');
    assert.ok(both.text.endsWith(CONTEXT_CLOSE));
    const lines = both.text.split('\n');
    assert.deepEqual(
      lines.filter((l) => l.startsWith('## ') || l.startsWith('- ')),
      ['## Project (acme/shop)', '- [decision] Sessions live in PostgreSQL.', '- [convention] Use pnpm, not npm.', '## Last session here', '- [context] Moved the fixtures to test/fixtures.', '## This session', '- [fact] The cart test is flaky.'],
    );
    assert.equal(joinContext({ text: '', count: 0 }, prompt), prompt);
    assert.equal(joinContext(opening, { text: '', count: 0 }), opening);
  });
});
