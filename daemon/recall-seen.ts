/**
 * What recall has already put in front of the agent, per session, so a memory is injected once
 * per session rather than once per hook: SessionStart and the first UserPromptSubmit used to add
 * the same memory to one request, and Claude Code 2.1.331 fires UserPromptSubmit again for every
 * background-task notification. A SessionStart (startup, resume, clear, compact) starts the
 * session's context afresh, so it starts the record afresh too. The plugin's SessionStart hook
 * prints nothing (it runs in the background so that no session waits for it): the session's first
 * prompt recall opens with the block SessionStart used to show. Kept in memory: after a daemon
 * restart a memory may be shown once more, never lost.
 */
import { squeeze } from '../engine/index.js';

/** Sessions remembered at most (least recently recalled dropped first). */
const MAX_SESSIONS = 500;

/** A memory as recall offered it: its text, and for an episode snippet the passages that matched the prompt. */
export interface Offered {
  memory_id: string;
  content: string;
  /** Shown in part (an episode's snippet): these passages of it. */
  passages?: readonly string[];
}

export interface SeenMemories {
  /**
   * Whether the memory was shown: whole, or (given the passages a snippet of it would show now)
   * every one of those passages. A long episode shown for one prompt still answers another prompt
   * with a passage the first did not show.
   */
  has(memoryId: string, passages?: readonly string[]): boolean;
  /** Note the memories whose text made it into the block `text` (recorded once delivered). */
  markShown(text: string, rows: readonly Offered[]): void;
  /** The block reached the hook in time: record what it showed. */
  delivered(): void;
}

/** The start of a memory as the context block prints it (whitespace folded). */
function shownKey(content: string): string {
  return squeeze(content).slice(0, 80);
}

/** One passage of a memory shown in part. */
function passageKey(memoryId: string, passage: string): string {
  return `${memoryId}\u0000${squeeze(passage).slice(0, 120)}`;
}

export class RecalledPerSession {
  private readonly sessions = new Map<string, Set<string>>();
  /** Sessions whose next prompt recall opens with the opening block (a SessionStart came by capture). */
  private readonly openingDue = new Set<string>();

  /**
   * A SessionStart arrived as a capture (the plugin's SessionStart hook runs in the background and
   * prints nothing): the session's context starts afresh, and its next prompt's recall opens with
   * the opening block (project, personal, last session here). A `startup` for a session a prompt
   * already recalled for is that same start arriving late: it changes nothing.
   */
  started(sessionId: string, source: unknown): void {
    if (source === 'startup' && this.sessions.has(sessionId)) return;
    this.sessions.delete(sessionId);
    this.openingDue.add(sessionId);
    if (this.openingDue.size > MAX_SESSIONS) this.openingDue.delete(this.openingDue.values().next().value!);
  }

  /**
   * Whether this prompt's recall opens with the opening block: the first recall of a session this
   * daemon has not seen recall for, or the first since a SessionStart. Call before `for`.
   */
  takeOpening(sessionId: string): boolean {
    if (this.openingDue.delete(sessionId)) return true;
    return !this.sessions.has(sessionId);
  }

  /** The opening taken for a recall that was not delivered: the next prompt opens with it. */
  returnOpening(sessionId: string): void {
    this.openingDue.add(sessionId);
  }

  /** The record for one recall; SessionStart clears the session's record first. */
  for(sessionId: string | null, event: 'SessionStart' | 'UserPromptSubmit'): SeenMemories | undefined {
    if (!sessionId) return undefined;
    let ids = this.sessions.get(sessionId);
    if (!ids || event === 'SessionStart') ids = new Set();
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, ids);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const seen = ids;
    const shown: string[] = [];
    // What this recall has already put in its own block counts too (the opening, then the prompt's).
    const known = (key: string): boolean => seen.has(key) || shown.includes(key);
    return {
      has: (id, passages) => known(id) || (passages !== undefined && passages.length > 0 && passages.every((p) => known(passageKey(id, p)))),
      markShown(text, rows) {
        for (const r of rows) {
          if (!text.includes(shownKey(r.content))) continue;
          if (r.passages && r.passages.length > 0) shown.push(...r.passages.map((p) => passageKey(r.memory_id, p)));
          else shown.push(r.memory_id);
        }
      },
      delivered() {
        for (const id of shown) seen.add(id);
      },
    };
  }
}
