/**
 * What is wrong with the daemon right now, in words a user can act on: each problem names what
 * failed and the fix. `service status` and the dashboard show them; a problem clears itself when
 * the thing that failed works again (a later journal write, flush or store open).
 */

export type ProblemKind = 'journal_write' | 'journal_damage' | 'flush' | 'store_open' | 'store_rebuilt' | 'socket';

export interface Problem {
  kind: ProblemKind;
  /** What happened. */
  message: string;
  /** What the user should do (or what the daemon is doing about it). */
  fix: string;
  /** First seen (ISO). */
  since: string;
  /** Last seen (ISO). */
  at: string;
  /** Times seen since it was first reported. */
  count: number;
}

export class Health {
  private readonly problems = new Map<ProblemKind, Problem>();

  /** Record (or refresh) a problem. Returns true when it is new. */
  report(kind: ProblemKind, message: string, fix: string): boolean {
    const now = new Date().toISOString();
    const old = this.problems.get(kind);
    this.problems.set(kind, { kind, message, fix, since: old?.since ?? now, at: now, count: (old?.count ?? 0) + 1 });
    return !old;
  }

  /** The problem is over. Returns true when there was one. */
  clear(kind: ProblemKind): boolean {
    return this.problems.delete(kind);
  }

  has(kind: ProblemKind): boolean {
    return this.problems.has(kind);
  }

  list(): Problem[] {
    return [...this.problems.values()];
  }
}

/** The fix to suggest for a storage error, from its errno code when it has one. */
export function storageFix(err: unknown, where: string): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || /no space left/i.test(String((err as Error)?.message ?? err))) return `the disk holding ${where} is full: free some space there; the daemon retries by itself`;
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return `${where} is not writable: check its permissions and the file system (read-only?); the daemon retries by itself`;
  return `see the daemon log for details; the daemon retries by itself (service daemon restart if it persists)`;
}
