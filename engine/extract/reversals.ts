/**
 * Statements the session reversed afterwards: a value a statement pins ("requires go 1.24.0",
 * "use `npm`") that what the session said later changes away ("changed go 1.24.0 → 1.21", "from X
 * to Y", "instead of `npm`"). Such a statement no longer holds and is not stored.
 */
/** A value a statement pins: a version ("1.24.0", "v20") or a code span ("`pnpm`"). */
const PINNED_VALUE = /`([^`\n]{2,40})`|\bv?(\d+\.\d+(?:\.\d+)*)\b/g;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether `later` (what the session said after a statement) changes `value` away: "1.24.0 → 1.21",
 * "from 1.24.0 to 1.21", "changed go 1.24.0 …", "replaced `npm` with …", "instead of `npm`".
 */
export function changedLater(value: string, later: string): boolean {
  const v = escapeRe(value);
  const away = new RegExp(
    `(?:^|[^\\w.])${v}\`?\\s*(?:→|->|=>|⇒)|\\bfrom\\s+\`?${v}\`?\\s+to\\b|\\b(?:changed|replaced|lowered|raised|bumped|downgraded|upgraded|reverted|removed|dropped|switched)\\b[^.\\n]{0,60}?(?:^|[^\\w.])\`?${v}(?![\\w.])|\\binstead of\\s+\`?${v}(?![\\w.])`,
    'i',
  );
  return away.test(later);
}

/** The values a statement pins that the session changed afterwards (the statement no longer holds). */
export function reversedValues(content: string, later: string): string[] {
  const values = [...content.matchAll(PINNED_VALUE)].map((m) => m[1] ?? m[2]!).filter(Boolean);
  return values.filter((v) => changedLater(v, later));
}
