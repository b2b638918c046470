/**
 * List items without a subject of their own: the lead-in of their list becomes their subject, or
 * they are no memory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSubjectless, itemHead } from '../../engine/extract/list-items.js';
import { RuleExtractor } from '../../engine/extract/rule-extractor.js';
import { sentences } from '../../engine/extract/segment.js';
import type { ExtractTurn } from '../../engine/extract/types.js';

const user = (text: string): ExtractTurn => ({ role: 'user', text });
const extract = (turns: ExtractTurn[]) => new RuleExtractor().extract(turns);

describe('list items', () => {
  it('tells an item that opens with a modal or a third-person verb from one with a subject or an imperative', () => {
    for (const s of ['Must be opt-in, off by default', 'should stay under 200 lines', 'Defaults to five minutes', 'Lives in the repository root']) assert.ok(isSubjectless(s), s);
    for (const s of ['The cache must be opt-in', 'Never push to main directly', 'Use pnpm for every package', 'Mustard is the logo colour']) assert.ok(!isSubjectless(s), s);
  });

  it('reads the lead-in of each item: a line ending in ":", a heading, or the parent item', () => {
    const text = ['The retry queue:', '- must be bounded', '', '## Export jobs', '- should expire after a day', '- Config loader:', '  - must not read the environment', '', 'A paragraph after the list.', '- must be fast'].join('\n');
    const items = sentences(text).filter((s) => s.lead !== undefined);
    assert.deepEqual(
      items.map((s) => [s.lead, s.text]),
      [
        ['The retry queue', 'must be bounded'],
        ['Export jobs', 'should expire after a day'],
        ['Export jobs', 'Config loader:'],
        ['Config loader', 'must not read the environment'],
        [null, 'must be fast'],
      ],
    );
    assert.equal(sentences(text).find((s) => s.text === 'A paragraph after the list.')?.lead, undefined, 'prose is no list item');
  });

  it('ends an item at a line that starts a sentence at the item\'s marker or further left', () => {
    const text = ['5. Update the lockfile:', '   - Run: pnpm install', '   This regenerates the lockfile.', '- Keep the cache', '  warm between runs.', '- Pin node to', 'Node 22 on CI.'].join('\n');
    assert.deepEqual(
      sentences(text).map((s) => s.text),
      ['Update the lockfile:', 'Run: pnpm install', 'This regenerates the lockfile.', 'Keep the cache warm between runs.', 'Pin node to Node 22 on CI.'],
    );
    assert.equal(sentences(text).find((s) => s.text.startsWith('This'))?.lead, undefined, 'the line after the item is prose');
  });

  it('heads a subjectless item with a lead-in that names a thing, and keeps nothing under one that does not', () => {
    assert.equal(itemHead('Must be bounded', 'The retry queue'), 'The retry queue: ');
    assert.equal(itemHead('The queue must be bounded', 'brainstorm'), '', 'an item with its own subject stands alone');
    for (const lead of ['brainstorm', 'I want you to build a CLI that', 'Next steps', 'Ideas for later', 'What should it do?', 'Here is what we need']) assert.equal(itemHead('Must be bounded', lead), null, lead);
    assert.equal(itemHead('Must be bounded', null), null);
  });

  it('does not store a brainstorm item whose subject sits in the item before it', async () => {
    const got = await extract([user("brainstorm:\n- automatically export the weekly report when a sprint closes\n- must be controlled by a setting, off by default\n- documented in the README")]);
    assert.deepEqual(got, []);
  });

  it('stores a subjectless rule under the thing its lead-in names', async () => {
    const got = await extract([user('The export worker:\n- must never write outside the data directory\n- Never retry a failed upload more than three times')]);
    assert.deepEqual(
      got.map((c) => c.content),
      ['The export worker: must never write outside the data directory.', 'Never retry a failed upload more than three times.'],
    );
  });
});
