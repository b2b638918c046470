/**
 * Which versions of a memory a caller may read or erase (docs/api.md, "Authorization"). A memory
 * belongs to whoever its latest version says: once it moves to someone's personal space, only
 * they see any of it (its history included); while it is in the project space, teammates see its
 * history without the versions that were someone else's personal drafts.
 */
import { matchesFilter, type MemoryFilter, type MemoryVersion } from '../engine/index.js';

/** Whether `readFilter` lets the caller see this version. */
export function versionVisible(v: MemoryVersion, readFilter: MemoryFilter): boolean {
  return matchesFilter({ ...v, vector: null }, readFilter);
}

/**
 * The versions of a memory (oldest first) the caller may read, or null when the memory is not
 * theirs to see at all (its latest version is hidden from them, or it has no versions).
 */
export function visibleHistory(versions: readonly MemoryVersion[], readFilter: MemoryFilter): MemoryVersion[] | null {
  const latest = versions[versions.length - 1];
  if (!latest || !versionVisible(latest, readFilter)) return null;
  return versions.filter((v) => versionVisible(v, readFilter));
}
