/**
 * The daemon's socket lives only in a directory this user owns with mode 0700 (engine/paths.ts
 * `socketPath`). The daemon prepares that directory before listening; every client checks the
 * socket and its directory before sending anything, so another local user can neither read a
 * request (prompts, remembered text) nor answer it (injected context).
 *
 * The client's check is `untrustedSocket` in daemon/client.ts (which may import nothing of ours);
 * hooks/lib/socket-trust.ts is its zero-dependency twin for the hooks (Node 18).
 */
import fs from 'node:fs';

const uid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

/**
 * Create (0700) or check the directory the socket goes in. A directory owned by someone else,
 * or a symlink, is refused; one of ours with looser permissions is tightened (a data dir that
 * already existed as 0755 keeps memories, exports and logs from other users too).
 */
export function preparePrivateDir(dir: string): void {
  const me = uid();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (me === null) return;
  const st = fs.lstatSync(dir);
  if (!st.isDirectory() || st.uid !== me) {
    throw new Error(`${dir} is not a directory of yours (owner uid ${st.uid}${st.isSymbolicLink() ? ', a symlink' : ''}); the daemon will not keep its socket or data there. Remove it, or set SERVICE_HOME to a shorter path of yours.`);
  }
  if ((st.mode & 0o777) !== 0o700) fs.chmodSync(dir, 0o700);
}
