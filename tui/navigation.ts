/**
 * Which screen is shown and what is selected, and what each key does: a pure function from
 * (state, key, what is on screen) to the next state and at most one effect for the app to carry
 * out (pause, forget, quit…). Every feature is reachable from the keyboard through here.
 */
import { nextScope, type SearchScope } from './search-model.js';

export type Screen = 'dashboard' | 'search' | 'detail' | 'recent' | 'help';

export interface NavState {
  screen: Screen;
  /** Row of the capture panel: 0 is "all sessions". */
  sessionIndex: number;
  query: string;
  scope: SearchScope | null;
  resultIndex: number;
  detailId: string | null;
  confirmForget: boolean;
  historyOffset: number;
  /** Row of the recent memories list. */
  recentIndex: number;
  /** The list a memory's details were opened from (esc goes back to it). */
  detailFrom: 'search' | 'recent';
  /** The screen the help screen was opened from. */
  helpFrom: Screen;
}

export const INITIAL_NAV: NavState = { screen: 'dashboard', sessionIndex: 0, query: '', scope: null, resultIndex: 0, detailId: null, confirmForget: false, historyOffset: 0, recentIndex: 0, detailFrom: 'search', helpFrom: 'dashboard' };

/** What is on screen, as far as keys care. */
export interface KeyContext {
  connection: 'connecting' | 'up' | 'down';
  sessions: { sessionId: string | null; ownPause: boolean; repoPause?: boolean }[];
  globalPaused: boolean;
  resultIds: string[];
  /** Memories of the recent memories list, newest first. */
  recentIds: string[];
  searchedScope: string | null;
  historyLength: number;
  canStartDaemon: boolean;
}

export type PauseTarget = { all: true } | { session_id: string };

export type Effect =
  | { type: 'quit' }
  | { type: 'pause'; target: PauseTarget }
  | { type: 'resume'; target: PauseTarget }
  | { type: 'forget'; id: string }
  | { type: 'start-daemon' }
  | { type: 'notice'; text: string };

/** The parts of Ink's Key that matter here. */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
}

export interface KeyResult {
  state: NavState;
  effect?: Effect;
}

export function clampIndex(i: number, length: number): number {
  return Math.max(0, Math.min(i, length - 1));
}

const up = (input: string, key: KeyPress): boolean => Boolean(key.upArrow) || (key.ctrl === true && input === 'p');
const down = (input: string, key: KeyPress): boolean => Boolean(key.downArrow) || (key.ctrl === true && input === 'n');

function toggleAll(ctx: KeyContext): Effect {
  return { type: ctx.globalPaused ? 'resume' : 'pause', target: { all: true } };
}

const openHelp = (s: NavState): KeyResult => ({ state: { ...s, screen: 'help', helpFrom: s.screen } });
const openDetail = (s: NavState, id: string, from: NavState['detailFrom']): KeyResult => ({ state: { ...s, screen: 'detail', detailId: id, detailFrom: from, confirmForget: false, historyOffset: 0 } });

function dashboardKey(s: NavState, input: string, key: KeyPress, ctx: KeyContext): KeyResult {
  const rows = Math.max(1, ctx.sessions.length);
  if (input === '/') return { state: { ...s, screen: 'search', resultIndex: 0 } };
  if (input === '?') return openHelp(s);
  if (input === 'r') return { state: { ...s, screen: 'recent', recentIndex: 0 } };
  if (input === 'q') return { state: s, effect: { type: 'quit' } };
  if (up(input, key) || input === 'k') return { state: { ...s, sessionIndex: clampIndex(s.sessionIndex - 1, rows) } };
  if (down(input, key) || input === 'j') return { state: { ...s, sessionIndex: clampIndex(s.sessionIndex + 1, rows) } };
  if (input === 'a') return { state: s, effect: toggleAll(ctx) };
  if (input === 'p') {
    const row = ctx.sessions[clampIndex(s.sessionIndex, rows)];
    if (!row || row.sessionId === null) return { state: s, effect: toggleAll(ctx) };
    if (ctx.globalPaused && !row.ownPause) return { state: s, effect: { type: 'notice', text: 'capture is paused for all sessions: press a to resume all' } };
    if (row.repoPause && !row.ownPause) return { state: s, effect: { type: 'notice', text: 'capture is paused for its whole repository: run service resume in that repository' } };
    return { state: s, effect: { type: row.ownPause ? 'resume' : 'pause', target: { session_id: row.sessionId } } };
  }
  return { state: s };
}

/** Printable text typed or pasted (no control characters). */
function typed(input: string, key: KeyPress): string {
  if (key.ctrl || key.meta || !input) return '';
  return [...input].filter((c) => c >= ' ' && c !== '\u007f').join('');
}

function searchKey(s: NavState, input: string, key: KeyPress, ctx: KeyContext): KeyResult {
  if (key.escape) return { state: { ...s, screen: 'dashboard' } };
  if (key.return) {
    const id = ctx.resultIds[clampIndex(s.resultIndex, ctx.resultIds.length)];
    return id ? openDetail(s, id, 'search') : { state: s };
  }
  if (up(input, key)) return { state: { ...s, resultIndex: clampIndex(s.resultIndex - 1, ctx.resultIds.length) } };
  if (down(input, key)) return { state: { ...s, resultIndex: clampIndex(s.resultIndex + 1, ctx.resultIds.length) } };
  if (key.tab) return { state: { ...s, scope: nextScope(s.scope ?? ctx.searchedScope), resultIndex: 0 } };
  if (key.backspace || key.delete) return { state: { ...s, query: s.query.slice(0, -1), resultIndex: 0 } };
  if (key.ctrl && input === 'u') return { state: { ...s, query: '', resultIndex: 0 } };
  const text = typed(input, key);
  return text ? { state: { ...s, query: s.query + text, resultIndex: 0 } } : { state: s };
}

function detailKey(s: NavState, input: string, key: KeyPress, ctx: KeyContext): KeyResult {
  if (s.confirmForget) {
    if ((input === 'y' || input === 'Y') && s.detailId) return { state: { ...s, confirmForget: false }, effect: { type: 'forget', id: s.detailId } };
    if (input === 'n' || input === 'N' || key.escape) return { state: { ...s, confirmForget: false } };
    return { state: s };
  }
  if (input === 'f') return { state: { ...s, confirmForget: true } };
  if (input === 'q') return { state: s, effect: { type: 'quit' } };
  if (input === '?') return openHelp(s);
  if (key.escape || key.leftArrow || key.backspace || key.delete) return { state: { ...s, screen: s.detailFrom, detailId: null } };
  if (up(input, key)) return { state: { ...s, historyOffset: clampIndex(s.historyOffset - 1, ctx.historyLength) } };
  if (down(input, key)) return { state: { ...s, historyOffset: clampIndex(s.historyOffset + 1, ctx.historyLength) } };
  return { state: s };
}

/** The recent memories list: newest first; enter opens one, esc goes back to the dashboard. */
function recentKey(s: NavState, input: string, key: KeyPress, ctx: KeyContext): KeyResult {
  const n = ctx.recentIds.length;
  if (key.escape || key.leftArrow || input === 'r') return { state: { ...s, screen: 'dashboard' } };
  if (input === 'q') return { state: s, effect: { type: 'quit' } };
  if (input === '?') return openHelp(s);
  if (input === '/') return { state: { ...s, screen: 'search', resultIndex: 0 } };
  if (up(input, key) || input === 'k') return { state: { ...s, recentIndex: clampIndex(s.recentIndex - 1, n) } };
  if (down(input, key) || input === 'j') return { state: { ...s, recentIndex: clampIndex(s.recentIndex + 1, n) } };
  if (key.return) {
    const id = ctx.recentIds[clampIndex(s.recentIndex, n)];
    return id ? openDetail(s, id, 'recent') : { state: s };
  }
  return { state: s };
}

/** The help screen: esc or ? goes back to where it was opened, q quits. */
function helpKey(s: NavState, input: string, key: KeyPress): KeyResult {
  if (input === 'q') return { state: s, effect: { type: 'quit' } };
  if (key.escape || input === '?' || key.leftArrow || key.return) return { state: { ...s, screen: s.helpFrom === 'help' ? 'dashboard' : s.helpFrom } };
  return { state: s };
}

/**
 * The keystrokes in one read of the terminal. Keys typed faster than the screen reads them (or
 * sent together) arrive as one string: outside the search field each character is its own
 * command; in the search field the string is text (a paste).
 */
export function keystrokes(s: NavState, input: string, key: KeyPress): string[] {
  const special = key.ctrl || key.meta || key.return || key.escape || key.tab || key.upArrow || key.downArrow;
  if (input.length <= 1 || special || (s.screen === 'search' && !s.confirmForget)) return [input];
  return [...input];
}

export function handleKey(s: NavState, input: string, key: KeyPress, ctx: KeyContext): KeyResult {
  if (ctx.connection !== 'up') {
    if (input === 'q') return { state: s, effect: { type: 'quit' } };
    if (input === 's' && ctx.canStartDaemon) return { state: s, effect: { type: 'start-daemon' } };
    return { state: s };
  }
  if (s.screen === 'search') return searchKey(s, input, key, ctx);
  if (s.screen === 'detail') return detailKey(s, input, key, ctx);
  if (s.screen === 'recent') return recentKey(s, input, key, ctx);
  if (s.screen === 'help') return helpKey(s, input, key);
  return dashboardKey(s, input, key, ctx);
}
