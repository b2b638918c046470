/**
 * Vectors live only in the current view (see lance-rows.ts): versions read from the log get the
 * vector of the current row with the same version_id, so a write that keeps a memory's text
 * (an update of its metadata, a sync renumbering) keeps its vector without embedding it again.
 */
import type * as lancedb from '@lancedb/lancedb';
import type { VersionRow } from '../types.js';
import { sqlString } from './lance-filter.js';
import { toFloat32, type LanceRecord } from './lance-rows.js';

const IN_CHUNK = 500;

export interface HeldVector {
  vector: Float32Array;
  model: string | null;
}

/** Vectors of the current view's rows of these memories, by version_id. */
export async function viewVectors(current: lancedb.Table, memoryIds: readonly string[]): Promise<Map<string, HeldVector>> {
  const out = new Map<string, HeldVector>();
  const ids = [...new Set(memoryIds)];
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const records = (await current
      .query()
      .where(`memory_id IN (${ids.slice(i, i + IN_CHUNK).map(sqlString).join(', ')}) AND embed_model IS NOT NULL`)
      .select(['version_id', 'vector', 'embed_model'])
      .toArray()) as LanceRecord[];
    for (const r of records) {
      const vector = toFloat32(r.vector);
      if (vector) out.set(String(r.version_id), { vector, model: r.embed_model === null || r.embed_model === undefined ? null : String(r.embed_model) });
    }
  }
  return out;
}

/** Rows with the vectors given by version_id (rows already carrying one keep it). */
export function withVectors(rows: VersionRow[], held: ReadonlyMap<string, HeldVector>): VersionRow[] {
  return rows.map((r) => {
    if (r.vector) return r;
    const h = held.get(r.version_id);
    return h ? { ...r, vector: h.vector, embed_model: h.model } : r;
  });
}

/** Rows taking vector and model from `fresh` (rows just written) wherever it has the same version_id. */
export function overlayFresh(rows: VersionRow[], fresh: readonly VersionRow[]): VersionRow[] {
  const byId = new Map(fresh.map((r) => [r.version_id, r]));
  return rows.map((r) => {
    const f = byId.get(r.version_id);
    return f ? { ...r, vector: f.vector, embed_model: f.embed_model } : r;
  });
}
