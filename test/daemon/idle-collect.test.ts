import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { IdleCollector } from '../../daemon/process-env.js';
import { resolvePaths } from '../../engine/index.js';
import { cli, testEnv } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('idle collection', () => {
  it('collects once the daemon is quiet after requests, never while one runs, and not again until there was work', async () => {
    let calls = 0;
    const c = new IdleCollector(40, () => calls++);
    try {
      c.end();
      await sleep(80);
      assert.equal(calls, 0, 'no request yet: nothing to collect');
      c.begin();
      c.begin();
      c.end();
      await sleep(80);
      assert.equal(calls, 0, 'a request is still running');
      c.end();
      await sleep(20);
      assert.equal(calls, 0, 'not quiet long enough yet');
      c.begin();
      c.end();
      await sleep(25);
      assert.equal(calls, 0, 'a new request restarts the quiet time');
      await sleep(60);
      assert.equal(calls, 1, 'collected once quiet');
      await sleep(80);
      assert.equal(calls, 1, 'once per quiet spell');
      c.begin();
      c.end();
      await sleep(80);
      assert.equal(calls, 2, 'more work, another collection');
      assert.equal(c.collections, 2);
    } finally {
      c.stop();
    }
  });

  it('does nothing without an exposed gc', async () => {
    const c = new IdleCollector(10, null);
    c.begin();
    c.end();
    await sleep(40);
    assert.equal(c.collections, 0);
  });

  it('a daemon started by the CLI collects after serving requests', async () => {
    const home = path.join(tempDir('idle-gc-'), 'home');
    const env = testEnv(home, { SERVICE_LOG_LEVEL: 'debug' });
    const started = await cli(['daemon', 'start', '--json'], env);
    assert.equal(started.code, 0, started.stderr);
    try {
      for (let i = 0; i < 3; i++) assert.equal((await cli(['status', '--json'], env)).code, 0);
      const log = path.join(resolvePaths(home).logDir, 'daemon.log');
      const collections = (): Record<string, unknown>[] =>
        fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l.includes('"idle collection"'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      for (let i = 0; i < 60 && collections().length === 0; i++) await sleep(100);
      const c = collections();
      assert.ok(c.length >= 1, 'the daemon (started with --expose-gc) collected once quiet');
      assert.equal(typeof c[0]!.rss_after_mb, 'number');
    } finally {
      await cli(['daemon', 'stop'], env);
    }
  });
});
