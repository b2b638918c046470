/**
 * Where the daemon's socket is. Mirrors engine/paths.ts `socketPath` (hooks import nothing of
 * ours); test/hooks/paths.test.ts keeps the two in agreement.
 *
 * node:crypto is loaded only for a data dir whose socket path is too long (the rare case): every
 * module a hook loads at start adds to the time Claude Code waits for it.
 */
import os from 'node:os';
import path from 'node:path';

export function serviceHome(env: NodeJS.ProcessEnv): string {
  const h = env.SERVICE_HOME;
  return path.resolve(h && h.trim() ? h : path.join(os.homedir(), '.memory-service'));
}

export async function hookSocketPath(home: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const inside = path.join(home, 'daemon.sock');
  if (Buffer.byteLength(inside) <= 100) return inside;
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256').update(path.resolve(home)).digest('hex').slice(0, 16);
  const xdg = env.XDG_RUNTIME_DIR;
  const dir = xdg && path.isAbsolute(xdg) && Buffer.byteLength(xdg) <= 60 ? path.join(xdg, 'memory-service') : path.join(os.tmpdir(), `memory-service-${typeof process.getuid === 'function' ? process.getuid() : 'user'}`);
  return path.join(dir, `${hash}.sock`);
}
