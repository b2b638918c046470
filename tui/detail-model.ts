/** One memory's details and version history, as display lines. */
import type { MemoryResult } from '../daemon/client.js';
import { formatAge, scopeLabel } from './format.js';

export type MemoryVersion = MemoryResult & { event: string; recorded_at: string; superseded_at: string | null; deleted?: boolean };

export interface DetailModel {
  id: string;
  title: string;
  content: string;
  fields: { label: string; value: string }[];
  history: { version: string; event: string; when: string; state: string; content: string }[];
}

function day(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 16).replace('T', ' ') : '';
}

function sourceText(source: Record<string, unknown>): string {
  const kind = typeof source.kind === 'string' ? source.kind : 'unknown';
  const parts = [kind];
  if (typeof source.session_id === 'string' && source.session_id) parts.push(`session ${source.session_id.slice(0, 8)}`);
  if (typeof source.tool === 'string' && source.tool) parts.push(`tool ${source.tool}`);
  return parts.join(' · ');
}

export function detailModel(m: MemoryResult, versions: MemoryVersion[], now: number): DetailModel {
  const valid = `${day(m.valid_from)} → ${m.valid_to ? day(m.valid_to) : 'open'}`;
  return {
    id: m.memory_id,
    title: `${m.category} · ${scopeLabel(m)} · v${m.version}`,
    content: m.content,
    fields: [
      { label: 'id', value: m.memory_id },
      { label: 'where', value: [m.repo ?? (m.space === 'personal' ? 'every repository' : ''), m.dir && m.dir !== '.' ? m.dir : ''].filter(Boolean).join(' · ') || '-' },
      { label: 'recorded', value: `${day(m.updated_at)} (${formatAge(m.updated_at, now)}) · created ${day(m.created_at)}` },
      { label: 'valid', value: valid },
      { label: 'source', value: sourceText(m.source ?? {}) },
    ],
    history: versions.map((v) => ({
      version: `v${v.version}`,
      event: v.event,
      when: day(v.recorded_at),
      state: v.superseded_at ? `until ${day(v.superseded_at)}` : 'current',
      content: v.deleted || v.event === 'DELETE' ? '(forgotten)' : v.content.replace(/\s+/g, ' ').trim(),
    })),
  };
}
