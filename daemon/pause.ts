/**
 * Capture pause state: global, per repository, or per session. Persisted, so a paused capture
 * stays paused across daemon restarts. Pause stops automatic capture only; explicit remember still
 * works. A repository pause covers every session working in it, new ones included.
 */
import { readState, writeState } from './state-file.js';

interface PauseDoc {
  all: boolean;
  sessions: Record<string, number>;
  repos?: Record<string, number>;
}

export interface PauseTarget {
  all?: boolean;
  session_id?: string | null;
  repo?: string | null;
}

export class PauseState {
  private doc: PauseDoc;

  /** `repoOf` tells which repository a session works in (for repository pauses). */
  constructor(
    private readonly file: string,
    private readonly repoOf: (sessionId: string) => string | null = () => null,
  ) {
    this.doc = readState<PauseDoc>(file, { all: false, sessions: {}, repos: {} });
    this.doc.repos ??= {};
  }

  isPaused(sessionId: string | null | undefined): boolean {
    if (this.doc.all) return true;
    if (sessionId == null) return false;
    if (sessionId in this.doc.sessions) return true;
    const repo = this.repoOf(sessionId);
    return repo !== null && repo in this.doc.repos!;
  }

  /** Why a session is paused: 'all', 'repo', 'session', or null when it captures. */
  pausedBy(sessionId: string | null | undefined): 'all' | 'repo' | 'session' | null {
    if (this.doc.all) return 'all';
    if (sessionId == null) return null;
    if (sessionId in this.doc.sessions) return 'session';
    const repo = this.repoOf(sessionId);
    return repo !== null && repo in this.doc.repos! ? 'repo' : null;
  }

  get all(): boolean {
    return this.doc.all;
  }

  pausedSessions(): string[] {
    return Object.keys(this.doc.sessions);
  }

  pausedRepos(): string[] {
    return Object.keys(this.doc.repos!);
  }

  pause(target: PauseTarget): void {
    if (target.all) this.doc.all = true;
    else if (target.repo) this.doc.repos![target.repo] = Date.now();
    else if (target.session_id) this.doc.sessions[target.session_id] = Date.now();
    writeState(this.file, this.doc);
  }

  /** Resume; `all` also clears every repository and session pause, `repo` its sessions' pauses. */
  resume(target: PauseTarget): void {
    if (target.all) this.doc = { all: false, sessions: {}, repos: {} };
    else if (target.repo) {
      delete this.doc.repos![target.repo];
      for (const id of Object.keys(this.doc.sessions)) if (this.repoOf(id) === target.repo) delete this.doc.sessions[id];
    } else if (target.session_id) delete this.doc.sessions[target.session_id];
    writeState(this.file, this.doc);
  }
}
