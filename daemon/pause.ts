/**
 * Capture pause state: global, or per session. Persisted, so a paused capture stays paused
 * across daemon restarts. Pause stops automatic capture only; explicit remember still works.
 */
import { readState, writeState } from './state-file.js';

interface PauseDoc {
  all: boolean;
  sessions: Record<string, number>;
}

export class PauseState {
  private doc: PauseDoc;

  constructor(private readonly file: string) {
    this.doc = readState<PauseDoc>(file, { all: false, sessions: {} });
  }

  isPaused(sessionId: string | null | undefined): boolean {
    return this.doc.all || (sessionId != null && sessionId in this.doc.sessions);
  }

  get all(): boolean {
    return this.doc.all;
  }

  pausedSessions(): string[] {
    return Object.keys(this.doc.sessions);
  }

  pause(target: { all?: boolean; session_id?: string | null }): void {
    if (target.all) this.doc.all = true;
    else if (target.session_id) this.doc.sessions[target.session_id] = Date.now();
    writeState(this.file, this.doc);
  }

  /** Resume; `all` also clears every per-session pause. */
  resume(target: { all?: boolean; session_id?: string | null }): void {
    if (target.all) this.doc = { all: false, sessions: {} };
    else if (target.session_id) delete this.doc.sessions[target.session_id];
    writeState(this.file, this.doc);
  }
}
