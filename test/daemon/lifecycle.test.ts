import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { resolvePaths } from '../../engine/index.js';
import { CLI, cli, startTestDaemon, testEnv } from '../helpers/daemon.js';
import { lostAndDuplicated, type Ack } from '../helpers/journal.js';
import { tempDir } from '../helpers/tmp.js';

describe('daemon process lifecycle', () => {
  it('starting twice is harmless: one daemon answers', async () => {
    const home = path.join(tempDir('life-'), 'home');
    const env = testEnv(home);
    const [a, b] = await Promise.all([cli(['daemon', 'start', '--json'], env), cli(['daemon', 'start', '--json'], env)]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const pids = new Set([JSON.parse(a.stdout).pid, JSON.parse(b.stdout).pid]);
    assert.equal(pids.size, 1, 'both report the same daemon');
    const status = await cli(['daemon', 'status', '--json'], env);
    assert.equal(JSON.parse(status.stdout).running, true);
    const stop = await cli(['daemon', 'stop', '--json'], env);
    assert.equal(JSON.parse(stop.stdout).stopped, true);
    assert.equal((await cli(['daemon', 'status'], env)).code, 3);
    assert.ok(!fs.existsSync(resolvePaths(home).lockFile), 'lock released');
    assert.ok(!fs.existsSync(resolvePaths(home).socket), 'socket removed');
  });

  it('cleans up a stale lock and socket left by a crash', async () => {
    const home = path.join(tempDir('life-'), 'home');
    const d = await startTestDaemon({ home });
    await d.kill9();
    const paths = resolvePaths(home);
    assert.ok(fs.existsSync(paths.lockFile), 'the crash left its lock');
    assert.ok(fs.existsSync(paths.socket), 'and its socket');
    const again = await startTestDaemon({ home });
    assert.ok(await again.client.ping());
    assert.equal(JSON.parse(fs.readFileSync(paths.lockFile, 'utf8')).pid, again.proc.pid);
    assert.equal(await again.stop(), 0);
  });

  it('never signals the process that reused the pid of a crashed daemon’s lock, another daemon’s included', async () => {
    const home = path.join(tempDir('life-'), 'home');
    const d = await startTestDaemon({ home });
    await d.kill9();
    const paths = resolvePaths(home);
    // The crash left its lock; its pid now runs something else: a Node process, and the daemon of another data dir.
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const other = await startTestDaemon();
    try {
      for (const pid of [bystander.pid!, other.proc.pid!]) {
        fs.writeFileSync(paths.lockFile, JSON.stringify({ pid, started_at: new Date().toISOString(), socket: paths.socket, version: 'x' }));
        const stop = await cli(['daemon', 'stop', '--json'], testEnv(home));
        assert.equal(stop.code, 0, stop.stderr);
        assert.equal(JSON.parse(stop.stdout).stopped, false, 'nothing of this data dir was running');
        assert.ok(!fs.existsSync(paths.lockFile), 'the stale lock is removed');
      }
      assert.deepEqual([bystander.exitCode, bystander.signalCode], [null, null], 'the Node process lives');
      assert.ok(await other.client.ping(), 'the other daemon still answers');
      // A daemon of this data dir starts over a stale lock naming the other daemon.
      fs.writeFileSync(paths.lockFile, JSON.stringify({ pid: other.proc.pid, started_at: new Date().toISOString(), socket: paths.socket, version: 'x' }));
      const again = await startTestDaemon({ home });
      assert.equal(JSON.parse(fs.readFileSync(paths.lockFile, 'utf8')).pid, again.proc.pid);
      assert.equal(await again.stop(), 0);
    } finally {
      bystander.kill();
      await other.stop();
    }
  });

  it('drains in-flight captures on SIGTERM and exits 0', async () => {
    const d = await startTestDaemon();
    const burst = Array.from({ length: 100 }, (_, i) =>
      d.client.capture({ hook_event_name: 'PostToolUse', session_id: 'drain', cwd: '/tmp/x', tool_name: 'Bash', tool_input: { command: `drain-${i}` } }).then(
        (r): Ack | null => (r.captured && typeof r.j === 'number' ? { session: 'drain', j: r.j, marker: `drain-${i}` } : null),
        () => null,
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    const exit = d.stop();
    const acked = (await Promise.all(burst)).filter((m): m is Ack => m !== null);
    assert.equal(await exit, 0, 'clean exit');
    assert.ok(acked.length > 0);
    // Each acknowledged event is in the journal, or was flushed into the store before the stop.
    assert.deepEqual(lostAndDuplicated(d.home, acked), { lost: [], duplicated: [] });
  });

  it('writes its log to a file in the data dir, never to the terminal in background mode', async () => {
    const home = path.join(tempDir('life-'), 'home');
    const env = testEnv(home);
    const child = spawn(process.execPath, [CLI, 'daemon', 'run', '--background'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const { DaemonClient } = await import('../../daemon/client.js');
    const client = new DaemonClient({ socketPath: resolvePaths(home).socket });
    const deadline = Date.now() + 30_000;
    while (!(await client.ping(500)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await client.status();
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
    const log = fs.readFileSync(path.join(resolvePaths(home).logDir, 'daemon.log'), 'utf8');
    assert.match(log, /daemon listening/);
    assert.equal(out, '');
  });
});
