/** Search results as the dashboard shows them: one row per hit, and a hint when there are none. */
import type { LocalSearchHit } from '../daemon/client.js';
import { formatAge, formatCount, scopeLabel } from './format.js';

/** One hit of `POST /v1/local/search`. */
export type SearchHit = LocalSearchHit;

export interface ResultRow {
  id: string;
  score: string;
  category: string;
  scope: string;
  age: string;
  content: string;
}

export const SEARCH_SCOPES = ['repo', 'dir', 'user', 'session'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

/** A row of a memory list: a search hit, or a listed memory (no score). */
export function resultRow(h: Pick<SearchHit, 'memory_id' | 'content' | 'category' | 'space' | 'repo' | 'updated_at'> & { score?: number | undefined }, now: number): ResultRow {
  return {
    id: h.memory_id,
    score: typeof h.score === 'number' ? h.score.toFixed(2) : '    ',
    category: h.category,
    scope: scopeLabel(h),
    age: formatAge(h.updated_at, now),
    content: h.content.replace(/\s+/g, ' ').trim(),
  };
}

/** The scope after `scope` (Tab), wrapping around. */
export function nextScope(scope: string | null): SearchScope {
  const i = SEARCH_SCOPES.indexOf(scope as SearchScope);
  return SEARCH_SCOPES[(i + 1) % SEARCH_SCOPES.length]!;
}

/** What to say when a search found nothing: where else there are memories. */
export function emptyHint(scope: string, repo: string | null, otherScopes: Record<string, number | null>): string {
  const here = scope === 'repo' || scope === 'dir' ? ` (${repo ?? 'no repository here'})` : '';
  const others = Object.entries(otherScopes)
    .filter(([s, n]) => s !== scope && typeof n === 'number' && n > 0)
    .map(([s, n]) => `${s} ${formatCount(n!)}`);
  return `No matches in scope ${scope}${here}.${others.length > 0 ? ` Other scopes hold ${others.join(', ')}: press tab to switch.` : ''}`;
}
