/** The small parts of sync: seq ranges, retry delays, cutting the outbox into requests, the state file. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { uuidv7, type VersionRow } from '../../engine/index.js';
import { batchesOf, splitBatch } from '../../sync/batches.js';
import { backoffDelay, SeqRanges } from '../../sync/index.js';
import { SyncState } from '../../sync/state.js';
import { row } from '../helpers/rows.js';
import { tempDir } from '../helpers/tmp.js';

describe('seq ranges', () => {
  it('merges adjacent and overlapping seqs and forgets what the cursor passed', () => {
    const r = new SeqRanges();
    for (const n of [5, 6, 7, 10, 8, 12, 11, 1]) r.add(n);
    assert.deepEqual(r.toJSON(), [
      [1, 1],
      [5, 8],
      [10, 12],
    ]);
    assert.equal(r.size, 8);
    assert.ok(r.has(6) && r.has(12) && !r.has(9) && !r.has(2));
    r.addRange(2, 9);
    assert.deepEqual(r.toJSON(), [[1, 12]]);
    r.dropThrough(4);
    assert.deepEqual(r.toJSON(), [[5, 12]]);
    assert.deepEqual(new SeqRanges(r.toJSON()).toJSON(), [[5, 12]]);
  });
});

describe('retry delays', () => {
  it('double per failure up to the cap, with jitter, and never undercut Retry-After', () => {
    const o = { baseMs: 100, maxMs: 1000 };
    assert.equal(backoffDelay(1, { ...o, random: () => 0 }), 50);
    assert.equal(backoffDelay(1, { ...o, random: () => 0.999999 }), 100);
    assert.equal(backoffDelay(3, { ...o, random: () => 0 }), 200);
    assert.equal(backoffDelay(20, { ...o, random: () => 0.999999 }), 1000);
    assert.equal(backoffDelay(1, { ...o, random: () => 0 }, 5000), 5000);
  });
});

describe('push batches', () => {
  const m = uuidv7();
  const rows: VersionRow[] = [
    { ...row({ memory_id: m }), seq: 1 },
    { ...row({ memory_id: m, version: 2, tx: 2 }), seq: 2 },
    { ...row({ memory_id: m, version: 3, tx: 2 }), seq: 3 },
    { ...row(), seq: 4 },
  ];

  it('keeps a transaction whole even past the count limit', () => {
    const b = batchesOf(rows, 1);
    assert.deepEqual(
      b.map((x) => x.lines.map((l) => l.version)),
      [[1], [2, 3], [1]],
    );
    assert.deepEqual(
      batchesOf(rows, 10).map((x) => x.lines.length),
      [4],
    );
  });

  it('splits at a transaction boundary, and not a single transaction', () => {
    const [a, b] = splitBatch(batchesOf(rows, 10)[0]!)!;
    assert.deepEqual([a.lines.length, b.lines.length], [3, 1]);
    assert.equal(splitBatch(batchesOf(rows.slice(1, 3), 10)[0]!), null);
  });
});

describe('sync state file', () => {
  it('keeps cursors, parked versions and purges across instances, and sets a damaged file aside', () => {
    const file = path.join(tempDir('sync-state-'), 'sync.json');
    const a = new SyncState(file);
    a.advancePushed(10);
    a.markServer(12);
    a.setPullAfter(40);
    a.park({ version_id: 'v1', memory_id: 'm1', error: { code: 'FORBIDDEN', message: 'no' }, at: 'now' });
    a.addPurge(['m2']);
    a.save();
    const b = new SyncState(file);
    assert.deepEqual([b.pushedSeq, b.pullAfter, b.serverSeqs.has(12), b.isParked('v1'), b.hasPurge('m2')], [10, 40, true, true, true]);
    fs.writeFileSync(file, '{"version": 1, "pushed_seq": 1');
    const c = new SyncState(file);
    assert.ok(c.damagedFile && fs.existsSync(c.damagedFile));
    assert.deepEqual([c.pushedSeq, c.pullAfter], [0, 0]);
  });
});
