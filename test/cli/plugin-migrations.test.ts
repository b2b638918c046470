/**
 * The data dir's schema migrations: applied in order from the recorded version (0 when there is
 * no schema file), each recorded, none applied twice, and a newer data dir never downgraded.
 * (The real chain from version 0 runs through `service plugin install` in plugin-lifecycle.test.ts.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS, migrateDataDir, SCHEMA_VERSION, schemaVersion, type Migration } from '../../cli/plugin/migrations.js';
import { DATA_SCHEMA_VERSION, resolvePaths } from '../../engine/index.js';
import { cli, startTestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

describe('data dir schema migrations', () => {
  let n = 0;
  const root = tempDir('schema-');
  const home = (): string => path.join(root, `home-${n++}`);
  it('numbers the migrations 1, 2, … in order', () => {
    assert.deepEqual(
      MIGRATIONS.map((m) => m.version),
      MIGRATIONS.map((_, i) => i + 1),
    );
    assert.equal(SCHEMA_VERSION, MIGRATIONS.length);
    assert.equal(DATA_SCHEMA_VERSION, SCHEMA_VERSION, 'the daemon stamps new data dirs with the last migration');
  });

  it('takes a data dir the daemon created for current, not for schema 0 needing an update', async () => {
    const d = await startTestDaemon();
    try {
      await d.client.remember({ text: 'Decision: a fresh data dir is current.' });
      const paths = resolvePaths(d.home);
      assert.equal(schemaVersion(paths), SCHEMA_VERSION);
      assert.equal(fs.statSync(paths.schemaFile).mode & 0o777, 0o600);
      const r = await cli(['plugin', 'status', '--json'], d.env);
      const schema = (JSON.parse(r.stdout) as { checks: { id: string; level: string; summary: string }[] }).checks.find((c) => c.id === 'schema')!;
      assert.equal(schema.level, 'ok', schema.summary);
      assert.match(schema.summary, new RegExp(`schema ${SCHEMA_VERSION}$`));
    } finally {
      await d.stop();
    }
    // An old data dir (a store, no schema file) is still left for plugin install|update to migrate.
    const old = resolvePaths(home());
    fs.mkdirSync(old.lanceDir, { recursive: true });
    const again = await startTestDaemon({ home: old.home });
    await again.stop();
    assert.equal(schemaVersion(old), 0);
  });

  it('applies each pending step once, in order, recording it', () => {
    const paths = resolvePaths(home());
    const ran: number[] = [];
    const steps: Migration[] = [1, 2, 3].map((version) => ({ version, name: `step ${version}`, up: () => void ran.push(version) }));
    assert.equal(schemaVersion(paths), 0, 'no schema file: version 0');
    assert.deepEqual(migrateDataDir(paths, steps.slice(0, 1)), { from: 0, to: 1, applied: ['1: step 1'] });
    assert.deepEqual(migrateDataDir(paths, steps), { from: 1, to: 3, applied: ['2: step 2', '3: step 3'] });
    assert.deepEqual(migrateDataDir(paths, steps), { from: 3, to: 3, applied: [] });
    assert.deepEqual(ran, [1, 2, 3]);
    const doc = JSON.parse(fs.readFileSync(paths.schemaFile, 'utf8'));
    assert.equal(doc.version, 3);
    assert.deepEqual(
      doc.applied.map((a: { version: number }) => a.version),
      [1, 2, 3],
    );
  });

  it('stops at a failing step, so the next run retries it', () => {
    const paths = resolvePaths(home());
    let fail = true;
    const steps: Migration[] = [
      { version: 1, name: 'fine', up: () => {} },
      {
        version: 2,
        name: 'flaky',
        up: () => {
          if (fail) throw new Error('disk full');
        },
      },
    ];
    assert.throws(() => migrateDataDir(paths, steps), /disk full/);
    assert.equal(schemaVersion(paths), 1);
    fail = false;
    assert.deepEqual(migrateDataDir(paths, steps).applied, ['2: flaky']);
  });

  it('refuses a data dir written by a newer service, and a damaged schema file', () => {
    const paths = resolvePaths(home());
    fs.mkdirSync(paths.home, { recursive: true });
    fs.writeFileSync(paths.schemaFile, JSON.stringify({ version: SCHEMA_VERSION + 1 }));
    assert.throws(() => migrateDataDir(paths), /written by a newer memory service .*update the service CLI/);
    fs.writeFileSync(paths.schemaFile, '{"nope": true}');
    assert.throws(() => migrateDataDir(paths), /damaged/);
  });

  it('version 1 closes a data dir and its state to the owner', () => {
    const paths = resolvePaths(home());
    fs.mkdirSync(paths.stateDir, { recursive: true, mode: 0o755 });
    fs.chmodSync(paths.home, 0o755);
    fs.writeFileSync(path.join(paths.stateDir, 'sessions.json'), '{}', { mode: 0o644 });
    migrateDataDir(paths, MIGRATIONS.slice(0, 1));
    assert.equal(fs.statSync(paths.home).mode & 0o777, 0o700);
    assert.equal(fs.statSync(paths.stateDir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(paths.stateDir, 'sessions.json')).mode & 0o777, 0o600);
  });
});
