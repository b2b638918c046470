/**
 * Twin of daemon/socket-trust.ts `untrustedSocket` for the hooks (zero dependencies): before a
 * hook sends a prompt or an event, the socket and its directory must be this user's alone.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Why not to talk to this socket, or null when it is safe (or missing). */
export function untrustedSocket(socketPath: string): string | null {
  if (typeof process.getuid !== 'function') return null;
  const me = process.getuid();
  let sock: fs.Stats;
  try {
    sock = fs.lstatSync(socketPath);
  } catch {
    return null;
  }
  if (!sock.isSocket() || sock.uid !== me) return 'socket not ours';
  const dir = fs.lstatSync(path.dirname(socketPath));
  return dir.isDirectory() && dir.uid === me && (dir.mode & 0o077) === 0 ? null : 'socket directory open to others';
}
