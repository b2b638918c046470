/**
 * In-memory MemoryStore: the same contract as LanceStore with no IO. Exact vector search and an
 * in-memory BM25 index. Used by unit tests and anywhere durability is not wanted.
 */
import { currentRows, validAt, type PlannedRow } from '../bitemporal.js';
import { EngineError } from '../errors.js';
import { Bm25Index } from '../text/bm25.js';
import type { MemoryFilter, VersionRow } from '../types.js';
import { matchesFilter } from './filter.js';
import type { MaintenanceReport, MemoryStore, StoreHit, StoreSearch, StoreStats, VectorUpdate } from './types.js';
import { cosine } from '../vector.js';

export class InMemoryStore implements MemoryStore {
  readonly kind = 'memory' as const;
  private versions: VersionRow[] = [];
  private readonly byMemory = new Map<string, VersionRow[]>();
  private readonly current = new Map<string, VersionRow[]>();
  private readonly currentById = new Map<string, VersionRow>();
  private readonly text = new Bm25Index();
  private activeModel: string | null = null;
  private seq = 0;
  private opened = false;

  async open(): Promise<void> {
    this.opened = true;
  }

  async close(): Promise<void> {
    this.opened = false;
  }

  private check(): void {
    if (!this.opened) throw new EngineError('STORE_CLOSED', 'the store is closed');
  }

  async append(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    this.check();
    const stored: VersionRow[] = [];
    const touched = new Set<string>();
    for (const r of rows) {
      const row: VersionRow = { ...r, seq: ++this.seq, vector: r.vector ? Float32Array.from(r.vector) : null, metadata: structuredClone(r.metadata) };
      stored.push(row);
      this.versions.push(row);
      const list = this.byMemory.get(row.memory_id) ?? [];
      list.push(row);
      this.byMemory.set(row.memory_id, list);
      touched.add(row.memory_id);
    }
    for (const id of touched) this.refreshCurrent(id);
    return stored.map(cloneRow);
  }

  async rewrite(rows: readonly PlannedRow[]): Promise<VersionRow[]> {
    this.check();
    const byId = new Map(rows.map((r) => [r.version_id, r]));
    const stored = new Map<string, VersionRow>();
    const touched = new Set<string>();
    this.versions = this.versions.filter((v) => !byId.has(v.version_id) || byId.get(v.version_id)!.memory_id !== v.memory_id);
    for (const r of rows) {
      const row: VersionRow = { ...r, seq: ++this.seq, vector: r.vector ? Float32Array.from(r.vector) : null, metadata: structuredClone(r.metadata) };
      stored.set(row.version_id, row);
      this.versions.push(row);
      touched.add(row.memory_id);
    }
    for (const id of touched) {
      this.byMemory.set(id, (this.byMemory.get(id) ?? []).map((v) => stored.get(v.version_id) ?? v));
      this.refreshCurrent(id);
    }
    return [...stored.values()].map(cloneRow);
  }

  private refreshCurrent(memoryId: string): void {
    for (const old of this.current.get(memoryId) ?? []) {
      this.currentById.delete(old.version_id);
      this.text.remove(old.version_id);
    }
    const rows = currentRows(this.byMemory.get(memoryId) ?? []).map((r) => ({ ...r }));
    if (rows.length === 0) {
      this.current.delete(memoryId);
      return;
    }
    this.current.set(memoryId, rows);
    for (const r of rows) {
      this.currentById.set(r.version_id, r);
      this.text.add(r.version_id, r.content);
    }
  }

  async versionsOf(memoryIds: readonly string[]): Promise<VersionRow[]> {
    this.check();
    return [...new Set(memoryIds)]
      .sort()
      .flatMap((id) => [...(this.byMemory.get(id) ?? [])].sort((a, b) => a.version - b.version))
      .map(cloneRow);
  }

  async maxVersions(memoryIds: readonly string[]): Promise<Map<string, number>> {
    this.check();
    const out = new Map<string, number>();
    for (const id of memoryIds) {
      const rows = this.byMemory.get(id);
      if (rows && rows.length > 0) out.set(id, Math.max(...rows.map((r) => r.version)));
    }
    return out;
  }

  async currentOf(memoryIds: readonly string[]): Promise<VersionRow[]> {
    this.check();
    return [...new Set(memoryIds)].flatMap((id) => this.current.get(id) ?? []).map(cloneRow);
  }

  async list(filter: MemoryFilter, opts: { limit: number; beforeSeq?: number; validAt?: number }): Promise<VersionRow[]> {
    this.check();
    const rows = [...this.currentById.values()].filter(
      (r) => matchesFilter(r, filter) && (opts.beforeSeq === undefined || r.seq < opts.beforeSeq) && (opts.validAt === undefined || validAt(r, opts.validAt)),
    );
    rows.sort((a, b) => b.seq - a.seq);
    return rows.slice(0, opts.limit).map(cloneRow);
  }

  async count(filter: MemoryFilter): Promise<number> {
    this.check();
    const ids = new Set<string>();
    for (const r of this.currentById.values()) if (matchesFilter(r, filter)) ids.add(r.memory_id);
    return ids.size;
  }

  async completeTerm(prefix: string, limit: number): Promise<string[]> {
    this.check();
    return this.text.complete(prefix, limit);
  }

  async search(req: StoreSearch): Promise<StoreHit[]> {
    this.check();
    const pool: VersionRow[] =
      req.knownAt === undefined
        ? [...this.currentById.values()]
        : this.versions.filter((r) => !r.deleted && r.recorded_at <= req.knownAt!);
    const candidates = new Map<string, VersionRow>();
    for (const r of pool) if (validAt(r, req.validAt) && matchesFilter(r, req.filter)) candidates.set(r.version_id, r);
    let textScores: Map<string, number> | null = null;
    if (req.text) {
      if (req.knownAt === undefined) {
        textScores = this.text.score(req.text, (id) => candidates.has(id));
      } else {
        const idx = new Bm25Index();
        for (const r of candidates.values()) idx.add(r.version_id, r.content);
        textScores = idx.score(req.text);
      }
    }
    return exactHits(candidates, req, textScores);
  }

  async changes(afterSeq: number, limit: number): Promise<VersionRow[]> {
    this.check();
    return this.versions.filter((r) => r.seq > afterSeq && r.seq <= afterSeq + limit).map(cloneRow);
  }

  async purge(memoryIds: readonly string[]): Promise<number> {
    this.check();
    const ids = new Set(memoryIds);
    const before = this.versions.length;
    this.versions = this.versions.filter((r) => !ids.has(r.memory_id));
    for (const id of ids) {
      for (const r of this.current.get(id) ?? []) {
        this.currentById.delete(r.version_id);
        this.text.remove(r.version_id);
      }
      this.current.delete(id);
      this.byMemory.delete(id);
    }
    return before - this.versions.length;
  }

  async unembedded(model: string, limit: number): Promise<VersionRow[]> {
    this.check();
    const out: VersionRow[] = [];
    for (const r of this.currentById.values()) {
      if (r.embed_model !== model) out.push(cloneRow(r));
      if (out.length >= limit) break;
    }
    return out;
  }

  async setVectors(updates: readonly VectorUpdate[]): Promise<void> {
    this.check();
    for (const u of updates) {
      const r = this.currentById.get(u.version_id);
      if (!r) continue;
      r.vector = Float32Array.from(u.vector);
      r.embed_model = u.model;
    }
  }

  setActiveModel(model: string | null): void {
    this.activeModel = model;
  }

  async stats(): Promise<StoreStats> {
    let unembedded = 0;
    for (const r of this.currentById.values()) if (this.activeModel !== null && r.embed_model !== this.activeModel) unembedded++;
    return { versions: this.versions.length, current: this.currentById.size, unembedded, lastSeq: this.seq, vectorIndex: false, unindexed: 0 };
  }

  async maintain(): Promise<MaintenanceReport> {
    return { compacted: false, vectorIndexBuilt: false, ftsRefreshed: false, ms: 0 };
  }
}

/**
 * Both channels over candidate rows, exactly: the `limit` best by cosine (rows of the query's
 * model and length only) and the `limit` best of the given BM25 scores (null: no text channel).
 */
export function exactHits(candidates: ReadonlyMap<string, VersionRow>, req: Pick<StoreSearch, 'vector' | 'model' | 'limit'>, textScores: ReadonlyMap<string, number> | null): StoreHit[] {
  const hits = new Map<string, StoreHit>();
  if (req.vector) {
    const scored: [VersionRow, number][] = [];
    for (const r of candidates.values()) {
      if (!r.vector || r.embed_model !== req.model || r.vector.length !== req.vector.length) continue;
      scored.push([r, cosine(req.vector, r.vector)]);
    }
    scored.sort((a, b) => b[1] - a[1]);
    for (const [r, s] of scored.slice(0, req.limit)) hits.set(r.version_id, { row: cloneRow(r), vectorScore: s, textScore: null });
  }
  if (textScores) {
    const top = [...textScores].sort((a, b) => b[1] - a[1]).slice(0, req.limit);
    for (const [id, s] of top) {
      const hit = hits.get(id);
      if (hit) hit.textScore = s;
      else hits.set(id, { row: cloneRow(candidates.get(id)!), vectorScore: null, textScore: s });
    }
  }
  return [...hits.values()];
}

/** A copy of a row that shares nothing mutable with it. */
export function cloneRow(r: VersionRow): VersionRow {
  return { ...r, metadata: structuredClone(r.metadata), source: { ...r.source }, block: r.block ? { ...r.block } : null, vector: r.vector ? Float32Array.from(r.vector) : null };
}
