/**
 * Redaction before anything is stored, embedded or synced (DESIGN.md §5.2). Pure and fast:
 * every rule is one linear scan; a 100 KB text takes a few milliseconds.
 *
 * Contract:
 * - Each secret is replaced by `[REDACTED:<type>]`; overlapping finds merge into one placeholder
 *   whose type comes from the most specific rule (the earliest in the rule list).
 * - Findings report merged spans in coordinates of the input, in order.
 * - Idempotent: placeholders are never matched again, so `redact(redact(x).text)` changes nothing.
 */
import { ASSIGNMENT_RULE } from './assignments.js';
import { COMMAND_RULES } from './command-rules.js';
import { CONTEXT_RULES } from './context-rules.js';
import { privateSpans } from './private-spans.js';
import type { SecretRule, Span } from './rule.js';
import { PROVIDER_RULES } from './provider-rules.js';
import { TOKEN_RULES } from './token-rules.js';

export interface RedactFinding {
  /** Placeholder type: `private`, `github_token`, `password`, … */
  type: string;
  /** Span of the redacted text in the input, half-open. */
  start: number;
  end: number;
}

export interface RedactResult {
  text: string;
  findings: RedactFinding[];
}

/** Most specific first: a format-identified token beats "a value assigned to `token`". */
const RULES: readonly SecretRule[] = [...TOKEN_RULES, ...PROVIDER_RULES, ...CONTEXT_RULES, ...COMMAND_RULES, ASSIGNMENT_RULE];

const PLACEHOLDER = /\[REDACTED:[a-z0-9_]+\]/g;

interface Ranked extends RedactFinding {
  rank: number;
}

export function redact(text: string): RedactResult {
  const found: Ranked[] = privateSpans(text).map((s) => ({ ...s, type: 'private', rank: -1 }));
  const placeholders = [...text.matchAll(PLACEHOLDER)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  RULES.forEach((rule, rank) => {
    for (const f of rule.find(text)) {
      if (!overlapsAny(f, placeholders)) found.push({ start: f.start, end: f.end, type: f.type ?? rule.type, rank });
    }
  });
  if (found.length === 0) return { text, findings: [] };

  found.sort((a, b) => a.start - b.start || a.rank - b.rank);
  const merged: Ranked[] = [];
  for (const f of found) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) {
      if (f.end > last.end) last.end = f.end;
      if (f.rank < last.rank) {
        last.rank = f.rank;
        last.type = f.type;
      }
    } else {
      merged.push({ ...f });
    }
  }

  let out = '';
  let at = 0;
  for (const f of merged) {
    out += text.slice(at, f.start) + `[REDACTED:${f.type}]`;
    at = f.end;
  }
  out += text.slice(at);
  return { text: out, findings: merged.map(({ type, start, end }) => ({ type, start, end })) };
}

/** True when `redact` would change `text` (a secret or a `<private>` span is present). */
export function containsSecret(text: string): boolean {
  return redact(text).findings.length > 0;
}

/** `spans` are sorted and disjoint (placeholders), so a binary search finds the candidate. */
function overlapsAny(s: Span, spans: readonly Span[]): boolean {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const p = spans[mid]!;
    if (p.end <= s.start) lo = mid + 1;
    else if (p.start >= s.end) hi = mid - 1;
    else return true;
  }
  return false;
}
