import type { PlannedRow } from '../../engine/index.js';
import { contentHash, exportLine, uuidv7 } from '../../engine/index.js';

/** A version-1 row for store tests; override any field. */
export function row(over: Partial<PlannedRow> = {}): PlannedRow {
  const now = over.recorded_at ?? Date.parse('2026-01-01T00:00:00Z');
  const memoryId = over.memory_id ?? uuidv7();
  const content = over.content ?? 'we use pnpm for installs';
  return {
    version_id: uuidv7(),
    memory_id: memoryId,
    version: 1,
    tx: 1,
    content,
    content_hash: contentHash(content),
    user_id: 'alice',
    agent_id: null,
    app_id: null,
    run_id: null,
    owner_id: null,
    space: 'project',
    repo: 'github.com/acme/app',
    dir: null,
    category: 'decision',
    metadata: {},
    source: { kind: 'api' },
    valid_from: now,
    valid_to: null,
    recorded_at: now,
    created_at: now,
    deleted: false,
    block: null,
    vector: null,
    embed_model: null,
    ...over,
  };
}

/** One NDJSON line of an import (the export format) for a version-1 row; override any field. */
export function importLine(over: Partial<PlannedRow> = {}): string {
  return JSON.stringify(exportLine({ ...row(over), seq: 0 }));
}
