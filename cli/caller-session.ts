/**
 * "This session" for the commands that act on one (pause, resume, search --scope session, status):
 * an explicit --session wins; else CLAUDE_CODE_SESSION_ID, which Claude Code exports to the `!`
 * commands of slash commands and to Bash (so /memory:pause inside session A never pauses live
 * session B in the same folder); only without either does the daemon fall back to the most
 * recently active session in the working directory, and the command says so.
 */
export interface CallerSession {
  /** The session to act on, or null: let the daemon pick the folder's latest session. */
  session_id: string | null;
  source: 'flag' | 'env' | 'folder';
}

export function callerSession(env: NodeJS.ProcessEnv, flag?: unknown): CallerSession {
  if (typeof flag === 'string' && flag.trim()) return { session_id: flag.trim(), source: 'flag' };
  const fromEnv = env.CLAUDE_CODE_SESSION_ID?.trim();
  if (fromEnv) return { session_id: fromEnv, source: 'env' };
  return { session_id: null, source: 'folder' };
}

/** The note a command prints (to stderr) when it fell back to the folder's latest session. */
export const FOLDER_FALLBACK_NOTE = 'no CLAUDE_CODE_SESSION_ID (not run from Claude Code) and no --session: acting on the most recently active session in this folder';
