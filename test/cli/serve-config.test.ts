/** `service serve` reads the config file in the data dir (`service config set`), under the environment. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { it } from 'node:test';
import { cli, CLI, testEnv } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Start `service serve`, return the URL it listens on, and stop it. */
async function serveUrl(env: NodeJS.ProcessEnv, data: string): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'serve', '--data', data], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    return await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        const u = /listening on (http:\/\/\S+)/.exec(out);
        if (u) resolve(u[1]!);
      });
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      void exited.then((code) => reject(new Error(`serve exited early (${code}): ${out}`)));
    });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

it('listens where the config file says, unless the environment says otherwise', async () => {
  const root = tempDir('serve-config-');
  const env = testEnv(path.join(root, 'home'));
  const port = await freePort();
  const set = await cli(['config', 'set', 'port', String(port)], env);
  assert.equal(set.code, 0, set.stderr);
  assert.equal(await serveUrl(env, path.join(root, 'data')), `http://127.0.0.1:${port}`);
  const other = await serveUrl({ ...env, SERVICE_PORT: '0' }, path.join(root, 'data'));
  assert.notEqual(new URL(other).port, String(port), 'SERVICE_PORT in the environment wins');
});
