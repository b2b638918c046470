/**
 * The daemon's socket lives only in a directory this user owns with mode 0700, and every client
 * (DaemonClient for the CLI, TUI and MCP server; the hooks' own client) checks the socket and its
 * directory before sending anything. A listener planted by "another user" (a socket chowned away,
 * or one in a directory others may enter) receives nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { DaemonClient, DaemonUnreachableError, untrustedSocket } from '../../daemon/client.js';
import { privateRuntimeDir, socketPath } from '../../engine/paths.js';
import { post, Unreachable } from '../../hooks/lib/http.js';
import { hookSocketPath } from '../../hooks/lib/paths.js';
import { untrustedSocket as hookUntrusted } from '../../hooks/lib/socket-trust.js';
import { CLI, run, startTestDaemon, testEnv } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

const servers: net.Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** A listener that records every byte it receives and answers like the daemon would. */
async function listener(sock: string): Promise<{ received: () => string }> {
  let got = '';
  const server = net.createServer((c) => {
    c.on('data', (d) => {
      got += d.toString();
      c.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 37\r\n\r\n{"context":"INJECTED","count":1,"x":1}'.slice(0, 200));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(sock, () => r()));
  return { received: () => got };
}

describe('the daemon socket', () => {
  it('is found at the same place by the hooks and the engine, for short and long data dirs, with and without XDG_RUNTIME_DIR', async () => {
    for (const env of [{}, { XDG_RUNTIME_DIR: '/run/user/1000' }, { XDG_RUNTIME_DIR: 'relative/dir' }]) {
      for (const home of ['/tmp/h', `/tmp/${'x'.repeat(120)}/home`]) assert.equal(await hookSocketPath(home, env), socketPath(home, env), `${home} ${JSON.stringify(env)}`);
    }
    const long = `/tmp/${'x'.repeat(120)}/home`;
    assert.equal(path.dirname(socketPath(long, { XDG_RUNTIME_DIR: '/run/user/1000' })), '/run/user/1000/memory-service');
    assert.ok(path.dirname(socketPath(long, {})).startsWith(path.join(os.tmpdir(), 'memory-service-')));
    assert.notEqual(path.dirname(socketPath(long, {})), os.tmpdir(), 'never directly in the shared temp dir');
  });

  it('puts a long data dir’s socket in a private 0700 directory and makes a 0755 data dir private', async () => {
    const xdg = tempDir('xdg-');
    const home = path.join(tempDir('long-'), 'a'.repeat(60), 'b'.repeat(40), 'home');
    fs.mkdirSync(home, { recursive: true, mode: 0o755 });
    fs.chmodSync(home, 0o755);
    // The test process resolves paths from its own env too (the helper's client pings the socket).
    const saved = process.env.XDG_RUNTIME_DIR;
    process.env.XDG_RUNTIME_DIR = xdg;
    const d = await startTestDaemon({ home, env: { XDG_RUNTIME_DIR: xdg } }).finally(() => {
      if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = saved;
    });
    try {
      const sock = socketPath(home, { XDG_RUNTIME_DIR: xdg });
      assert.equal(path.dirname(sock), path.join(xdg, 'memory-service'));
      assert.equal(privateRuntimeDir({ XDG_RUNTIME_DIR: xdg }), path.dirname(sock));
      assert.ok(fs.lstatSync(sock).isSocket());
      assert.equal(fs.statSync(path.dirname(sock)).mode & 0o777, 0o700);
      assert.equal(fs.statSync(home).mode & 0o777, 0o700, 'the data dir admits nobody else');
      assert.equal(untrustedSocket(sock), null);
      assert.ok(await new DaemonClient({ socketPath: sock }).ping(2000));
    } finally {
      await d.stop();
    }
  });

  it('refuses to start when the socket directory belongs to another user', async () => {
    const xdg = tempDir('xdg-');
    const squatted = path.join(xdg, 'memory-service');
    fs.mkdirSync(squatted, { mode: 0o777 });
    fs.chownSync(squatted, 65534, 65534);
    const home = path.join(tempDir('long-'), 'c'.repeat(60), 'd'.repeat(40), 'home');
    const r = await run(process.execPath, [CLI, 'daemon', 'run'], { env: testEnv(home, { XDG_RUNTIME_DIR: xdg }), timeoutMs: 30_000 });
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /not a directory of yours/);
    assert.deepEqual(fs.readdirSync(squatted), [], 'no socket was made there');
  });

  for (const how of ['a socket owned by another user', 'a socket in a directory others may enter'] as const) {
    it(`sends nothing to ${how}, from the client or from a hook`, async () => {
      const dir = tempDir('sock-');
      const sock = path.join(dir, 'daemon.sock');
      const l = await listener(sock);
      if (how === 'a socket owned by another user') fs.lchownSync(sock, 65534, 65534);
      else fs.chmodSync(dir, 0o755);
      assert.ok(untrustedSocket(sock));
      assert.ok(hookUntrusted(sock));
      await assert.rejects(new DaemonClient({ socketPath: sock }).remember({ text: 'the prod password is hunter2' }), DaemonUnreachableError);
      assert.equal(await new DaemonClient({ socketPath: sock }).ping(500), false);
      await assert.rejects(post(sock, '/v1/recall', { prompt: 'what is the deploy key?' }, 1000), Unreachable);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(l.received(), '', 'the listener received nothing');
    });
  }

  it('talks to a socket that is the user’s own in a private directory', async () => {
    const dir = tempDir('sock-');
    fs.chmodSync(dir, 0o700);
    const sock = path.join(dir, 'own.sock');
    const l = await listener(sock);
    assert.equal(untrustedSocket(sock), null);
    assert.equal(hookUntrusted(sock), null);
    const r = await post(sock, '/v1/recall', { prompt: 'hi' }, 2000);
    assert.equal(r.status, 200);
    assert.ok(l.received().includes('POST /v1/recall'));
  });
});
