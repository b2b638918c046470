import { createHash } from 'node:crypto';
import { EngineError } from '../errors.js';

/** `text` on one line: every run of whitespace (newlines included) one space, none at either end. */
export function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Canonical form for exact-duplicate detection: NFKC, case-folded, whitespace collapsed. */
export function normalizeContent(text: string): string {
  return squeeze(text.normalize('NFKC').toLowerCase());
}

/** Hash of the normalized content; equal hashes mean exact duplicates. */
export function contentHash(text: string): string {
  return createHash('sha256').update(normalizeContent(text)).digest('hex').slice(0, 32);
}

/**
 * Split `text` into blocks of at most `max` characters, cutting at the strongest boundary that
 * fits: paragraph, then line, then sentence, then word. A single word longer than `max` is the
 * only thing ever cut mid-way. Nothing is dropped: joining the blocks restores the text modulo
 * the whitespace at cut points.
 */
export function splitBlocks(text: string, max: number): string[] {
  const trimmed = text.trim();
  if (trimmed.length <= max) return [trimmed];
  const blocks: string[] = [];
  let rest = trimmed;
  const boundaries = [/\n\s*\n/g, /\n/g, /(?<=[.!?;])\s+/g, /\s+/g];
  while (rest.length > max) {
    let cut = -1;
    let skip = 0;
    for (const re of boundaries) {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      let best = -1;
      let bestLen = 0;
      while ((m = re.exec(rest)) !== null) {
        if (m.index > max) break;
        if (m.index > 0) {
          best = m.index;
          bestLen = m[0].length;
        }
        if (m[0].length === 0) re.lastIndex++;
      }
      // Prefer a boundary that keeps blocks reasonably full (at least a third of max).
      if (best >= Math.floor(max / 3)) {
        cut = best;
        skip = bestLen;
        break;
      }
    }
    if (cut <= 0) {
      cut = max;
      skip = 0;
    }
    blocks.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut + skip).trim();
  }
  if (rest.length > 0) blocks.push(rest);
  return blocks.filter((b) => b.length > 0);
}

/** Validate a metadata object: plain JSON object, bounded serialized size and depth. */
export function checkMetadata(metadata: unknown, maxBytes: number): Record<string, unknown> {
  if (metadata === undefined || metadata === null) return {};
  if (typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new EngineError('VALIDATION', 'metadata must be a JSON object', { field: 'metadata' });
  }
  const json = JSON.stringify(metadata);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) {
    throw new EngineError('CONTENT_TOO_LARGE', `metadata is ${bytes} bytes; the limit is ${maxBytes} (SERVICE_MAX_METADATA_BYTES)`, {
      field: 'metadata',
      bytes,
      limit: maxBytes,
    });
  }
  if (depth(metadata) > 8) {
    throw new EngineError('VALIDATION', 'metadata nests deeper than 8 levels', { field: 'metadata' });
  }
  return JSON.parse(json) as Record<string, unknown>;
}

function depth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let max = 0;
  for (const v of Object.values(value as Record<string, unknown>)) max = Math.max(max, depth(v));
  return 1 + max;
}
