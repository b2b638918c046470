/**
 * What replication (sync) may do to a store while it holds the engine's write lock
 * (`MemoryEngine.replicate`): read versions, append versions exactly as another replica numbered
 * them, and rewrite its own versions' numbering. Every call checks that (memory_id, version) stays
 * unique and that version ids are neither duplicated nor invented, so a bug in a caller cannot
 * corrupt a memory's current view.
 */
import type { PlannedRow } from './bitemporal.js';
import { EngineError } from './errors.js';
import type { MemoryStore } from './store/types.js';
import type { VersionRow } from './types.js';

export interface ReplicaWriter {
  /** Every version of these memories as stored now, ordered by (memory_id, version). */
  versionsOf(memoryIds: readonly string[]): Promise<VersionRow[]>;
  /** Append rows with their own ids, numbers and times (vectors are computed here). */
  append(rows: readonly PlannedRow[]): Promise<VersionRow[]>;
  /** Replace stored versions of the same ids (MemoryStore.rewrite); vectors given are kept. */
  rewrite(rows: readonly PlannedRow[]): Promise<VersionRow[]>;
}

export interface ReplicaDeps {
  store: MemoryStore;
  /** Fill missing vectors (may leave them null when no model is ready). */
  embed(rows: PlannedRow[]): Promise<void>;
  /** Tell change listeners about committed rows. */
  emit(rows: readonly VersionRow[]): void;
}

export function replicaWriter(deps: ReplicaDeps): ReplicaWriter {
  const { store } = deps;
  return {
    versionsOf: (ids) => store.versionsOf(ids),

    async append(rows) {
      if (rows.length === 0) return [];
      const existing = await store.versionsOf([...new Set(rows.map((r) => r.memory_id))]);
      const ids = new Set(existing.map((r) => r.version_id));
      const taken = new Set(existing.map(numberKey));
      for (const r of rows) {
        if (ids.has(r.version_id)) throw new EngineError('CONFLICT', `version ${r.version_id} is already stored`, { version_id: r.version_id });
        if (taken.has(numberKey(r))) throw new EngineError('CONFLICT', `memory ${r.memory_id} already has a version ${r.version}`, { memory_id: r.memory_id, version: r.version });
        ids.add(r.version_id);
        taken.add(numberKey(r));
      }
      const planned = [...rows].sort(byMemoryVersion).map((r) => ({ ...r }));
      await deps.embed(planned.filter((r) => !r.deleted));
      const stored = await store.append(planned);
      deps.emit(stored);
      return stored;
    },

    async rewrite(rows) {
      if (rows.length === 0) return [];
      const existing = await store.versionsOf([...new Set(rows.map((r) => r.memory_id))]);
      const byId = new Map(existing.map((r) => [r.version_id, r]));
      const replaced = new Map<string, PlannedRow>();
      for (const r of rows) {
        const old = byId.get(r.version_id);
        if (!old || old.memory_id !== r.memory_id) throw new EngineError('NOT_FOUND', `version ${r.version_id} of memory ${r.memory_id} is not stored here`, { version_id: r.version_id });
        if (replaced.has(r.version_id)) throw new EngineError('CONFLICT', `version ${r.version_id} is rewritten twice`, { version_id: r.version_id });
        replaced.set(r.version_id, r);
      }
      const taken = new Set<string>();
      for (const r of existing) {
        const key = numberKey(replaced.get(r.version_id) ?? r);
        if (taken.has(key)) throw new EngineError('CONFLICT', `rewriting would give memory ${r.memory_id} two versions ${key.split(':')[1]}`, { memory_id: r.memory_id });
        taken.add(key);
      }
      const planned = rows.map((r) => {
        const old = byId.get(r.version_id)!;
        // Same text, same vector: a rewrite only moves bookkeeping, never re-embeds.
        return r.vector === null && r.content_hash === old.content_hash ? { ...r, vector: old.vector, embed_model: old.embed_model } : { ...r };
      });
      await deps.embed(planned.filter((r) => !r.deleted && r.vector === null));
      const stored = await store.rewrite(planned);
      deps.emit(stored);
      return stored;
    },
  };
}

function numberKey(r: Pick<VersionRow, 'memory_id' | 'version'>): string {
  return `${r.memory_id}:${r.version}`;
}

function byMemoryVersion(a: PlannedRow, b: PlannedRow): number {
  return a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : a.version - b.version;
}
