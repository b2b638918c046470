/** LanceStore's searches of the past: what was believed at a transaction time (`knownAt`). */
import type * as lancedb from '@lancedb/lancedb';
import { filterClauses, sqlNumber, validAtClause, whereOf } from './lance-filter.js';
import { pastTextHits } from './lance-past.js';
import type { StoreHit, StoreSearch } from './types.js';

/**
 * A search of what was believed at `knownAt`: full text over every version recorded by then (the
 * log), vectors over the current rows recorded by then. Superseded versions keep no vector (the
 * log holds none), so the vector channel cannot find them; their text can. The engine keeps only
 * the versions believed at `knownAt` of what comes back.
 */
export async function searchPast(versions: lancedb.Table, req: StoreSearch, knownAt: number, searchView: (req: StoreSearch) => Promise<StoreHit[]>): Promise<StoreHit[]> {
  const limit = req.limit * 4;
  let textHits: StoreHit[] = [];
  if (req.text) {
    const parts = [...filterClauses(req.filter), validAtClause(req.validAt), `recorded_at <= ${sqlNumber(knownAt)}`, 'deleted = false'];
    textHits = await pastTextHits(versions, { text: req.text, where: whereOf(parts)!, limit });
  }
  const vectorHits = req.vector
    ? await searchView({ ...req, text: null, knownAt: undefined, limit, filter: { updated_at: { lte: knownAt }, any_of: [req.filter] } })
    : [];
  const byId = new Map(vectorHits.map((h) => [h.row.version_id, h]));
  for (const t of textHits) {
    const hit = byId.get(t.row.version_id);
    if (hit) hit.textScore = t.textScore;
    else byId.set(t.row.version_id, t);
  }
  return [...byId.values()];
}
