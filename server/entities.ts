/**
 * Entities of a project: the users, agents, apps and runs its memories name, with how many
 * memories each has now (tombstoned ones excluded) and when it was first and last active. Derived
 * from the current view, one scan per change of the project (cached by event-log head), then
 * filtered per caller so personal memories count only for their owner.
 */
import type { MemoryEngine, MemoryFilter, VersionRow } from '../engine/index.js';

export const ENTITY_TYPES = ['user', 'agent', 'app', 'run'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
export const ENTITY_FIELD: Record<EntityType, 'user_id' | 'agent_id' | 'app_id' | 'run_id'> = { user: 'user_id', agent: 'agent_id', app: 'app_id', run: 'run_id' };

export interface Entity {
  type: EntityType;
  id: string;
  memories: number;
  first_seen: string;
  last_activity: string;
}

/** What the scan keeps of a current row. */
type Slim = Pick<VersionRow, 'memory_id' | 'user_id' | 'agent_id' | 'app_id' | 'run_id' | 'space' | 'owner_id' | 'created_at' | 'recorded_at'>;

const SCAN_PAGE = 1000;

export class EntityIndex {
  private cached: { head: number; rows: Slim[] } | null = null;

  constructor(private readonly engine: MemoryEngine) {}

  private async scan(head: number): Promise<Slim[]> {
    if (this.cached?.head === head) return this.cached.rows;
    const rows: Slim[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await this.engine.store.list({}, { limit: SCAN_PAGE, beforeSeq: before });
      if (page.length === 0) break;
      for (const r of page) rows.push({ memory_id: r.memory_id, user_id: r.user_id, agent_id: r.agent_id, app_id: r.app_id, run_id: r.run_id, space: r.space, owner_id: r.owner_id, created_at: r.created_at, recorded_at: r.recorded_at });
      before = page[page.length - 1]!.seq;
    }
    this.cached = { head, rows };
    return rows;
  }

  /** Every entity `viewer` can see, most recently active first. `head` versions the cache. */
  async list(head: number, viewer: string): Promise<Entity[]> {
    const byKey = new Map<string, { type: EntityType; id: string; memories: Set<string>; first: number; last: number }>();
    for (const r of await this.scan(head)) {
      if (r.space === 'personal' && r.owner_id !== viewer) continue;
      for (const type of ENTITY_TYPES) {
        const id = r[ENTITY_FIELD[type]];
        if (id === null) continue;
        const k = `${type}\u0000${id}`;
        let e = byKey.get(k);
        if (!e) byKey.set(k, (e = { type, id, memories: new Set(), first: r.created_at, last: r.recorded_at }));
        e.memories.add(r.memory_id);
        e.first = Math.min(e.first, r.created_at);
        e.last = Math.max(e.last, r.recorded_at);
      }
    }
    return [...byKey.values()]
      .sort((a, b) => b.last - a.last || (a.type < b.type ? -1 : a.type > b.type ? 1 : a.id < b.id ? -1 : 1))
      .map((e) => ({ type: e.type, id: e.id, memories: e.memories.size, first_seen: new Date(e.first).toISOString(), last_activity: new Date(e.last).toISOString() }));
  }

  /**
   * Ids of the memories an entity delete affects: current ones for a tombstone; for a purge, every
   * memory with any version naming the entity (tombstoned ones too: erasure means all of it).
   */
  async memoriesOf(type: EntityType, id: string, readFilter: MemoryFilter, purge: boolean): Promise<string[]> {
    const filter: MemoryFilter = { ...readFilter, [ENTITY_FIELD[type]]: id };
    const ids = new Set<string>();
    if (purge) {
      for await (const line of this.engine.exportLines(filter)) ids.add(line.memory_id);
      return [...ids];
    }
    let before: number | undefined;
    for (;;) {
      const page = await this.engine.store.list(filter, { limit: SCAN_PAGE, beforeSeq: before });
      if (page.length === 0) break;
      for (const r of page) ids.add(r.memory_id);
      before = page[page.length - 1]!.seq;
    }
    return [...ids];
  }
}
