import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collapseDuplicates, NEAR_DUPLICATE_JACCARD, type Ranked } from '../../engine/search/fuse.js';
import { contentHash, termJaccard } from '../../engine/index.js';
import { row } from '../helpers/rows.js';

describe('duplicate collapsing', () => {
  /** The rule as written: pairwise term Jaccard against every kept result. */
  function reference(ranked: readonly Ranked[]): Ranked[] {
    const kept: Ranked[] = [];
    for (const r of ranked) {
      if (kept.some((k) => k.row.memory_id === r.row.memory_id || k.row.content_hash === r.row.content_hash)) continue;
      if (kept.some((k) => termJaccard(k.row.content, r.row.content) >= NEAR_DUPLICATE_JACCARD)) continue;
      kept.push(r);
    }
    return kept;
  }

  it('keeps exactly what pairwise term Jaccard keeps', () => {
    const words = ['cache', 'redis', 'pnpm', 'vitest', 'deploy', 'helm', 'kafka', 'schema', 'queue', 'billing', 'the', 'of'];
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const contents = Array.from({ length: 300 }, () => Array.from({ length: 1 + rand(12) }, () => words[rand(words.length)]!).join(' '));
    const shared = row().memory_id;
    const ranked: Ranked[] = contents.map((content, i) => ({
      row: { ...row({ content, content_hash: contentHash(content), ...(i % 37 === 0 ? { memory_id: shared } : {}) }), seq: i + 1 },
      score: 1 - i / contents.length,
      vectorScore: null,
      textScore: null,
    }));
    const want = reference(ranked).map((r) => r.row.version_id);
    assert.ok(want.length > 5 && want.length < ranked.length, 'the sample has duplicates of every kind and distinct results');
    assert.deepEqual(collapseDuplicates(ranked).map((r) => r.row.version_id), want);
  });
});
