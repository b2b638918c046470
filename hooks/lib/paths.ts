/**
 * Where the daemon's socket is. Mirrors engine/paths.ts `socketPath` (hooks import nothing of
 * ours); test/hooks/paths.test.ts keeps the two in agreement.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

export function serviceHome(env: NodeJS.ProcessEnv): string {
  const h = env.SERVICE_HOME;
  return path.resolve(h && h.trim() ? h : path.join(os.homedir(), '.memory-service'));
}

export function hookSocketPath(home: string): string {
  const inside = path.join(home, 'daemon.sock');
  if (Buffer.byteLength(inside) <= 100) return inside;
  const hash = createHash('sha256').update(path.resolve(home)).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `memory-service-${hash}.sock`);
}
