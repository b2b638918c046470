import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fragmentPool, memoryText, pairOf, placement, query } from '../../scripts/bench/corpus.js';
import { BENCHMARKS_HEADER, table, withSection } from '../../scripts/bench/markdown.js';
import { Rng } from '../../scripts/bench/rng.js';
import { percentile, summarize } from '../../scripts/bench/stats.js';

describe('engine benchmark helpers', () => {
  it('generates the same corpus and queries for a seed, and distinct memory texts', () => {
    assert.deepEqual(fragmentPool(7, 50), fragmentPool(7, 50));
    assert.notDeepEqual(fragmentPool(7, 50), fragmentPool(8, 50));
    const pool = fragmentPool(7, 200);
    assert.equal(new Set(pool).size, 200);
    const texts = Array.from({ length: 5000 }, (_, k) => memoryText(pool, k));
    assert.equal(new Set(texts).size, texts.length);
    for (let k = 0; k < 5000; k++) {
      const [a, b] = pairOf(k, pool.length);
      assert.ok(a !== b && a >= 0 && b >= 0 && a < 200 && b < 200);
    }
    const r1 = new Rng(3);
    const r2 = new Rng(3);
    assert.deepEqual([query(r1), placement(r1)], [query(r2), placement(r2)]);
  });

  it('takes nearest-rank percentiles', () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i);
    assert.equal(percentile([...xs].sort((a, b) => a - b), 0.5), 50);
    const s = summarize(xs);
    assert.deepEqual([s.p50, s.p95, s.p99, s.max, s.n], [50, 95, 99, 100, 100]);
  });

  it('rewrites only its own marked section of BENCHMARKS.md', () => {
    const first = withSection(null, 'engine', 'one');
    assert.ok(first.startsWith(BENCHMARKS_HEADER.trim()));
    assert.match(first, /<!-- bench:engine:start -->\none\n<!-- bench:engine:end -->/);
    const other = `${first}\n<!-- bench:other:start -->\nkeep me\n<!-- bench:other:end -->\n`;
    const second = withSection(other, 'engine', 'two');
    assert.ok(second.includes('two') && !second.includes('one\n') && second.includes('keep me'));
    assert.equal(withSection(second, 'engine', 'two'), second);
  });

  it('renders markdown tables, escaping pipes', () => {
    assert.equal(table(['a', 'b'], [[1, 'x|y']]), '| a | b |\n| --- | --- |\n| 1 | x\\|y |');
  });
});
