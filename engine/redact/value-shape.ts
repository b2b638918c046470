/**
 * Heuristics about what a candidate secret value looks like. They keep the assignment rules
 * from redacting references (`$TOKEN`, `process.env.X`), code (`getToken()`), paths, and
 * ordinary identifiers, and they tell random-looking tokens from git SHAs and UUIDs.
 */

/** Shannon entropy of the characters of `s`, in bits per character. */
export function entropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GIT_SHA = /^[0-9a-f]{7,40}$/;
const KEYWORDS = new Set([
  'true', 'false', 'null', 'none', 'nil', 'undefined', 'required', 'optional', 'string', 'str',
  'number', 'int', 'integer', 'boolean', 'bool', 'bytes', 'any', 'unknown', 'object', 'empty',
  'redacted', 'hidden', 'masked', 'todo', 'tbd', 'n/a', 'na', 'self', 'this',
]);

/** Words a placeholder is written with and no random token is made of. */
const PLACEHOLDER_WORDS = new Set(['your', 'yours', 'example', 'sample', 'placeholder', 'dummy', 'fake', 'changeme', 'here', 'redacted']);

/**
 * A placeholder written in a token's shape, as setup instructions and `.env.example` files give it
 * ("xoxb-your-bot-token", "xapp-your-app-token", "sk_test_your_key_here"): lower-case words only,
 * joined by `-` or `_`, one of them a word no random token is made of. A real token has random
 * segments (digits, mixed case), so it never passes.
 */
export function isPlaceholderToken(value: string): boolean {
  const parts = value.trim().split(/[-_]+/);
  return parts.length >= 2 && parts.every((p) => /^[a-z]+$/.test(p)) && parts.some((p) => PLACEHOLDER_WORDS.has(p) || /^x{3,}$/.test(p));
}

/**
 * False for values that are not a literal secret: references to variables or secret stores,
 * template placeholders, code expressions, file paths, masks and type names.
 */
export function isLiteralValue(value: string): boolean {
  const v = value.trim();
  if (v.length < 3) return false;
  if (/^\[REDACTED:/.test(v)) return false;
  if (/^[$%]/.test(v) || v.includes('{{') || v.includes('${')) return false;
  if (/^<[^>]*>$/.test(v) || /^\{[^}]*\}$/.test(v)) return false;
  if (/^(?:process\.env|os\.environ|os\.getenv|env\.|ENV\[|secrets\.|vars\.|import\.meta\.env|!(?:Ref|Sub|secret))/i.test(v)) return false;
  if (/[()[\]{}]|=>/.test(v)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v)) return false;
  if (/^(.)\1+$/.test(v)) return false;
  if (/^(?:your|enter|insert)[-_ ]|[-_ ]here$|^replace[-_ ]?me$/i.test(v) || isPlaceholderToken(v)) return false;
  if (KEYWORDS.has(v.toLowerCase())) return false;
  if (isPath(v)) return false;
  return true;
}

/**
 * A run of 20+ letters, digits and base64 signs with upper case, lower case and digits all in it:
 * what random tokens are made of, and no file or folder name is (names have separators, words,
 * or one case).
 */
const TOKEN_SEGMENT = /^(?=[^/]*[a-z])(?=[^/]*[A-Z])(?=[^/]*\d)[A-Za-z0-9+=]{20,}$/;

/**
 * A name a path is made of: a word or words in camel case with a number at the end, or one case
 * throughout (`src`, `MyApp3`, `workspaceStorage`, `LICENSE`, `overlay2`).
 */
const NAME_SEGMENT = /^(?:[A-Za-z][a-z]*(?:[A-Z][a-z]+)*\d*|[a-z0-9]+|[A-Z0-9]+)$/;

/**
 * Base64 that happens to hold slashes ("/c5Z8RP/BoZU0sx6MrJ3i4xeg6/pndIHA+1su3fFt2La"): only base64
 * signs, and most of its characters between slashes that no name looks like.
 */
function isSlashedBase64(v: string): boolean {
  if (!/^[A-Za-z0-9+/=]{24,}$/.test(v)) return false;
  const segments = v.split('/');
  const odd = segments.reduce((n, seg) => n + (seg && !NAME_SEGMENT.test(seg) ? seg.length : 0), 0);
  return odd >= 0.6 * (v.length - segments.length + 1);
}

/** A file system path rather than a secret: `./x`, `/etc/x`, `~/x`, `C:\x`, `x/y.json`. */
export function isPath(v: string): boolean {
  // Base64 may begin with `/` ("/x0lJy84KZJxoDJz+wXeRLFx…"): a path has names, not a token, between its slashes.
  if (v.split(/[/\\]/).some((seg) => TOKEN_SEGMENT.test(seg)) || isSlashedBase64(v)) return false;
  if (/^(?:\.{1,2}\/|~\/|\/[A-Za-z._-]|[A-Za-z]:\\)/.test(v)) return true;
  return /^[\w.-]+(?:\/[\w.-]+)+\.[a-z]{2,5}$/i.test(v) && !/\d{4}/.test(v);
}

/** A bare identifier such as `nextToken` or `api_key`: code, not a secret, when unquoted. */
export function isIdentifier(v: string): boolean {
  return /^[A-Za-z_][A-Za-z_]*$/.test(v) && v.length <= 24;
}

/** Has the look of a machine-made secret: a digit or symbol, or long with mixed case. */
export function looksSecretish(v: string): boolean {
  if (/\d/.test(v) || /[^A-Za-z0-9\s]/.test(v)) return true;
  return v.length >= 12 && /[a-z]/.test(v) && /[A-Z]/.test(v);
}

/**
 * A random-looking token: long, varied characters, not a UUID, git SHA or path. Used only for
 * values assigned to secret-looking names, never for free-standing words.
 */
export function isHighEntropy(v: string): boolean {
  if (v.length < 16 || /\s/.test(v)) return false;
  if (UUID.test(v) || GIT_SHA.test(v) || isPath(v)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((re) => re.test(v)).length;
  const hexLong = /^[0-9a-f]{32,}$/i.test(v);
  if (classes < 2 && !hexLong) return false;
  return entropy(v) >= (hexLong ? 3.0 : 3.5);
}
