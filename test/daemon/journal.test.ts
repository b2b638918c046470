import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Journal } from '../../daemon/journal.js';
import { tempDir } from '../helpers/tmp.js';

describe('Journal', () => {
  it('replays every appended entry after reopening, in order', async () => {
    const dir = tempDir('jnl-');
    const j = new Journal({ dir });
    assert.deepEqual(j.open(), []);
    const written = await Promise.all(Array.from({ length: 100 }, (_, i) => j.append({ t: i, s: `s${i % 3}`, e: 'PostToolUse', p: { i } })));
    await j.close();
    const again = new Journal({ dir });
    const replayed = again.open();
    assert.deepEqual(
      replayed.map((e) => e.j),
      written.map((e) => e.j),
    );
    const next = await again.append({ t: 1, s: 's', e: 'Stop', p: {} });
    assert.ok(next.j > Math.max(...written.map((e) => e.j)), 'sequence numbers are never reused');
    await again.close();
  });

  it('drops a torn last line (a write cut by a crash) and keeps appending cleanly', async () => {
    const dir = tempDir('jnl-');
    const j = new Journal({ dir });
    j.open();
    await j.append({ t: 1, s: 'a', e: 'Stop', p: { ok: 1 } });
    await j.close();
    const seg = fs.readdirSync(dir).find((f) => f.endsWith('.jnl'))!;
    fs.appendFileSync(path.join(dir, seg), '{"j":2,"t":2,"s":"a","e":"St');
    const j2 = new Journal({ dir });
    const entries = j2.open();
    assert.equal(entries.length, 1);
    await j2.append({ t: 3, s: 'a', e: 'Stop', p: {} });
    await j2.close();
    const j3 = new Journal({ dir });
    assert.equal(j3.open().length, 2);
    await j3.close();
  });

  it('rolls segments and deletes only fully flushed closed ones', async () => {
    const dir = tempDir('jnl-');
    const j = new Journal({ dir, segmentBytes: 200 });
    j.open();
    for (let i = 0; i < 30; i++) await j.append({ t: i, s: i < 15 ? 'done' : 'open', e: 'PostToolUse', p: { i } });
    const before = j.stats().segments;
    assert.ok(before > 3);
    j.compact((e) => e.s === 'done');
    const after = new Journal({ dir });
    const left = after.open();
    assert.ok(left.every((e) => e.s === 'open' || left.some((o) => o.s === 'open')), 'open entries survive');
    assert.equal(left.filter((e) => e.s === 'open').length, 15);
    assert.ok(j.stats().segments < before);
    await j.close();
    await after.close();
  });
});
