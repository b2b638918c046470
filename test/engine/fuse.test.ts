import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collapseDuplicates, type Ranked } from '../../engine/search/fuse.js';
import { contentHash } from '../../engine/index.js';
import { row } from '../helpers/rows.js';

function ranked(contents: string[], memoryOf: (i: number) => string | undefined = () => undefined): Ranked[] {
  return contents.map((content, i) => ({
    row: { ...row({ content, content_hash: contentHash(content), ...(memoryOf(i) ? { memory_id: memoryOf(i) } : {}) }), seq: i + 1 },
    score: 1 - i / contents.length,
    vectorScore: null,
    textScore: null,
  }));
}

describe('collapseDuplicates', () => {
  it('keeps the best of exact, same-memory and near-duplicate groups', () => {
    const shared = row().memory_id;
    const input = ranked(
      ['use pnpm for installs', 'Use PNPM for installs', 'node 20 is required', 'redis holds sessions', 'redis holds the sessions', 'deploys need approval'],
      (i) => (i === 5 ? shared : i === 3 ? shared : undefined),
    );
    assert.deepEqual(
      collapseDuplicates(input).map((r) => r.row.content),
      ['use pnpm for installs', 'node 20 is required', 'redis holds sessions'],
    );
  });

  it('with a limit returns the same prefix as without one', () => {
    const words = ['cache', 'redis', 'pnpm', 'vitest', 'deploy', 'helm', 'kafka', 'schema'];
    const contents = Array.from({ length: 60 }, (_, i) => `${words[i % 8]} ${words[(i * 3) % 8]} ${words[(i * 5) % 8]} note ${i % 7 === 0 ? '' : i % 11}`);
    const all = collapseDuplicates(ranked(contents));
    for (const limit of [1, 3, 5, 10, 100]) {
      assert.deepEqual(
        collapseDuplicates(ranked(contents), limit).map((r) => r.row.content),
        all.slice(0, limit).map((r) => r.row.content),
      );
    }
  });
});
