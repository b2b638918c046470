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

export async function hookSocketPath(home: string): Promise<string> {
  const inside = path.join(home, 'daemon.sock');
  if (Buffer.byteLength(inside) <= 100) return inside;
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256').update(path.resolve(home)).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `memory-service-${hash}.sock`);
}
