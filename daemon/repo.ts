/**
 * Repository identity of a working directory: the normalized `origin` remote (host/owner/name),
 * else the repository root path; plus the directory relative to the root. Cached per cwd.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface RepoInfo {
  /** Normalized remote (e.g. github.com/acme/app) or the root path; null outside a repository. */
  repo: string | null;
  root: string | null;
  /** cwd relative to the root ('.' at the root); null outside a repository. */
  dir: string | null;
}

/** git@github.com:Acme/App.git, https://user@github.com/acme/app → github.com/acme/app */
export function normalizeRemote(url: string): string {
  let u = url.trim();
  const scp = /^(?:[\w.-]+@)?([\w.-]+):(?!\/)(.+)$/.exec(u);
  if (scp && !/^[a-z]+:\/\//i.test(u)) u = `ssh://${scp[1]}/${scp[2]}`;
  try {
    const parsed = new URL(u);
    const p = parsed.pathname.replace(/\.git$/, '').replace(/\/+$/, '').replace(/^\/+/, '');
    return `${parsed.hostname.toLowerCase()}/${p.toLowerCase()}`;
  } catch {
    return u.replace(/\.git$/, '').toLowerCase();
  }
}

function findRoot(start: string): string | null {
  let dir = path.resolve(start);
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

function gitDir(root: string): string {
  const dotGit = path.join(root, '.git');
  try {
    if (fs.statSync(dotGit).isFile()) {
      const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, 'utf8'));
      if (m) {
        const gd = path.resolve(root, m[1]!.trim());
        // A worktree's gitdir points into <main>/.git/worktrees/<name>; config lives in <main>/.git.
        const common = path.join(gd, 'commondir');
        return fs.existsSync(common) ? path.resolve(gd, fs.readFileSync(common, 'utf8').trim()) : gd;
      }
    }
  } catch {
    // fall through
  }
  return dotGit;
}

function originUrl(root: string): string | null {
  try {
    const cfg = fs.readFileSync(path.join(gitDir(root), 'config'), 'utf8');
    const section = /\[remote "origin"\]([^[]*)/.exec(cfg);
    const url = section ? /^\s*url\s*=\s*(.+)$/m.exec(section[1]!) : null;
    return url ? url[1]!.trim() : null;
  } catch {
    return null;
  }
}

const cache = new Map<string, RepoInfo>();

export function repoInfo(cwd: string): RepoInfo {
  const key = path.resolve(cwd);
  const hit = cache.get(key);
  if (hit) return hit;
  const root = findRoot(key);
  let info: RepoInfo;
  if (!root) info = { repo: null, root: null, dir: null };
  else {
    const remote = originUrl(root);
    info = { repo: remote ? normalizeRemote(remote) : root, root, dir: path.relative(root, key) || '.' };
  }
  if (cache.size > 1000) cache.clear();
  cache.set(key, info);
  return info;
}
