/**
 * The rows each kind of write appends, planned against the write queue's view of the batch
 * (write-queue.ts): a new memory's first version, an update, a forget, a restore. `stamp` gives
 * the write's transaction time; it is taken once the memory's current rows are read.
 */
import { planChange, planCorrection, planDelete, representative, transactions, type PlannedRow } from './bitemporal.js';
import type { AddInput, PatchInput } from './engine-types.js';
import { EngineError, notFound } from './errors.js';
import { uuidv7 } from './ids.js';
import type { MemoryStore } from './store/types.js';
import { contentHash } from './text/content.js';
import type { Metadata } from './types.js';
import type { BatchView } from './write-queue.js';

/** One block of an add: its text and place in the group (`groupId` null for a single block). */
export interface AddBlock {
  text: string;
  index: number;
  count: number;
  groupId: string | null;
  /** Already checked and redacted. */
  metadata: Metadata;
}

export async function planAdd(view: BatchView, input: AddInput, block: AddBlock, stamp: () => number): Promise<PlannedRow[]> {
  const { text, index, groupId, metadata } = block;
  const now = stamp();
  const memoryId = index === 0 && input.memory_id ? input.memory_id : uuidv7(now);
  if ((await view.lastVersion(memoryId)) > 0) throw new EngineError('CONFLICT', `memory ${memoryId} already exists`, { memory_id: memoryId });
  const validFrom = input.valid_from ?? now;
  if (input.valid_to !== undefined && input.valid_to !== null && input.valid_to <= validFrom) {
    throw new EngineError('VALIDATION', 'valid_to must be after valid_from', { field: 'valid_to' });
  }
  const row: PlannedRow = {
    version_id: uuidv7(now),
    memory_id: memoryId,
    version: 1,
    tx: 1,
    content: text,
    content_hash: contentHash(text),
    user_id: input.user_id,
    agent_id: input.agent_id ?? null,
    app_id: input.app_id ?? null,
    run_id: input.run_id ?? null,
    owner_id: input.owner_id ?? null,
    space: input.space ?? 'project',
    repo: input.repo ?? null,
    dir: input.dir ?? null,
    category: input.category ?? 'note',
    metadata,
    source: input.source ?? { kind: 'api' },
    valid_from: validFrom,
    valid_to: input.valid_to ?? null,
    recorded_at: now,
    created_at: now,
    deleted: false,
    block: groupId ? { group_id: groupId, index, count: block.count } : null,
    vector: null,
    embed_model: null,
  };
  return [row];
}

/**
 * With `patch.valid_from`: a change in the world from then on. Without: a correction of the
 * current content for all valid time. `patch.content` and `metadata` are already checked.
 */
export async function planUpdate(view: BatchView, memoryId: string, patch: PatchInput, metadata: Metadata | undefined, stamp: () => number): Promise<PlannedRow[]> {
  const last = await view.lastTx(memoryId);
  const current = last.some((r) => r.deleted) ? [] : last;
  if (current.length === 0) throw notFound('memory', memoryId);
  const now = stamp();
  const base = representative(current, now)!;
  const content = patch.content ?? base.content;
  const next = {
    content,
    content_hash: contentHash(content),
    user_id: base.user_id,
    agent_id: base.agent_id,
    app_id: base.app_id,
    run_id: base.run_id,
    owner_id: patch.owner_id === undefined ? base.owner_id : patch.owner_id,
    space: patch.space ?? base.space,
    repo: patch.repo === undefined ? base.repo : patch.repo,
    dir: patch.dir === undefined ? base.dir : patch.dir,
    category: patch.category ?? base.category,
    metadata: metadata ?? base.metadata,
    source: patch.source ?? { kind: 'api' as const },
    deleted: false,
    block: base.block,
    vector: patch.content === undefined || patch.content === base.content ? base.vector : null,
    embed_model: patch.content === undefined || patch.content === base.content ? base.embed_model : null,
  };
  const lastVersion = await view.lastVersion(memoryId);
  const ids = { newId: () => uuidv7(now), now, lastVersion };
  if (patch.valid_from !== undefined) {
    if (patch.valid_to !== undefined && patch.valid_to !== null && patch.valid_to <= patch.valid_from) {
      throw new EngineError('VALIDATION', 'valid_to must be after valid_from', { field: 'valid_to' });
    }
    return planChange(current, next, { ...ids, validFrom: patch.valid_from, validTo: patch.valid_to ?? null });
  }
  const rows = planCorrection(current, next, ids);
  if (patch.valid_to !== undefined) rows[0]!.valid_to = patch.valid_to;
  return rows;
}

/** A forget: the tombstone of the memory's current rows. */
export async function planForget(view: BatchView, memoryId: string, stamp: () => number): Promise<PlannedRow[]> {
  const last = await view.lastTx(memoryId);
  if (last.length === 0 || last.some((r) => r.deleted)) throw notFound('memory', memoryId);
  const now = stamp();
  return planDelete(last, { newId: () => uuidv7(now), now, lastVersion: await view.lastVersion(memoryId), contentHash: contentHash('') });
}

/**
 * A restore: a transaction that believes again what the memory held just before its tombstone
 * (same content, valid time, fields and vector), read from the store's stored versions.
 */
export async function planRestore(view: BatchView, store: MemoryStore, memoryId: string, stamp: () => number): Promise<PlannedRow[]> {
  const last = await view.lastTx(memoryId);
  if (last.length === 0) throw notFound('memory', memoryId);
  if (!last.some((r) => r.deleted)) throw new EngineError('CONFLICT', `memory ${memoryId} is not forgotten; nothing to restore`, { memory_id: memoryId });
  const txs = transactions(await store.versionsOf([memoryId]));
  const before = [...txs].reverse().find((tx) => !tx.some((r) => r.deleted));
  if (!before) throw notFound('memory', memoryId);
  const now = stamp();
  let version = await view.lastVersion(memoryId);
  const tx = version + 1;
  return before.map(({ seq: _seq, ...row }) => ({ ...row, version_id: uuidv7(now), version: ++version, tx, recorded_at: now, deleted: false }));
}
