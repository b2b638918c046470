import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { createLogger, fileSink } from '../../engine/index.js';
import { tempDir } from '../helpers/tmp.js';

it('rotates the log file past maxBytes and keeps a bounded number of old files', () => {
  const file = path.join(tempDir('log-'), 'logs', 'd.log');
  const log = createLogger(fileSink({ file, maxBytes: 2000, keep: 2 }), 'debug', 't');
  for (let i = 0; i < 200; i++) log.info('line', { i, pad: 'x'.repeat(50) });
  assert.ok(fs.statSync(file).size <= 2000);
  assert.ok(fs.existsSync(`${file}.1`));
  assert.ok(fs.existsSync(`${file}.2`));
  assert.ok(!fs.existsSync(`${file}.3`));
  const last = fs.readFileSync(file, 'utf8').trim().split('\n').pop()!;
  assert.equal(JSON.parse(last).i, 199);
  assert.equal(JSON.parse(last).ns, 't');
});

it('logs an error with where it was thrown in an error record, and only its name and message below that level', () => {
  const records: Record<string, unknown>[] = [];
  const log = createLogger((r) => records.push(r), 'debug', 't');
  const thrown = (): Error => new TypeError("Unrecognized type 'NONE'");
  log.error('flush failed', { err: thrown() });
  log.warn('retrying', { err: thrown() });
  const [failed, retried] = records as { err: { name: string; message: string; at?: string[] } }[];
  assert.equal(failed!.err.message, "Unrecognized type 'NONE'");
  assert.ok(failed!.err.at && failed!.err.at.length > 0 && failed!.err.at.length <= 6, JSON.stringify(failed));
  assert.match(failed!.err.at[0]!, /^thrown \(.*log-file\.test\.js:\d+:\d+\)$/);
  assert.deepEqual(retried!.err, { name: 'TypeError', message: "Unrecognized type 'NONE'" });
});
