/**
 * The sync line of the dashboard, from the `sync` section of `GET /v1/status` (sync/status.ts):
 *
 *   sync: { enabled, reason, state: 'off'|'starting'|'idle'|'syncing'|'backoff'|'blocked'|'stopped',
 *           server, reachable, last_ok_at, last_error: {at, message}|null,
 *           backlog: {versions, purges}, parked: {versions} }
 *
 * A daemon without the section shows "off". Fields are read defensively: a missing one never breaks
 * the screen.
 */
import { formatAge, formatCount } from './format.js';
import type { Tone } from './theme.js';

export interface SyncLine {
  /** off | in sync | syncing | backlog | offline | error */
  state: string;
  text: string;
  tone: Tone;
}

type Obj = Record<string, unknown>;

function firstString(o: Obj, keys: string[]): string | null {
  for (const k of keys) if (typeof o[k] === 'string' && o[k] !== '') return o[k] as string;
  return null;
}

function errorOf(v: unknown): { message: string; at: string | null } | null {
  if (typeof v === 'string' && v) return { message: v, at: null };
  if (v && typeof v === 'object') {
    const e = v as Obj;
    if (typeof e.message === 'string' && e.message) return { message: e.message, at: typeof e.at === 'string' ? e.at : null };
  }
  return null;
}

function count(v: unknown, key: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (v && typeof v === 'object' && typeof (v as Obj)[key] === 'number') return (v as Obj)[key] as number;
  return 0;
}

export function syncLine(raw: unknown, now: number): SyncLine {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { state: 'off', text: 'off (local only)', tone: 'muted' };
  const s = raw as Obj;
  const state = typeof s.state === 'string' ? s.state : null;
  if (s.enabled === false || state === 'off') return { state: 'off', text: 'off (local only)', tone: 'muted' };
  const server = firstString(s, ['server']);
  const backlogObj = s.backlog as Obj | number | undefined;
  const backlog = count(backlogObj, 'versions') + count(backlogObj, 'purges');
  const parked = count(s.parked, 'versions');
  const last = firstString(s, ['last_ok_at']);
  const err = errorOf(s.last_error);
  const where = server ? ` with ${server.replace(/^https?:\/\//, '')}` : '';
  const lastText = last ? ` · last sync ${formatAge(last, now)}` : '';
  const waiting = backlog > 0 ? ` · ${formatCount(backlog)} waiting` : '';
  const parkedText = parked > 0 ? ` · ${formatCount(parked)} parked` : '';
  if (state === 'blocked') return { state: 'error', text: `stopped: ${err?.message ?? 'the server refused this key'}${waiting}`, tone: 'error' };
  if (state === 'backoff') {
    const why = s.reachable === false ? 'offline' : `error: ${err?.message ?? 'sync failed'}`;
    return { state: s.reachable === false ? 'offline' : 'error', text: `${why}, will retry${waiting}${lastText}`, tone: s.reachable === false ? 'warn' : 'error' };
  }
  if (state === 'syncing' || state === 'starting') return { state: 'syncing', text: `syncing${where}${waiting}`, tone: 'accent' };
  if (backlog > 0) return { state: 'backlog', text: `backlog${where}${waiting}${parkedText}${lastText}`, tone: 'warn' };
  if (parked > 0) return { state: 'in sync', text: `in sync${where}${parkedText}${lastText}`, tone: 'warn' };
  return { state: 'in sync', text: `in sync${where}${lastText}`, tone: 'ok' };
}
