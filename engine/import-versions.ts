/**
 * Import of version lines (an export, or another machine's history): reading and checking every
 * line first, then, under the engine's write lock, the checks against the store and the appends.
 * Idempotent by version_id, all or nothing (`MemoryEngine.import`).
 */
import type { PlannedRow } from './bitemporal.js';
import { EngineError } from './errors.js';
import { parseImportLine } from './import-line.js';
import type { ReplicaDeps } from './replica-writer.js';
import type { MemoryStore } from './store/types.js';

/** Rows checked and appended per store call during an import. */
const IMPORT_CHUNK = 500;
/** Seq range read per step when an import looks for version ids held by other memories. */
const SCAN_PAGE = 10_000;

function importConflict(why: string, r: PlannedRow): EngineError {
  return new EngineError('CONFLICT', `${why}; nothing was imported`, { memory_id: r.memory_id, version: r.version, version_id: r.version_id });
}

/**
 * Parse every line and hold it to `check` (the limits of every write): the rows to import, or the
 * first bad line's error (nothing imported).
 */
export async function readImportRows(
  lines: Iterable<string> | AsyncIterable<string>,
  rewrite: ((row: PlannedRow) => PlannedRow) | undefined,
  check: (row: PlannedRow) => void,
): Promise<PlannedRow[]> {
  const rows: PlannedRow[] = [];
  let lineNo = 0;
  for await (const raw of lines as AsyncIterable<string>) {
    lineNo++;
    const text = raw.trim();
    if (text === '') continue;
    const parsed = parseImportLine(text, lineNo);
    const row = rewrite ? rewrite(parsed) : parsed;
    try {
      check(row);
    } catch (err) {
      if (err instanceof EngineError) throw new EngineError(err.code, `line ${lineNo}: ${err.message}; nothing was imported`, { ...(err.details as object | undefined), line: lineNo });
      throw err;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Check the rows against the store (a version number taken by another version, a version_id that
 * belongs to another memory) before the first is appended, then append the ones not yet present.
 * Run it holding the write lock; `deps` are those of a replica's writes (the store, embedding and
 * change listeners).
 */
export async function commitImport(rows: readonly PlannedRow[], deps: ReplicaDeps): Promise<{ imported: number; skipped: number; memories: number }> {
  const { store } = deps;
  const ids = [...new Set(rows.map((r) => r.memory_id))];
  const owner = new Map<string, string>();
  const taken = new Set<string>();
  for (let i = 0; i < ids.length; i += IMPORT_CHUNK) {
    for (const v of await store.versionsOf(ids.slice(i, i + IMPORT_CHUNK))) {
      owner.set(v.version_id, v.memory_id);
      taken.add(`${v.memory_id}:${v.version}`);
    }
  }
  const fresh: PlannedRow[] = [];
  let skipped = 0;
  for (const r of rows) {
    const holder = owner.get(r.version_id);
    if (holder === r.memory_id) {
      skipped++;
      continue;
    }
    if (holder !== undefined) throw importConflict(`version ${r.version_id} already belongs to memory ${holder}`, r);
    const key = `${r.memory_id}:${r.version}`;
    if (taken.has(key)) throw importConflict(`memory ${r.memory_id} already has a different version ${r.version}`, r);
    taken.add(key);
    owner.set(r.version_id, r.memory_id);
    fresh.push(r);
  }
  await refuseForeignVersionIds(store, fresh, new Set(ids));
  fresh.sort((a, b) => (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : a.version - b.version));
  for (let i = 0; i < fresh.length; i += IMPORT_CHUNK) {
    const batch = fresh.slice(i, i + IMPORT_CHUNK);
    await deps.embed(batch.filter((r) => !r.deleted));
    deps.emit(await store.append(batch));
  }
  return { imported: fresh.length, skipped, memories: new Set(fresh.map((r) => r.memory_id)).size };
}

/** A version_id is the identity of one version: refuse ids already held by memories outside the import. */
async function refuseForeignVersionIds(store: MemoryStore, fresh: readonly PlannedRow[], importedMemories: ReadonlySet<string>): Promise<void> {
  if (fresh.length === 0) return;
  const wanted = new Map(fresh.map((r) => [r.version_id, r]));
  const { lastSeq } = await store.stats();
  for (let after = 0; after < lastSeq; after += SCAN_PAGE) {
    for (const v of await store.changes(after, SCAN_PAGE)) {
      const r = wanted.get(v.version_id);
      if (r && !importedMemories.has(v.memory_id)) throw importConflict(`version ${v.version_id} already belongs to memory ${v.memory_id}`, r);
    }
  }
}
