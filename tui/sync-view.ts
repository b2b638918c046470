/**
 * The sync line of the dashboard, from the `sync` section of `GET /v1/status`. The section is
 * optional: a daemon without one (or with sync turned off) shows "off". It is read defensively:
 *
 *   sync?: { enabled?: boolean, state?: 'off'|'idle'|'in_sync'|'syncing'|'backlog'|'offline'|'error',
 *            server?|base_url?: string, outbox?|pending?|backlog?: number,
 *            last_sync_at?|last_push_at?|last_pull_at?: string, last_error?: {at, message}|string|null }
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

function firstNumber(o: Obj, keys: string[]): number {
  for (const k of keys) if (typeof o[k] === 'number' && Number.isFinite(o[k])) return o[k] as number;
  return 0;
}

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

export function syncLine(raw: unknown, now: number): SyncLine {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { state: 'off', text: 'off (local only)', tone: 'muted' };
  const s = raw as Obj;
  const state = typeof s.state === 'string' ? s.state : typeof s.status === 'string' ? s.status : null;
  if (s.enabled === false || state === 'off' || state === 'disabled') return { state: 'off', text: 'off (local only)', tone: 'muted' };
  const server = firstString(s, ['server', 'base_url', 'url']);
  const backlog = firstNumber(s, ['outbox', 'pending', 'backlog']);
  const last = firstString(s, ['last_sync_at', 'last_sync', 'last_push_at', 'last_pull_at']);
  const err = errorOf(s.last_error ?? s.error);
  const where = server ? ` with ${server.replace(/^https?:\/\//, '')}` : '';
  const lastText = last ? ` · last sync ${formatAge(last, now)}` : '';
  const waiting = backlog > 0 ? ` · ${formatCount(backlog)} waiting` : '';
  if (state === 'error' || (err && state !== 'in_sync' && state !== 'syncing')) {
    return { state: 'error', text: `error: ${err?.message ?? 'sync failed'}${err?.at ? ` (${formatAge(err.at, now)})` : ''}${waiting}`, tone: 'error' };
  }
  if (state === 'offline') return { state: 'offline', text: `offline, will retry${waiting}${lastText}`, tone: 'warn' };
  if (state === 'syncing') return { state: 'syncing', text: `syncing${where}${waiting}`, tone: 'accent' };
  if (backlog > 0 || state === 'backlog') return { state: 'backlog', text: `backlog${where}${waiting || ' · versions waiting'}${lastText}`, tone: 'warn' };
  return { state: 'in sync', text: `in sync${where}${lastText}`, tone: 'ok' };
}
