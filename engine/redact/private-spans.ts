/**
 * `<private>…</private>` spans: text the user marked as never to be stored. Tags are
 * case-insensitive and may carry attributes; spans may cross lines and nest; an unclosed
 * `<private>` runs to the end of the text (failing closed). A stray closing tag is left alone.
 */
import type { Span } from './rule.js';

const TAG = /<(\/?)private(?:\s[^<>]*)?>/gi;

export function privateSpans(text: string): Span[] {
  const out: Span[] = [];
  let depth = 0;
  let start = 0;
  TAG.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TAG.exec(text)) !== null) {
    const closing = m[1] === '/';
    if (!closing) {
      if (depth === 0) start = m.index;
      depth++;
    } else if (depth > 0) {
      depth--;
      if (depth === 0) out.push({ start, end: m.index + m[0].length });
    }
  }
  if (depth > 0) out.push({ start, end: text.length });
  return out;
}
