import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { InferJobs, type InferJob } from '../../api/index.js';
import { tempDir } from '../helpers/tmp.js';

it('runs again, after a restart, a job that was queued or running', async () => {
  const dir = tempDir('jobs-');
  const cut: InferJob<string, string> = { job_id: '01890a5d-ac96-774b-bcce-b302099a8057', status: 'RUNNING', created_at: new Date().toISOString(), started_at: new Date().toISOString(), finished_at: null, owner: 'm1', results: null, error: null, input: 'hello' };
  fs.writeFileSync(path.join(dir, `${cut.job_id}.json`), JSON.stringify(cut));
  const seen: string[] = [];
  const jobs = new InferJobs<string, string>(dir, async (input) => input.toUpperCase(), (j) => seen.push(j.status));
  await jobs.idle();
  const done = jobs.get(cut.job_id)!;
  assert.equal(done.status, 'SUCCEEDED');
  assert.equal(done.results, 'HELLO');
  assert.equal(done.input, null, 'the request is not shown');
  assert.deepEqual(seen, ['RUNNING', 'SUCCEEDED']);
  const failing = new InferJobs<string, string>(tempDir('jobs-'), async () => {
    throw new Error('model exploded');
  });
  const j = failing.start('x', 'm1');
  await failing.idle();
  assert.equal(failing.get(j.job_id)!.status, 'FAILED');
  assert.equal(failing.get(j.job_id)!.error, 'model exploded');
});

it('erases purged memories from finished results on disk, and from a job that finishes after the purge', async () => {
  const dir = tempDir('jobs-');
  type R = { memory_id: string; content: string }[];
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const jobs = new InferJobs<string, R>(dir, async (input) => {
    if (input === 'slow') await gate;
    return [
      { memory_id: `${input}-gone`, content: `ERASED ${input}` },
      { memory_id: `${input}-kept`, content: `kept ${input}` },
    ];
  });
  const done = jobs.start('fast', 'm1');
  await jobs.idle();
  const slow = jobs.start('slow', 'm1');
  assert.deepEqual(await jobs.erase(['fast-gone', 'slow-gone']), [done.job_id], 'only the finished job changed yet');
  release();
  await jobs.idle();
  for (const id of [done.job_id, slow.job_id]) {
    const text = fs.readFileSync(path.join(dir, `${id}.json`), 'utf8');
    assert.ok(!text.includes('ERASED'), text);
    assert.ok(text.includes('kept'));
    assert.deepEqual(jobs.get(id)!.results![0], { memory_id: id === done.job_id ? 'fast-gone' : 'slow-gone', purged: true });
  }
  assert.deepEqual(await jobs.erase(['fast-gone']), [], 'a second erase changes nothing');
});
