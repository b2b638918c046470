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
import { resolvePaths } from '../../engine/index.js';
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
