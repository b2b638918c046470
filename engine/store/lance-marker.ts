/**
 * LanceStore's marker file (`current.json`): the last seq the current view is known to include
 * (a crash between the two table writes is repaired from there on open), and the plan of the
 * vector index, which LanceDB does not report back.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { VectorIndexPlan } from './lance-indexes.js';

export interface Marker {
  seq: number;
  vectorIndex: VectorIndexPlan | null;
  /** Set while the current view is rebuilt from the version log (absent: the view is whole up to `seq`). */
  rebuilding?: boolean;
  /** How the stored full-text terms were made (TERMS_FORMAT, tokenize.ts; absent: 1, words only). */
  terms?: number;
}

const FILE = 'current.json';

export function readMarker(dir: string): Marker {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(dir, FILE), 'utf8')) as { seq?: unknown; vectorIndex?: { rows?: unknown; partitions?: unknown }; rebuilding?: unknown; terms?: unknown };
    const vi = v.vectorIndex;
    return {
      seq: typeof v.seq === 'number' ? v.seq : 0,
      vectorIndex: vi && typeof vi.rows === 'number' && typeof vi.partitions === 'number' ? { rows: vi.rows, partitions: vi.partitions } : null,
      ...(v.rebuilding === true ? { rebuilding: true } : {}),
      ...(typeof v.terms === 'number' ? { terms: v.terms } : {}),
    };
  } catch {
    return { seq: 0, vectorIndex: null };
  }
}

/** Replace the marker atomically (write, then rename). */
export function writeMarker(dir: string, marker: Marker): void {
  const file = path.join(dir, FILE);
  const vectorIndex = marker.vectorIndex ? { rows: marker.vectorIndex.rows, partitions: marker.vectorIndex.partitions } : undefined;
  fs.writeFileSync(`${file}.tmp`, JSON.stringify({ seq: marker.seq, vectorIndex, ...(marker.rebuilding ? { rebuilding: true } : {}), ...(marker.terms !== undefined ? { terms: marker.terms } : {}) }));
  fs.renameSync(`${file}.tmp`, file);
}
