import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { storageFix } from '../../daemon/health.js';
import { environmental, moveAside } from '../../daemon/store-rebuild.js';
import { tempDir } from '../helpers/tmp.js';

describe('store rebuild decisions', () => {
  it('never moves a store aside for a full disk or a permission problem (a new store would fail the same way)', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    assert.equal(environmental(enospc), true);
    // LanceDB reports IO errors as plain messages with the OS error number.
    assert.equal(environmental(new Error('lance error: IO error: No space left on device (os error 28)')), true);
    assert.equal(environmental(new Error('Permission denied (os error 13)')), true);
    assert.equal(environmental(new Error('Read-only file system (os error 30)')), true);
    assert.equal(environmental(new Error('lance error: Invalid input, Corrupt file: not a valid manifest')), false);
    assert.equal(environmental(new Error('Not found: lance/current.lance/data/0a1b.lance')), false);
  });

  it('moves a store aside under a new name, never over an earlier one', () => {
    const root = tempDir('aside-');
    const dir = path.join(root, 'lance');
    const now = new Date('2026-11-24T22:00:00Z');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'a'), '1');
    const first = moveAside(dir, now);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'a'), '2');
    const second = moveAside(dir, now);
    assert.notEqual(first, second);
    assert.equal(fs.readFileSync(path.join(first, 'a'), 'utf8'), '1');
    assert.equal(fs.readFileSync(path.join(second, 'a'), 'utf8'), '2');
    assert.ok(!fs.existsSync(dir));
  });

  it('names the fix for the usual storage errors', () => {
    assert.match(storageFix(Object.assign(new Error('x'), { code: 'ENOSPC' }), '/data/lance'), /disk holding \/data\/lance is full/);
    assert.match(storageFix(Object.assign(new Error('x'), { code: 'EROFS' }), '/data/lance'), /not writable/);
    assert.match(storageFix(new Error('something else'), '/data/lance'), /daemon log/);
  });
});
