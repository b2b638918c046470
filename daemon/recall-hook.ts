/**
 * What the recall hooks (SessionStart, UserPromptSubmit) get from the daemon: the event captured,
 * and the recall block within its deadline (longer while the engine is still opening), or nothing.
 */
import { joinContext, redact, type Embedder, type MemoryEngine } from '../engine/index.js';
import { excluded } from './capture.js';
import type { CaptureResult } from './capture-intake.js';
import type { DaemonDeps } from './daemon.js';
import { JournalWriteError } from './journal.js';
import { recall, type RecallRequest } from './recall.js';
import type { RecalledPerSession } from './recall-seen.js';
import { repoInfo } from './repo.js';

/** Recall deadlines while the engine is still opening, inside the hook's own wait (hooks/lib/run.ts). */
const STARTUP_RECALL_MS = { SessionStart: 1200, UserPromptSubmit: 600 } as const;
/** Characters for each of the two blocks of a prompt recall that opens a session (hooks print at most 9,500). */
const OPENING_BLOCK_CHARS = 4500;

export interface RecallHookParts {
  /** Memories recall already showed each session (injected once per session). */
  recalled: RecalledPerSession;
  /** Whether the engine has finished opening (recall then runs under its normal deadline). */
  engineIsOpen: () => boolean;
  capture: (payload: Record<string, unknown>, opts: { recalling?: boolean }) => Promise<CaptureResult>;
  /** The engine once it is open. */
  ready: () => Promise<MemoryEngine>;
}

export interface RecallHookResult {
  context: string;
  count: number;
  timed_out?: boolean;
  captured?: boolean;
  capture_refused?: boolean;
}

export async function recallForHook(deps: DaemonDeps, parts: RecallHookParts, payload: Record<string, unknown>): Promise<RecallHookResult> {
  const { config, logger: log } = deps;
  const { recalled } = parts;
  const event = payload.hook_event_name === 'SessionStart' ? 'SessionStart' : 'UserPromptSubmit';
  let refused = false;
  const capture = parts.capture({ ...payload, hook_event_name: event }, { recalling: true }).catch((err: unknown) => {
    log.warn('capture during recall failed', { err });
    // The journal refused it: the hook spools the prompt instead (`capture_refused`).
    refused = err instanceof JournalWriteError;
    return { captured: false } as CaptureResult;
  });
  const ex = excluded(payload, deps.paths.home);
  let result: { text: string; count: number } | null = { text: '', count: 0 };
  if (ex.capture) {
    const cwd = typeof payload.cwd === 'string' ? payload.cwd : process.cwd();
    const sessionId = typeof payload.session_id === 'string' && payload.session_id ? payload.session_id : null;
    // The session's first prompt (or the first since its SessionStart) opens with what SessionStart
    // recall shows: the plugin's SessionStart hook runs in the background and prints nothing.
    const opening = event === 'UserPromptSubmit' && sessionId !== null && recalled.takeOpening(sessionId);
    const seen = recalled.for(sessionId, event);
    const req: RecallRequest = { event, session_id: sessionId, repo: repoInfo(cwd), user_id: config.userId, prompt: typeof payload.prompt === 'string' ? redact(payload.prompt).text : undefined, seen };
    const opts = { maxTokens: config.contextTokens, textOnly: !engineModelReady(deps.embedder) };
    const work = parts.ready().then(async (engine) => {
      if (!opening) return recall(engine, req, opts);
      // One block, each part chosen within half of it (Claude Code keeps 10,000 characters of a hook's output).
      const half = { ...opts, maxChars: OPENING_BLOCK_CHARS };
      const head = await recall(engine, { ...req, event: 'SessionStart' }, half);
      const tail = await recall(engine, req, half);
      return joinContext(head, tail);
    });
    // Right after a start the engine is still opening: give the first recalls the time the hook
    // waits anyway (1.5 s at SessionStart, 0.8 s per prompt) rather than return nothing.
    const deadline = parts.engineIsOpen() ? config.recallDeadlineMs : Math.max(config.recallDeadlineMs, event === 'SessionStart' ? STARTUP_RECALL_MS.SessionStart : STARTUP_RECALL_MS.UserPromptSubmit);
    result = await withDeadline(work, deadline).catch((err: unknown) => {
      log.warn('recall failed', { err });
      return { text: '', count: 0 };
    });
    if (result) seen?.delivered();
    else if (opening && sessionId) recalled.returnOpening(sessionId);
  }
  const captured = await capture;
  const flags = { captured: captured.captured, ...(refused ? { capture_refused: true } : {}) };
  if (result === null) return { context: '', count: 0, timed_out: true, ...flags };
  return { context: result.text, count: result.count, ...flags };
}

/** A model still loading is not waited for by recall: full text answers meanwhile. */
function engineModelReady(embedder: Embedder | null): boolean {
  return embedder === null || embedder.state().status === 'ready';
}

/** Resolve with the value, or null when it is not there in time. */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(null), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
