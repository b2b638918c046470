/**
 * Export retention: the daemon keeps the newest SERVICE_EXPORT_KEEP finished exports in
 * $SERVICE_HOME/exports and ages out any older than 7 days; running exports are never touched.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ExportJobs, EXPORT_MAX_AGE_MS } from '../../api/export-jobs.js';
import { MemoryEngine, resolvePaths } from '../../engine/index.js';
import { InMemoryStore } from '../../engine/store/memory-store.js';
import { cli, startTestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

function job(id: string, status: string, finishedAt: string | null): Record<string, unknown> {
  return { export_id: id, status, created_at: finishedAt ?? new Date().toISOString(), started_at: null, finished_at: finishedAt, count: 1, bytes: 10, error: null, owner: 'local' };
}

describe('export retention', () => {
  it('keeps the newest finished exports and ages out old ones, leaving running ones alone', async () => {
    const dir = path.join(tempDir('exports-'), 'exports');
    fs.mkdirSync(dir, { recursive: true });
    const now = Date.parse('2026-06-10T12:00:00Z');
    const at = (days: number): string => new Date(now - days * 24 * 3600_000).toISOString();
    const seed: [string, string, string | null][] = [
      ['e1', 'SUCCEEDED', at(9)],
      ['e2', 'SUCCEEDED', at(3)],
      ['e3', 'FAILED', at(2)],
      ['e4', 'SUCCEEDED', at(1)],
      ['e5', 'SUCCEEDED', at(0.5)],
      ['e6', 'RUNNING', null],
    ];
    for (const [id, status, finished] of seed) {
      fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(job(id, status, finished)));
      fs.writeFileSync(path.join(dir, `${id}.ndjson`), '{}\n');
    }
    const jobs = new ExportJobs(dir, () => {}, { keep: 3, now: () => now });
    // e6 was cut off by the "restart": FAILED now, finished just now (real clock): the newest.
    assert.deepEqual(
      jobs.list().map((j) => j.export_id),
      ['e4', 'e5', 'e6'],
    );
    assert.deepEqual(fs.readdirSync(dir).sort(), ['e4.json', 'e4.ndjson', 'e5.json', 'e5.ndjson', 'e6.json', 'e6.ndjson']);
    assert.ok(EXPORT_MAX_AGE_MS === 7 * 24 * 3600_000);
    // Without a retention (the server) nothing is deleted.
    const kept = new ExportJobs(dir);
    assert.equal(kept.prune().length, 0);
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    await engine.add({ content: 'Decision: one memory to export.', user_id: 'u' });
    const fresh = jobs.start(engine, 'local');
    await jobs.idle();
    assert.equal(jobs.get(fresh.export_id)?.status, 'SUCCEEDED');
    assert.equal(jobs.list().length, 3, 'the newest three stay');
    assert.ok(fs.existsSync(jobs.file(fresh.export_id)));
    assert.ok(!fs.existsSync(path.join(dir, 'e4.ndjson')), 'the oldest went');
    await engine.close();
  });

  it('keeps $SERVICE_HOME/exports from piling up through service export', async () => {
    const d = await startTestDaemon({ env: { SERVICE_EXPORT_KEEP: '2' } });
    try {
      await d.client.remember({ text: 'Decision: exports are pruned.' });
      const out = path.join(tempDir('export-out-'), 'out.ndjson');
      for (let i = 0; i < 4; i++) {
        const r = await cli(['export', out], d.env);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /^exported 1 version to /m, 'one version, singular');
      }
      const dir = resolvePaths(d.home).exportsDir;
      assert.equal(fs.readdirSync(dir).filter((f) => f.endsWith('.ndjson')).length, 2);
      const imported = await cli(['import', out], d.env);
      assert.match(imported.stdout, /^imported 0 versions of 0 memories \(1 already present\)$/m);
    } finally {
      await d.stop();
    }
  });
});
