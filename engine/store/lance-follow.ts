/**
 * How LanceStore's current view follows versions just stored: which memories' current rows go and
 * which rows come, with the catalog brought up to date on the way (the write lock is held).
 */
import { currentRows } from '../bitemporal.js';
import type { VersionRow } from '../types.js';
import type { Catalog } from './lance-catalog.js';
import { groupBy } from './lance-rows.js';
import { overlayFresh } from './lance-vectors.js';

/** The current rows of `replace` go, `fresh` come. */
export interface CurrentChange {
  replace: readonly string[];
  fresh: readonly VersionRow[];
}

/** Every version of some memories, current ones with the view's vectors (LanceStore.versionsOf). */
export type VersionsOf = (memoryIds: readonly string[]) => Promise<VersionRow[]>;

/**
 * After an append (`byMemory`: the stored rows by memory). A memory whose new versions all come
 * after those the catalog knows takes their current rows as they are; one with a new version
 * numbered at or below one it knows is read again whole.
 */
export async function followAppend(byMemory: readonly VersionRow[][], stored: readonly VersionRow[], catalog: Catalog, versionsOf: VersionsOf): Promise<CurrentChange> {
  const replace: string[] = [];
  const fresh: VersionRow[] = [];
  const reread: string[] = [];
  for (const batch of byMemory) {
    const id = batch[0]!.memory_id;
    const known = catalog.get(id);
    const minVersion = Math.min(...batch.map((r) => r.version));
    if (known && minVersion <= known.maxVersion) {
      reread.push(id);
      continue;
    }
    if (known && !known.deleted) replace.push(id);
    fresh.push(...currentRows(batch));
    catalog.update(id, batch);
  }
  if (reread.length > 0) {
    const all = overlayFresh(await versionsOf(reread), stored);
    for (const vs of groupBy(all)) {
      catalog.update(vs[0]!.memory_id, vs);
      fresh.push(...currentRows(vs));
    }
    replace.push(...reread);
  }
  return { replace, fresh };
}

/** After a rewrite of versions of the memories `ids`: their current rows are worked out again. */
export async function followRewrite(ids: readonly string[], stored: readonly VersionRow[], catalog: Catalog, versionsOf: VersionsOf): Promise<CurrentChange> {
  const fresh: VersionRow[] = [];
  // The view's vectors are those of the rows being replaced: a rewritten row keeps the one it came with.
  for (const vs of groupBy(overlayFresh(await versionsOf(ids), stored))) {
    catalog.update(vs[0]!.memory_id, vs);
    fresh.push(...currentRows(vs));
  }
  return { replace: ids, fresh };
}
