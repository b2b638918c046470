/** The four retrieval scopes (DESIGN.md §4) as filters. */
import { EngineError } from '../errors.js';
import type { MemoryFilter, Scope } from '../types.js';

export interface ScopeContext {
  user_id?: string | null | undefined;
  repo?: string | null | undefined;
  dir?: string | null | undefined;
  run_id?: string | null | undefined;
}

/**
 * Project memories of one repository plus the project-wide ones (no repo: written through the
 * REST API, or by a teammate outside any repository): a daemon belongs to one project, so a
 * memory with no repo is about every repository of it.
 */
export function repoScope(repo: string): MemoryFilter {
  return { space: 'project', any_of: [{ repo }, { repo: null }] };
}

/**
 * - repo: project memories of the current repo, and the project's memories with no repo
 * - dir: memories of the current repo captured in the current directory
 * - user: the user's personal memories, in every repo
 * - session: memories of the current run (agent session)
 */
export function scopeFilter(scope: Scope, ctx: ScopeContext): MemoryFilter {
  const need = (field: keyof ScopeContext): string => {
    const v = ctx[field];
    if (typeof v !== 'string' || v === '') {
      throw new EngineError('VALIDATION', `scope "${scope}" needs ${field}; pass ${field} or choose another scope`, { field, scope });
    }
    return v;
  };
  switch (scope) {
    case 'repo':
      return repoScope(need('repo'));
    case 'dir':
      return { repo: need('repo'), dir: need('dir') };
    case 'user':
      return { space: 'personal', user_id: need('user_id') };
    case 'session':
      return { run_id: need('run_id') };
  }
}

/** Combine two filters; a field set in both must satisfy both (conflicting values match nothing). */
export function mergeFilters(a: MemoryFilter, b: MemoryFilter): MemoryFilter {
  const out: MemoryFilter = { ...a };
  for (const [k, v] of Object.entries(b) as [keyof MemoryFilter, unknown][]) {
    if (v === undefined) continue;
    const existing = out[k];
    if (existing === undefined) {
      (out as Record<string, unknown>)[k] = v;
      continue;
    }
    if (k === 'metadata') {
      out.metadata = { ...(existing as Record<string, never>), ...(v as Record<string, never>) };
      continue;
    }
    if (k === 'any_of') {
      // (A1 or A2) and (B1 or B2) = (A1 and (B1 or B2)) or (A2 and (B1 or B2))
      const inner = v as MemoryFilter[];
      out.any_of = (existing as MemoryFilter[]).map((a) => mergeFilters(a, { any_of: inner }));
      continue;
    }
    if (k === 'created_at' || k === 'updated_at') {
      out[k] = { ...(existing as object), ...(v as object) };
      continue;
    }
    const asList = (x: unknown): unknown[] => (Array.isArray(x) ? x : [x]);
    const inter = asList(existing).filter((x) => asList(v).includes(x));
    (out as Record<string, unknown>)[k] = inter.length === 1 ? inter[0] : inter;
  }
  return out;
}
