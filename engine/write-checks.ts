/**
 * What every write is held to before it is queued: content non-empty and redacted, ids that are
 * UUIDs, at most `maxChars` characters per memory block, metadata within `maxMetaBytes` (and
 * redacted). Each throws EngineError (VALIDATION or CONTENT_TOO_LARGE).
 */
import type { PlannedRow } from './bitemporal.js';
import type { AddInput, PatchInput } from './engine-types.js';
import { EngineError } from './errors.js';
import { isUuid } from './ids.js';
import { redactValue } from './redact/deep.js';
import { redact } from './redact/redact.js';
import { checkMetadata, splitBlocks } from './text/content.js';
import type { Metadata } from './types.js';

/** An engine's limits (EngineOptions.maxContentChars and maxMetadataBytes). */
export interface WriteLimits {
  maxChars: number;
  maxMetaBytes: number;
}

export function checkContent(content: string): string {
  if (typeof content !== 'string' || content.trim().length === 0) {
    throw new EngineError('VALIDATION', 'content must be a non-empty string', { field: 'content' });
  }
  // Every write path (API, remember, ingest) ends here: nothing reaches the store unredacted.
  return redact(content.trim()).text;
}

export function checkId(memoryId: string): void {
  if (!isUuid(memoryId)) throw new EngineError('VALIDATION', `memory id "${memoryId}" is not a UUID`, { field: 'memory_id' });
}

/** An add's blocks (its `parts`, else its content cut at `maxChars`) and its metadata, checked and redacted. */
export function checkAdd(input: AddInput, limits: WriteLimits): { blocks: string[]; metadata: Metadata } {
  const { maxChars } = limits;
  const content = checkContent(input.content);
  const metadata = redactValue(checkMetadata(input.metadata, limits.maxMetaBytes)) as Metadata;
  if (!input.user_id) throw new EngineError('VALIDATION', 'user_id is required', { field: 'user_id' });
  if (input.memory_id !== undefined && !isUuid(input.memory_id)) throw new EngineError('VALIDATION', 'memory_id must be a UUID', { field: 'memory_id' });
  const blocks = input.parts && input.parts.length > 0 ? input.parts.map((part) => checkContent(part)) : splitBlocks(content, maxChars);
  const tooLong = blocks.find((b) => b.length > maxChars);
  if (tooLong !== undefined) throw new EngineError('CONTENT_TOO_LARGE', `a block is ${tooLong.length} characters; a memory block holds at most ${maxChars}`, { field: 'parts' });
  return { blocks, metadata };
}

/** A patch with its content checked and redacted, and its metadata (undefined: unchanged) checked and redacted. */
export function checkPatch(patch: PatchInput, limits: WriteLimits): { patch: PatchInput; metadata: Metadata | undefined } {
  const { maxChars } = limits;
  if (patch.content !== undefined) patch = { ...patch, content: checkContent(patch.content) };
  if (patch.content !== undefined && patch.content.length > maxChars) {
    throw new EngineError('CONTENT_TOO_LARGE', `content is ${patch.content.length} characters; a memory block holds at most ${maxChars}. Add it as a new memory to split it into blocks.`, {
      field: 'content',
      limit: maxChars,
    });
  }
  const metadata = patch.metadata === undefined ? undefined : (redactValue(checkMetadata(patch.metadata, limits.maxMetaBytes)) as Metadata);
  return { patch, metadata };
}

/**
 * The limits every local write meets, for a version written on another machine (a sync push):
 * content length (tombstones carry none) and metadata size and depth.
 */
export function checkReplicaRow(row: PlannedRow, limits: WriteLimits): void {
  if (!row.deleted && row.content.length > limits.maxChars) {
    throw new EngineError('CONTENT_TOO_LARGE', `content is ${row.content.length} characters; this server holds at most ${limits.maxChars} per memory block`, { field: 'content', limit: limits.maxChars });
  }
  checkMetadata(row.metadata, limits.maxMetaBytes);
}
