import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregate, aggregateByGroup, recallAt, reciprocalRank } from '../../scripts/eval/metrics.js';

describe('retrieval metrics', () => {
  it('recall@k is the share of gold turns within the first k results', () => {
    const ranked = ['x', 'a', 'y', 'b', 'z'];
    assert.equal(recallAt(ranked, ['a', 'b'], 1), 0);
    assert.equal(recallAt(ranked, ['a', 'b'], 2), 0.5);
    assert.equal(recallAt(ranked, ['a', 'b'], 3), 0.5);
    assert.equal(recallAt(ranked, ['a', 'b'], 4), 1);
    assert.equal(recallAt(ranked, ['a', 'b'], 25), 1);
  });

  it('is not hit rate: one of two gold turns found is half', () => {
    assert.equal(recallAt(['a', 'x'], ['a', 'b'], 2), 0.5);
  });

  it('is not precision: one gold turn found among four results is full recall', () => {
    assert.equal(recallAt(['a', 'x', 'y', 'z'], ['a'], 4), 1);
  });

  it('counts a turn retrieved twice once', () => {
    assert.equal(recallAt(['a', 'a', 'x'], ['a', 'b'], 3), 0.5);
    // The repeat does not push a later gold turn out of the top k either.
    assert.equal(recallAt(['a', 'a', 'b'], ['a', 'b'], 2), 1);
  });

  it('ignores repeated gold ids', () => {
    assert.equal(recallAt(['a'], ['a', 'a'], 1), 1);
  });

  it('refuses a question without gold turns instead of scoring it', () => {
    assert.throws(() => recallAt(['a'], [], 5));
  });

  it('reciprocal rank is 1/rank of the first gold turn, 0 when none is found', () => {
    assert.equal(reciprocalRank(['x', 'y', 'b', 'a'], ['a', 'b']), 1 / 3);
    assert.equal(reciprocalRank(['a'], ['a']), 1);
    assert.equal(reciprocalRank(['x', 'y'], ['a']), 0);
    assert.equal(reciprocalRank(['x', 'x', 'a'], ['a']), 1 / 2);
  });

  it('averages per question (macro), not per evidence turn', () => {
    const items = [
      { group: '1', gold: ['a', 'b'], ranked: ['a', 'x'] }, // 0.5
      { group: '4', gold: ['c'], ranked: ['c'] }, // 1
    ];
    const agg = aggregate(items, [2]);
    assert.equal(agg.n, 2);
    assert.equal(agg.recall[2], 0.75); // a micro average over evidence would be 2/3
    assert.equal(agg.mrr, 1);
  });

  it('reports overall and per group', () => {
    const items = [
      { group: 'multi-hop', gold: ['a'], ranked: ['x', 'a'] },
      { group: 'temporal', gold: ['b'], ranked: ['y'] },
      { group: 'multi-hop', gold: ['c'], ranked: ['c'] },
    ];
    const { overall, groups } = aggregateByGroup(items, [1, 2]);
    assert.deepEqual([...groups.keys()], ['multi-hop', 'temporal']);
    assert.deepEqual(groups.get('multi-hop'), { n: 2, recall: { 1: 0.5, 2: 1 }, mrr: 0.75 });
    assert.deepEqual(groups.get('temporal'), { n: 1, recall: { 1: 0, 2: 0 }, mrr: 0 });
    assert.equal(overall.n, 3);
    assert.equal(overall.recall[2], 2 / 3);
    assert.equal(overall.mrr, 0.5);
  });
});
