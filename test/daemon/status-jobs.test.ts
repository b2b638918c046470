/**
 * Long work in `GET /v1/status`: running imports (lines processed of the upload) and exports
 * (versions written of every version stored), which the dashboard shows as progress.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ExportJob } from '../../api/index.js';
import { ImportProgress } from '../../daemon/import-progress.js';
import { jobsStatus } from '../../daemon/status.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { importLine } from '../helpers/rows.js';

function job(status: ExportJob['status'], count: number): ExportJob {
  return { export_id: randomUUID(), status, created_at: '2026-01-01T00:00:00.000Z', started_at: status === 'PENDING' ? null : '2026-01-01T00:00:01.000Z', finished_at: null, count, bytes: 0, error: null, owner: 'local' };
}

function versionLine(i: number): string {
  const now = Date.now();
  return importLine({ content: `imported note number ${i} about the build cache`, user_id: 'tester', repo: 'github.com/acme/shop', dir: '.', category: 'note', source: { kind: 'import' }, valid_from: now, recorded_at: now, created_at: now });
}

describe('import progress', () => {
  it('tracks an import from begin to done, never past its total', () => {
    const p = new ImportProgress(() => Date.parse('2026-03-01T10:00:00.000Z'));
    const a = p.begin(2);
    a.advance();
    assert.deepEqual(p.list(), [{ started_at: '2026-03-01T10:00:00.000Z', total: 2, processed: 1 }]);
    a.advance();
    a.advance();
    assert.equal(p.list()[0]!.processed, 2, 'processed stops at the total');
    const b = p.begin(5);
    assert.equal(p.list().length, 2);
    a.done();
    a.done();
    assert.deepEqual(
      p.list().map((r) => r.total),
      [5],
    );
    b.done();
    assert.deepEqual(p.list(), []);
  });

  it('hands out copies, so a reader cannot change the counts', () => {
    const p = new ImportProgress();
    p.begin(3);
    p.list()[0]!.processed = 99;
    assert.equal(p.list()[0]!.processed, 0);
  });
});

describe('jobs in status', () => {
  it('lists only pending and running exports, with every stored version as the total', () => {
    const running = job('RUNNING', 40);
    const pending = job('PENDING', 0);
    const s = jobsStatus({ exports: { list: () => [job('SUCCEEDED', 100), running, job('FAILED', 3), pending] }, imports: new ImportProgress() }, 100);
    assert.deepEqual(s.exports, [
      { export_id: running.export_id, status: 'RUNNING', count: 40, total: 100, started_at: '2026-01-01T00:00:01.000Z' },
      { export_id: pending.export_id, status: 'PENDING', count: 0, total: 100, started_at: null },
    ]);
    assert.deepEqual(s.imports, []);
  });

  it('never reports a total below what an export already wrote (versions stored meanwhile)', () => {
    const s = jobsStatus({ exports: { list: () => [job('RUNNING', 120)] }, imports: new ImportProgress() }, 100);
    assert.equal(s.exports[0]!.total, 120);
  });

  it('reports no jobs when the host gives no sources', () => {
    assert.deepEqual(jobsStatus(undefined, 10), { exports: [], imports: [] });
  });
});

describe('a real daemon reports a running import', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon();
  });
  after(async () => {
    await d.stop();
  });

  it('shows the import in status while it runs, and not once it is done', async () => {
    type Jobs = { jobs: { exports: unknown[]; imports: { total: number; processed: number }[] } };
    assert.deepEqual((await d.client.status<Jobs>()).jobs, { exports: [], imports: [] }, 'nothing runs at rest');
    const lines = Array.from({ length: 3000 }, (_, i) => versionLine(i)).join('\n');
    let done = false;
    const importing = d.client.importNdjson(lines).finally(() => (done = true));
    const seen: { total: number; processed: number }[] = [];
    while (!done) {
      const s = await d.client.status<Jobs>();
      seen.push(...s.jobs.imports);
    }
    const result = await importing;
    assert.equal(result.imported, 3000);
    assert.ok(seen.length > 0, 'status showed the import while it ran');
    for (const r of seen) {
      assert.equal(r.total, 3000);
      assert.ok(r.processed >= 0 && r.processed <= 3000);
    }
    assert.deepEqual((await d.client.status<Jobs>()).jobs.imports, [], 'a finished import leaves status');
  });
});
