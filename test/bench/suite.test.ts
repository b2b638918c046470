import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { renderRun, withRunFirst, type RunRecord } from '../../scripts/bench/all.js';
import { withSection } from '../../scripts/bench/markdown.js';
import { SUITE } from '../../scripts/bench/suite.js';
import { repoRoot } from '../helpers/tmp.js';

describe('npm run bench', () => {
  it('runs every benchmark of the project, each from a script that exists in the tree or is marked absent', () => {
    assert.deepEqual(
      SUITE.map((b) => b.name),
      ['engine', 'server', 'daemon', 'sync', 'sessions', 'locomo'],
    );
    for (const b of SUITE) {
      const source = repoRoot(b.script.replace(/\.js$/, '.ts'));
      if (['server', 'daemon', 'sessions', 'locomo'].includes(b.name)) assert.ok(fs.existsSync(source), `${source} exists`);
      assert.ok(b.quickArgs.includes('--no-write') || b.quickArgs.length > 0, `${b.name} has a reduced run`);
    }
  });

  it('puts the run section first and leaves every benchmark section as it was', () => {
    let doc = withSection(null, 'server', 'server tables');
    doc += '\n### Notes written by hand\n\nkeep me\n';
    doc = withSection(doc, 'daemon', 'daemon tables');
    const out = withRunFirst(withSection(doc, 'run', 'machine and commands'));
    const order = ['<!-- bench:run:start -->', '<!-- bench:server:start -->', 'keep me', '<!-- bench:daemon:start -->'].map((m) => out.indexOf(m));
    assert.ok(order.every((i) => i >= 0));
    assert.deepEqual([...order].sort((a, b) => a - b), order);
    assert.ok(out.startsWith('# Benchmarks'));
    assert.equal(withRunFirst(withSection(out, 'run', 'again')).match(/bench:run:start/g)?.length, 1);
  });

  it('reports absent and failed benchmarks and the budget', () => {
    const records: RunRecord[] = [
      { bench: SUITE[0]!, command: 'node dist/scripts/bench/engine.js', status: 'absent', sec: 0 },
      { bench: SUITE[1]!, command: 'node dist/scripts/bench/server.js', status: 'failed', sec: 12, code: 1 },
      { bench: SUITE[2]!, command: 'node dist/scripts/bench/daemon.js', status: 'ok', sec: 300 },
    ];
    const md = renderRun(records, { quick: false, date: 'd', machine: 'm', loadStart: '1', loadEnd: '2', totalSec: 1500 });
    assert.match(md, /not in this tree yet/);
    assert.match(md, /\*\*failed\*\* \(exit 1\)/);
    assert.match(md, /25\.0 minutes \(budget 20 minutes: \*\*over\*\*\)/);
    assert.match(md, /`node dist\/scripts\/bench\/daemon.js`/);
  });
});
