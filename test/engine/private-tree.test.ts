/**
 * Data dirs made by an older build with 0755 directories and 0644 files are closed to their owner
 * on start, by the real daemon and the real server: directories 0700, files 0600.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { resolvePaths, tightenTree } from '../../engine/index.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';

/** A tree as an older build (umask 022) left it: every dir 0755, every file 0644. */
function looseTree(root: string, files: string[]): void {
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), 'older build\n');
  }
  const walk = (dir: string): void => {
    fs.chmodSync(dir, 0o755);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else fs.chmodSync(path.join(dir, e.name), 0o644);
    }
  };
  walk(root);
}

/** Every entry under root whose mode lets group or others in. */
function loose(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string): void => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink() || st.isSocket()) return;
    const want = st.isDirectory() ? 0o700 : 0o600;
    if ((st.mode & 0o777) !== want) out.push(`${path.relative(root, p) || '.'} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
  };
  walk(root);
  return out;
}

describe('owner-only data dirs', () => {
  it('tightens a tree to 0700 directories and 0600 files, leaving symlink targets alone', () => {
    const root = path.join(tempDir('tree-'), 'home');
    looseTree(root, ['exports/a.ndjson', 'exports/a.json', 'logs/daemon.log', 'state/sessions.json', 'deep/er/still.txt']);
    const outside = path.join(tempDir('outside-'), 'shared.txt');
    fs.writeFileSync(outside, 'not ours to change');
    fs.chmodSync(outside, 0o644);
    fs.symlinkSync(outside, path.join(root, 'link.txt'));
    const r = tightenTree(root);
    assert.equal(r.changed, 11);
    assert.deepEqual(loose(root), []);
    assert.equal(fs.statSync(outside).mode & 0o777, 0o644);
    assert.equal(tightenTree(root).changed, 0, 'a second pass changes nothing');
  });

  it('the daemon closes an older home on start (exports, logs, state)', async () => {
    const home = path.join(tempDir('old-home-'), 'home');
    looseTree(home, ['exports/0190c0de-0000-7000-8000-000000000000.ndjson', 'exports/0190c0de-0000-7000-8000-000000000000.json', 'logs/daemon.log', 'state/sessions.json', 'state/forgets.json']);
    const d = await startTestDaemon({ home });
    try {
      assert.deepEqual(loose(home), []);
      assert.equal(fs.statSync(resolvePaths(home).exportsDir).mode & 0o777, 0o700);
    } finally {
      await d.stop();
    }
  });

  it('the server closes an older data dir on start', async () => {
    const dataDir = path.join(tempDir('old-data-'), 'data');
    looseTree(dataDir, ['projects/p1/exports/x.ndjson', 'projects/p1/events/events.ndjson', 'logs/server.log', 'tenancy.json.bak']);
    const s = await startTestServer({ dataDir });
    try {
      assert.deepEqual(loose(dataDir), []);
    } finally {
      await s.close();
    }
  });
});
