import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backgroundSimilarity, calibrated, fuse, lexicalCoverage, VECTOR_MARGIN, vectorEvidence, vectorWeightFor } from '../../engine/search/fuse.js';
import type { StoreHit, VersionRow } from '../../engine/index.js';
import { row } from '../helpers/rows.js';

function hit(content: string, vectorScore: number | null, textScore: number | null): StoreHit {
  const r: VersionRow = { ...row({ content }), seq: 1 };
  return { row: r, vectorScore, textScore };
}

/** Unrelated candidates whose cosines sit around 0.2 (what most of a vector channel returns). */
function background(n: number, around = 0.2): StoreHit[] {
  return Array.from({ length: n }, (_, i) => hit(`unrelated note number ${i} about lunch`, around - 0.01 + (i % 3) * 0.01, null));
}

describe('hybrid fusion', () => {
  it('lets a vector channel that cannot tell memories apart reorder nothing full text found', () => {
    const query = 'which queue do the billing jobs use';
    // Text hits from best to worst; their cosines are noise near the background, and ordered
    // against the text order (the worst case). Fixed equal weights on raw cosines reorder these.
    const texts = Array.from({ length: 10 }, (_, i) => hit(`billing note ${i} mentions jobs`, 0.2 + 0.012 * i, 10 - 0.1 * i));
    const ranked = fuse([...texts, ...background(20)], { vectorActive: true, textActive: true, query });
    const order = ranked.filter((r) => r.textScore !== null).map((r) => r.row.content);
    assert.deepEqual(order, texts.map((h) => h.row.content));
  });

  it('still raises a memory that says what the query asks in other words above weaker lexical matches', () => {
    const query = 'how do we ship to production';
    const strongLexical = hit('production database backups run nightly', 0.22, 4);
    const weakLexical = hit('the production logs rotate', 0.21, 1);
    const meaning = hit('deploys go out through GitHub Actions on every merge', 0.85, null);
    const ranked = fuse([strongLexical, weakLexical, meaning, ...background(20)], { vectorActive: true, textActive: true, query });
    const pos = (h: StoreHit): number => ranked.findIndex((r) => r.row.version_id === h.row.version_id);
    assert.ok(pos(meaning) < pos(weakLexical), `semantic match at ${pos(meaning)}, weak lexical match at ${pos(weakLexical)}`);
    assert.equal(pos(strongLexical), 0);
  });

  it('breaks no ties among full-text matches with vector scores that stay within the margin', () => {
    const query = 'what did Caroline paint';
    // Two text hits tied on BM25; the second is a little closer by vector, but not clearly.
    const first = hit('Caroline said she would paint again soon', 0.3, 5);
    const second = hit('Caroline talked about the paint she bought', 0.34, 5);
    const ranked = fuse([first, second, ...background(20)], { vectorActive: true, textActive: true, query });
    assert.equal(ranked[0]!.score, ranked[1]!.score, 'still tied: the vector channel added nothing');
    assert.equal(vectorEvidence(VECTOR_MARGIN, true), 0);
    assert.equal(vectorEvidence(VECTOR_MARGIN, false), VECTOR_MARGIN, 'no margin when full text found nothing');
    assert.equal(vectorEvidence(1, true), 1);
    // A candidate only the vector channel found, within the margin, still ranks after the text matches.
    const vectorOnly = hit('Caroline has a cello at home', 0.35, null);
    const withIt = fuse([first, second, vectorOnly, ...background(20)], { vectorActive: true, textActive: true, query });
    const pos = withIt.findIndex((r) => r.row.version_id === vectorOnly.row.version_id);
    assert.equal(pos, 2, 'after both text matches');
    assert.ok(withIt[pos]!.score > 0, 'kept, not dropped');
  });

  it('ranks by meaning when full text found nothing', () => {
    const near = hit('deploys go out through GitHub Actions', 0.8, null);
    const far = hit('we like tabs', 0.35, null);
    const ranked = fuse([far, near, ...background(10)], { vectorActive: true, textActive: true, query: 'shipping releases' });
    assert.equal(ranked[0]!.row.content, near.row.content);
    assert.ok(ranked[0]!.score > ranked[1]!.score);
  });

  it('keeps every score in 0..1 and gives one channel its own score alone', () => {
    const hits = [hit('a b c', 0.9, 3), hit('a', -0.2, 1), hit('c d', 1.2, null), ...background(9)];
    for (const opts of [
      { vectorActive: true, textActive: true, query: 'a b' },
      { vectorActive: true, textActive: false },
      { vectorActive: false, textActive: true },
    ]) {
      for (const r of fuse(hits, opts)) assert.ok(r.score >= 0 && r.score <= 1, `${r.score} with ${JSON.stringify(opts)}`);
    }
    const vectorOnly = fuse([hit('x', 0.7, null), hit('y', 0.3, null)], { vectorActive: true, textActive: false });
    assert.deepEqual(vectorOnly.map((r) => r.score), [0.7, 0.3]);
    const textOnly = fuse([hit('x', null, 2), hit('y', null, 4)], { vectorActive: false, textActive: true });
    assert.deepEqual(textOnly.map((r) => r.score), [1, 0.5]);
  });

  it('measures how much of the query the best full-text hit holds', () => {
    const hits = [hit('Redis holds the billing queues', null, 5), hit('billing jobs and queues everywhere', null, 2)];
    // Query terms: billing, job, queue, use; the best hit (score 5) holds billing and queue.
    assert.equal(lexicalCoverage('which queue do the billing jobs use', hits), 2 / 4);
    assert.equal(lexicalCoverage('billing queues', hits), 1);
    assert.equal(lexicalCoverage('anything', [hit('x', 0.9, null)]), 0);
    assert.equal(lexicalCoverage('the of and', hits), 0);
  });

  it('weights the vector channel by what full text left unmatched', () => {
    const hits = [hit('billing queues', null, 1)];
    assert.equal(vectorWeightFor(hits, 0.5, 'billing queues'), 0.05);
    assert.equal(vectorWeightFor(hits, 0.5, 'payroll exports'), 0.5);
    assert.equal(vectorWeightFor(hits, 0.5, undefined), 0.5);
  });

  it('takes the median cosine of enough candidates as the background, and rescales against it', () => {
    assert.equal(backgroundSimilarity(background(3)), 0);
    const hits = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].map((c) => hit('x', c, null));
    assert.equal(backgroundSimilarity([...hits, hit('y', null, 3)]), 0.5);
    assert.equal(calibrated(0.5, 0.5), 0);
    assert.equal(calibrated(0.75, 0.5), 0.5);
    assert.equal(calibrated(1, 0.5), 1);
    assert.equal(calibrated(0.2, 0.5), 0);
  });
});
