/** Validation of NDJSON export/import lines (lossless version records). */
import { z } from 'zod';
import { EngineError } from './errors.js';
import { isUuid } from './ids.js';
import { isoTimeMs } from './iso-time.js';
import { CATEGORIES, SOURCE_KINDS, SPACES, type VersionRow } from './types.js';
import { contentHash } from './text/content.js';
import { redactValue } from './redact/deep.js';
import { redact } from './redact/redact.js';
import type { PlannedRow } from './bitemporal.js';

const isoTime = z.string().refine((s) => isoTimeMs(s) !== null, 'must be a real ISO-8601 time');
const uuid = z.string().refine(isUuid, 'must be a UUID');
const nullableString = z.string().max(1024).nullable();

const lineSchema = z.object({
  kind: z.literal('version'),
  version_id: uuid,
  memory_id: uuid,
  version: z.number().int().min(1),
  tx: z.number().int().min(1),
  content: z.string(),
  content_hash: z.string().optional(),
  user_id: z.string().min(1).max(256),
  agent_id: nullableString,
  app_id: nullableString,
  run_id: nullableString,
  owner_id: nullableString.optional().default(null),
  space: z.enum(SPACES),
  repo: nullableString,
  dir: nullableString,
  category: z.enum(CATEGORIES),
  metadata: z.record(z.string(), z.unknown()),
  source: z.object({ kind: z.enum(SOURCE_KINDS) }).catchall(z.unknown()),
  valid_from: isoTime,
  valid_to: isoTime.nullable(),
  recorded_at: isoTime,
  created_at: isoTime,
  deleted: z.boolean(),
  block: z.object({ group_id: z.string(), index: z.number().int().min(0), count: z.number().int().min(1) }).nullable(),
});

/** Parse one import line into a row to append (seq and vector are assigned locally). */
export function parseImportLine(text: string, lineNo: number): PlannedRow {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EngineError('VALIDATION', `line ${lineNo} is not valid JSON`, { line: lineNo });
  }
  return parseVersionRecord(json, lineNo);
}

/** Validate one version record (an export line already parsed as JSON; sync pushes send them). */
export function parseVersionRecord(json: unknown, lineNo: number): PlannedRow {
  const r = lineSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new EngineError('VALIDATION', `line ${lineNo}: ${issue.path.join('.') || 'line'} ${issue.message}`, { line: lineNo, path: issue.path });
  }
  const l = r.data;
  // Imports and sync pushes carry text written elsewhere: redact it like every local write.
  const content = redact(l.content).text;
  const metadata = redactValue(l.metadata) as VersionRow['metadata'];
  if (l.tx > l.version) throw new EngineError('VALIDATION', `line ${lineNo}: tx cannot exceed version`, { line: lineNo });
  const row: Omit<VersionRow, 'seq'> = {
    version_id: l.version_id,
    memory_id: l.memory_id,
    version: l.version,
    tx: l.tx,
    content,
    content_hash: content === l.content && l.content_hash ? l.content_hash : contentHash(content),
    user_id: l.user_id,
    agent_id: l.agent_id,
    app_id: l.app_id,
    run_id: l.run_id,
    owner_id: l.owner_id ?? null,
    space: l.space,
    repo: l.repo,
    dir: l.dir,
    category: l.category,
    metadata,
    source: l.source as VersionRow['source'],
    valid_from: Date.parse(l.valid_from),
    valid_to: l.valid_to === null ? null : Date.parse(l.valid_to),
    recorded_at: Date.parse(l.recorded_at),
    created_at: Date.parse(l.created_at),
    deleted: l.deleted,
    block: l.block,
    vector: null,
    embed_model: null,
  };
  return row;
}
