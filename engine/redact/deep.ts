/**
 * Redaction of decoded structured values (tool input and output, metadata), field by field,
 * before anything serialises them: `JSON.stringify` first would turn line starts into `\n` and
 * quotes into `\"`, and the rules that anchor on them would stop matching.
 *
 * Each string is redacted on its own; a string under a secret-looking key (`password`,
 * `"material"`, `hmac`, …) is also judged as the value of that key, as `key: "value"` would be.
 */
import { redact } from './redact.js';

/** Deeper than this, a value is not walked further but replaced (nothing real nests so deep). */
const MAX_DEPTH = 64;

/** A copy of `value` with every string (keys included) redacted. */
export function redactValue(value: unknown): unknown {
  return walk(value, null, 0);
}

function walk(value: unknown, key: string | null, depth: number): unknown {
  if (typeof value === 'string') return redactField(key, value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[REDACTED:too_deep]';
  if (Array.isArray(value)) return value.map((v) => walk(v, key, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[redact(k).text] = walk(v, k, depth + 1);
  return out;
}

/** Redact one string field, also as the value assigned to its key. */
export function redactField(key: string | null, value: string): string {
  const text = redact(value).text;
  if (key === null || text.length > 512 || text.includes('\n') || text.startsWith('[REDACTED:')) return text;
  const probe = `${key}: "${text.replace(/"/g, "'")}"`;
  const found = redact(probe).findings.find((f) => f.start >= key.length);
  if (!found) return text;
  // The whole value reads as the secret of that key.
  return `[REDACTED:${found.type}]`;
}
