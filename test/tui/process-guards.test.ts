/** Nothing prints into the dashboard: stray output goes to the log sink; Ink's writes are anchored. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { anchoredOutput } from '../../tui/anchored-output.js';
import { quietProcess } from '../../tui/quiet-process.js';
import { themeFor } from '../../tui/theme.js';

/** A stand-in for `process` with a stderr whose writes are recorded. */
function fakeProcess() {
  const proc = new EventEmitter() as EventEmitter & { stderr: { write: (c: unknown, e?: unknown, cb?: unknown) => boolean } };
  const written: string[] = [];
  proc.stderr = { write: (c: unknown) => (written.push(String(c)), true) };
  return { proc: proc as unknown as NodeJS.Process, written };
}

describe('quiet process', () => {
  it('sends console calls, warnings and stderr writes to the sink, and puts everything back', () => {
    const { proc, written } = fakeProcess();
    const earlier: string[] = [];
    proc.on('warning', (w: Error) => earlier.push(w.message));
    const con = { log: () => assert.fail('console.log reached the terminal'), info() {}, warn() {}, error() {}, debug() {}, trace() {}, dir() {} } as unknown as Console;
    const original = con.log;
    const sink: string[] = [];
    const restore = quietProcess((t) => sink.push(t), proc, con);
    con.log('hello %s', 'world');
    proc.emit('warning', Object.assign(new Error('Buffer() is deprecated'), { name: 'DeprecationWarning' }));
    let called = false;
    proc.stderr.write('native notice\n', () => (called = true));
    proc.stderr.write('\u001b[?25h');
    assert.deepEqual(sink, ['console.log: hello world\n', 'warning: DeprecationWarning: Buffer() is deprecated\n', 'stderr: native notice\n']);
    assert.equal(called, true, 'the write callback still runs');
    assert.deepEqual(earlier, [], 'the default warning printer was off');
    assert.deepEqual(written, ['\u001b[?25h'], 'only a terminal control (show the cursor) went through');
    restore();
    assert.equal(con.log, original);
    proc.emit('warning', new Error('after'));
    assert.deepEqual(earlier, ['after']);
    proc.stderr.write('x');
    assert.deepEqual(written, ['\u001b[?25h', 'x']);
  });

  it('survives a failing sink', () => {
    const { proc } = fakeProcess();
    const con = { log() {}, info() {}, warn() {}, error() {}, debug() {}, trace() {}, dir() {} } as unknown as Console;
    const restore = quietProcess(
      () => {
        throw new Error('disk full');
      },
      proc,
      con,
    );
    assert.doesNotThrow(() => con.error('x'));
    restore();
  });
});

describe('anchored output', () => {
  it('sends the cursor home before each frame write and passes everything else through', () => {
    const out = Object.assign(new EventEmitter(), { columns: 80, rows: 24, isTTY: true, chunks: [] as string[] });
    const stream = out as unknown as NodeJS.WriteStream & { chunks: string[] };
    (stream as unknown as { write: (c: string, cb?: () => void) => boolean }).write = (c: string, cb?: () => void) => {
      out.chunks.push(c);
      cb?.();
      return true;
    };
    const a = anchoredOutput(stream);
    a.write('\u001b[2Aframe');
    let done = false;
    a.write('', () => (done = true));
    assert.deepEqual(out.chunks, ['\u001b[H\u001b[2Aframe', '']);
    assert.equal(done, true);
    assert.equal(a.columns, 80);
    assert.equal(a.rows, 24);
    let resized = false;
    a.on('resize', () => (resized = true));
    out.emit('resize');
    assert.equal(resized, true, 'listeners go to the real stream');
  });
});

describe('NO_COLOR', () => {
  it('turns every colour off when set and not empty', () => {
    assert.equal(themeFor({ NO_COLOR: '1' }).fg('ok'), undefined);
    assert.equal(themeFor({ NO_COLOR: '1' }).border, undefined);
    assert.equal(themeFor({ NO_COLOR: '' }).fg('ok'), 'green');
    assert.equal(themeFor({}).fg('error'), 'red');
  });
});
