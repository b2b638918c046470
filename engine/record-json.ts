/** The wire shape of memories and versions: ISO-8601 UTC timestamps, no vectors. */
import type { MemoryVersion, VersionRow } from './types.js';

export function iso(t: number | null): string | null {
  return t === null ? null : new Date(t).toISOString();
}

export interface MemoryJson {
  memory_id: string;
  version: number;
  content: string;
  user_id: string;
  agent_id: string | null;
  app_id: string | null;
  run_id: string | null;
  space: string;
  repo: string | null;
  dir: string | null;
  category: string;
  metadata: Record<string, unknown>;
  source: Record<string, unknown>;
  valid_from: string;
  valid_to: string | null;
  created_at: string;
  updated_at: string;
  block: { group_id: string; index: number; count: number } | null;
}

export function memoryJson(row: Omit<VersionRow, 'vector'> | VersionRow): MemoryJson {
  return {
    memory_id: row.memory_id,
    version: row.version,
    content: row.content,
    user_id: row.user_id,
    agent_id: row.agent_id,
    app_id: row.app_id,
    run_id: row.run_id,
    space: row.space,
    repo: row.repo,
    dir: row.dir,
    category: row.category,
    metadata: row.metadata,
    source: { ...row.source },
    valid_from: iso(row.valid_from)!,
    valid_to: iso(row.valid_to),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.recorded_at)!,
    block: row.block,
  };
}

export interface VersionJson extends MemoryJson {
  version_id: string;
  tx: number;
  event: string;
  deleted: boolean;
  recorded_at: string;
  superseded_at: string | null;
  content_hash: string;
}

export function versionJson(v: MemoryVersion): VersionJson {
  return {
    ...memoryJson(v),
    version_id: v.version_id,
    tx: v.tx,
    event: v.event,
    deleted: v.deleted,
    recorded_at: iso(v.recorded_at)!,
    superseded_at: iso(v.superseded_at),
    content_hash: v.content_hash,
  };
}

/**
 * One line of an export: a version row exactly as stored (minus the vector, which is derived and
 * recomputed on import), so an import restores the same history.
 */
export interface ExportLine {
  kind: 'version';
  version_id: string;
  memory_id: string;
  version: number;
  tx: number;
  content: string;
  content_hash: string;
  user_id: string;
  agent_id: string | null;
  app_id: string | null;
  run_id: string | null;
  owner_id: string | null;
  space: string;
  repo: string | null;
  dir: string | null;
  category: string;
  metadata: Record<string, unknown>;
  source: Record<string, unknown>;
  valid_from: string;
  valid_to: string | null;
  recorded_at: string;
  created_at: string;
  deleted: boolean;
  block: { group_id: string; index: number; count: number } | null;
}

export function exportLine(row: VersionRow): ExportLine {
  const { updated_at: _updated, ...shared } = memoryJson(row);
  return {
    ...shared,
    kind: 'version',
    version_id: row.version_id,
    tx: row.tx,
    content_hash: row.content_hash,
    owner_id: row.owner_id,
    recorded_at: iso(row.recorded_at)!,
    deleted: row.deleted,
  };
}
