/**
 * Consolidation (DESIGN §5.5): each extracted candidate is compared with the nearest existing
 * memories of its scope and becomes an ADD, a NOOP (exact or near duplicate with nothing new), an
 * UPDATE that refreshes the wording, or an UPDATE that supersedes the old value of the same
 * subject as a change in the world (history kept).
 */
import { decide, type Neighbor } from './extract/consolidate.js';
import { FINDING_SUBJECT } from './extract/findings.js';
import { subjectOf } from './extract/subject.js';
import type { Candidate } from './extract/types.js';
import type { MemoryEngine } from './engine.js';
import { contentHash } from './text/content.js';
import type { MemoryFilter, Source } from './types.js';

export interface IngestBase {
  user_id: string;
  owner_id?: string | null;
  agent_id?: string | null;
  app_id?: string | null;
  run_id?: string | null;
  repo?: string | null;
  dir?: string | null;
  source: Source;
  metadata?: Record<string, unknown>;
}

export interface IngestResult {
  memory_id: string;
  content: string;
  event: 'ADD' | 'UPDATE' | 'NOOP';
  category: string;
  space: string;
}

/** Neighbors considered per candidate. */
const NEIGHBORS = 5;

/** The subject key a stored finding was given (findings.ts), which its content alone does not tell. */
function findingSubject(metadata: Record<string, unknown> | null | undefined): string | null {
  const s = metadata?.subject;
  return typeof s === 'string' && s.startsWith(FINDING_SUBJECT) ? s : null;
}

export async function ingest(engine: MemoryEngine, candidates: readonly Candidate[], base: IngestBase): Promise<IngestResult[]> {
  const out: IngestResult[] = [];
  for (const c of candidates) {
    const hash = contentHash(c.content);
    const scope: MemoryFilter =
      c.space === 'personal' ? { space: 'personal', user_id: base.user_id } : { space: 'project', repo: base.repo ?? null };
    const found = await engine.search({ query: c.content, filter: scope, top_k: NEIGHBORS });
    const neighbors: Neighbor[] = found.results.map((h) => ({
      memory_id: h.row.memory_id,
      content: h.row.content,
      content_hash: h.row.content_hash,
      category: h.row.category,
      subject: findingSubject(h.row.metadata) ?? subjectOf(h.row.content),
      similarity: Math.max(0, h.vectorScore ?? 0),
    }));
    const d = decide({ ...c, content_hash: hash }, neighbors);
    if (d.action === 'NOOP') {
      const n = neighbors.find((x) => x.memory_id === d.memory_id)!;
      out.push({ memory_id: d.memory_id, content: n.content, event: 'NOOP', category: n.category, space: c.space });
      continue;
    }
    if (d.action === 'UPDATE') {
      const rows = await engine.update(d.memory_id, {
        content: c.content,
        category: c.category,
        source: base.source,
        ...(d.mode === 'supersede' ? { valid_from: engine.now() } : {}),
      });
      const shown = rows[rows.length - 1]!;
      out.push({ memory_id: d.memory_id, content: shown.content, event: 'UPDATE', category: shown.category, space: shown.space });
      continue;
    }
    const [row] = await engine.add({
      content: c.content,
      user_id: base.user_id,
      owner_id: base.owner_id ?? null,
      agent_id: base.agent_id ?? null,
      app_id: base.app_id ?? null,
      run_id: base.run_id ?? null,
      space: c.space,
      repo: c.space === 'personal' ? null : (base.repo ?? null),
      dir: c.space === 'personal' ? null : (base.dir ?? null),
      category: c.category,
      source: base.source,
      metadata: { ...(base.metadata ?? {}), confidence: Math.round(c.confidence * 100) / 100, speaker: c.role, ...(c.subject ? { subject: c.subject } : {}) },
    });
    out.push({ memory_id: row!.memory_id, content: row!.content, event: 'ADD', category: row!.category, space: row!.space });
  }
  return out;
}
