import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Journal, JournalWriteError, type JournalEntry } from '../../daemon/journal.js';
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

  it('scrubs flushed entries out of segments that unflushed ones keep alive, the active one included', async () => {
    const dir = tempDir('jnl-');
    const j = new Journal({ dir, segmentBytes: 300 });
    j.open();
    for (let i = 0; i < 12; i++) await j.append({ t: i, s: i % 2 === 0 ? 'done' : 'open', e: 'UserPromptSubmit', p: { prompt: `${i % 2 === 0 ? 'FLUSHEDTEXT' : 'pending'} ${i}` } });
    const segments = j.stats().segments;
    assert.ok(segments > 1);
    assert.equal(j.compact((e) => e.s === 'done'), 0, 'every segment holds an unflushed entry');
    assert.equal(j.scrub((e) => e.s === 'done'), 6);
    const text = fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('');
    assert.ok(!text.includes('FLUSHEDTEXT'), 'no flushed entry is left on disk');
    assert.equal(j.scrub((e) => e.s === 'done'), 0, 'a second scrub finds nothing');
    const next = await j.append({ t: 99, s: 'open', e: 'Stop', p: {} });
    await j.close();
    const back = new Journal({ dir }).open();
    assert.deepEqual(back.map((e) => e.j), [2, 4, 6, 8, 10, 12, next.j]);
    assert.ok(back.every((e) => e.s === 'open'));
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

describe('Journal under faults (issue 20)', () => {
  const entry = (i: number, s = 's'): Omit<JournalEntry, 'j'> => ({ t: i, s, e: 'UserPromptSubmit', p: { prompt: `prompt ${i} ${'x'.repeat(50)}` } });

  it('continues short writes until the whole group is down', async () => {
    const dir = tempDir('jnl-');
    // At most 7 bytes per call, as a nearly full disk or an interrupted write gives.
    const j = new Journal({ dir, write: (fd, buf, off, len) => fs.writeSync(fd, buf, off, Math.min(len, 7)) });
    j.open();
    const written = await Promise.all(Array.from({ length: 20 }, (_, i) => j.append(entry(i))));
    await j.close();
    const back = new Journal({ dir }).open();
    assert.deepEqual(
      back.map((e) => e.j),
      written.map((e) => e.j),
    );
    assert.equal(back[19]!.p.prompt, written[19]!.p.prompt);
  });

  it('refuses a group whose write fails midway, leaves no torn line, and accepts the next group', async () => {
    const dir = tempDir('jnl-');
    let budget = Infinity;
    const j = new Journal({
      dir,
      write: (fd, buf, off, len) => {
        if (budget <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        const n = fs.writeSync(fd, buf, off, Math.min(len, budget));
        budget -= n;
        return n;
      },
    });
    j.open();
    const first = await j.append(entry(1));
    budget = 30; // the disk fills 30 bytes into the next line
    await assert.rejects(j.append(entry(2)), (err: Error) => err instanceof JournalWriteError && /disk is full/.test(err.message));
    assert.match(j.lastWriteError?.message ?? '', /ENOSPC/);
    budget = Infinity; // space freed
    const third = await j.append(entry(3));
    assert.ok(third.j > first.j + 1, 'the refused seq is not handed out again');
    assert.equal(j.lastWriteError, null);
    await j.close();
    const again = new Journal({ dir });
    const back = again.open();
    assert.deepEqual(
      back.map((e) => e.j),
      [first.j, third.j],
    );
    assert.deepEqual(again.damage, [], 'no torn or damaged line was left behind');
  });

  it('refuses when fsync fails and cuts the group back out', async () => {
    const dir = tempDir('jnl-');
    let fail = false;
    const j = new Journal({
      dir,
      fsync: (fd) => {
        if (fail) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        fs.fsyncSync(fd);
      },
    });
    j.open();
    await j.append(entry(1));
    fail = true;
    await assert.rejects(j.append(entry(2)), JournalWriteError);
    fail = false;
    await j.close();
    assert.equal(new Journal({ dir }).open().length, 1);
  });

  it('skips a damaged line in the middle of a segment and keeps every entry after it', async () => {
    const dir = tempDir('jnl-');
    const j = new Journal({ dir });
    j.open();
    for (let i = 0; i < 9; i++) await j.append(entry(i));
    await j.close();
    const seg = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.jnl'))!);
    const lines = fs.readFileSync(seg, 'utf8').split('\n');
    lines[3] = lines[3]!.slice(0, 20) + '\u0000garbage' + lines[3]!.slice(40);
    fs.writeFileSync(seg, lines.join('\n'));
    const again = new Journal({ dir });
    const back = again.open();
    assert.equal(back.length, 8);
    assert.deepEqual(
      back.map((e) => e.j),
      [1, 2, 3, 5, 6, 7, 8, 9],
    );
    assert.equal(again.damage.length, 1);
    assert.equal(again.damage[0]!.kind, 'damaged');
    assert.equal(again.damage[0]!.line, 4);
    const next = await again.append(entry(10));
    assert.equal(next.j, 10);
    await again.close();
  });

  it('never repeats a seq across restarts, even after every segment was flushed and deleted', async () => {
    const dir = tempDir('jnl-');
    let last = 0;
    for (let round = 0; round < 4; round++) {
      const j = new Journal({ dir });
      j.open();
      for (let i = 0; i < 3; i++) {
        const e = await j.append(entry(i));
        assert.ok(e.j > last, `round ${round}: seq ${e.j} after ${last}`);
        last = e.j;
      }
      j.compact(() => true);
      await j.close();
    }
    assert.equal(last, 12);
  });

  it('takes the floor it is given (the highest seq the daemon flushed)', async () => {
    const dir = tempDir('jnl-');
    const j = new Journal({ dir });
    j.open(42);
    assert.equal((await j.append(entry(1))).j, 42);
    await j.close();
  });

  it('deletes the active segment once everything in it is flushed, and keeps appending', async () => {
    const dir = tempDir('jnl-');
    const j = new Journal({ dir });
    j.open();
    for (let i = 0; i < 5; i++) await j.append(entry(i, 'a'));
    const kept = await j.append(entry(5, 'b'));
    assert.equal(j.compact((e) => e.s === 'a'), 0, 'a segment with unflushed entries stays');
    assert.equal(j.compact(() => true), 1);
    assert.equal(j.stats().bytes, 0, 'no flushed event is left on disk');
    const after = await j.append(entry(6));
    assert.ok(after.j > kept.j);
    await j.close();
    assert.deepEqual(
      new Journal({ dir }).open().map((e) => e.j),
      [after.j],
    );
  });

  it('compacts only segments it knows, never one another process wrote meanwhile', async () => {
    const dir = tempDir('jnl-');
    const j = new Journal({ dir, segmentBytes: 100 });
    j.open();
    for (let i = 0; i < 4; i++) await j.append(entry(i));
    const foreign = path.join(dir, '000000999999.jnl');
    fs.writeFileSync(foreign, JSON.stringify({ j: 999999, t: 1, s: 'x', e: 'Stop', p: {} }) + '\n');
    j.compact(() => true);
    assert.ok(fs.existsSync(foreign));
    await j.close();
  });
});
