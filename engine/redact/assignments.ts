/**
 * Secrets assigned to secret-looking names: `DB_PASSWORD=…`, `password: …`, `"apiKey": "…"`,
 * `--token …`, `export GITHUB_TOKEN=…`, `api_key => '…'`. Only the value is redacted.
 *
 * Two strengths of name. Strong names (password, secret, token, api key…) redact any literal
 * value. Weak names (…key, …auth, …salt, …dsn…) are common in ordinary code (`cache_key`,
 * `sort_key`), so they redact only high-entropy values. Either way, references (`$X`,
 * `process.env.X`, `${{ secrets.X }}`), code (`getToken()`), paths and type names stay.
 */
import type { Found, SecretRule, Span } from './rule.js';
import { isHighEntropy, isIdentifier, isLiteralValue, looksSecretish } from './value-shape.js';

const STRONG =
  'password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key(?:[_-]?base)?|' +
  'private[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|session[_-]?key|client[_-]?secret|credentials?';
const WEAK = 'key|auth|salt|signature|sig|dsn|cookie|seed|pass|license|hmac|material';

// The name must end with the secret word (`max_tokens`, `password_hash`, `tokenizer` do not).
const NAME = new RegExp(
  `(?<![A-Za-z0-9_.-])(["']?)((?:--?)?[A-Za-z0-9_.-]*?(?:${STRONG}|${WEAK})\\d*)\\1(?![A-Za-z0-9_-])[ \\t]*(:=|=>|=(?!=)|:(?![:/])|[ \\t])`,
  'gi',
);
const STRONG_END = new RegExp(`(?:${STRONG})\\d*$`, 'i');

/** Spans typed `password` (strong names) or `generic_secret` (weak names, high entropy). */
export const ASSIGNMENT_RULE: SecretRule = { type: 'password', find: findAssignments };

function findAssignments(text: string): Found[] {
  const out: Found[] = [];
  NAME.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = NAME.exec(text)) !== null) {
    const name = m[2]!;
    const op = m[3]!;
    const flag = name.startsWith('-');
    if (/^[ \t]$/.test(op) && !flag) continue;
    // `scheme://user:pass@host` is a URL, not `key: value`; the URL rules redact only its password.
    if (text.startsWith('://', m.index - 3)) continue;
    const value = readValue(text, m.index + m[0].length);
    if (!value) continue;
    const raw = text.slice(value.start, value.end);
    const strong = STRONG_END.test(name);
    let ok: boolean;
    if (!strong) ok = isHighEntropy(raw);
    else if (value.quoted) ok = isLiteralValue(raw) || quotedSecret(raw);
    else if (flag) ok = isLiteralValue(raw) && !raw.startsWith('-');
    else if (op === ':') ok = colonValueOk(text, m.index, value.end, raw);
    else ok = isLiteralValue(raw) && !(isIdentifier(raw) && !/^[A-Z][A-Z0-9_]*$/.test(name));
    if (!ok) continue;
    out.push({ start: value.start, end: value.end, type: strong ? 'password' : 'generic_secret' });
    NAME.lastIndex = Math.max(NAME.lastIndex, value.end);
  }
  return out;
}

/**
 * A quoted value is a string literal, so brackets in it are characters, not code: Django's
 * `SECRET_KEY = 'django-insecure-(x…'`. Still not a call written as a string (`"getPass()"`).
 */
function quotedSecret(raw: string): boolean {
  return raw.length >= 12 && !/^[A-Za-z_$][\w$.]*\(.*\)$/.test(raw) && isLiteralValue(raw.replace(/[()[\]{}]/g, 'x')) && looksSecretish(raw);
}

interface Value extends Span {
  quoted: boolean;
}

// Values are bounded so that a long run without a terminator costs O(bound), not O(text).
const MAX_VALUE = 512;
const UNQUOTED = new RegExp(`[^\\s"'\`,;)}\\]&<>]{1,${MAX_VALUE + 1}}`, 'y');
const DOUBLE_QUOTED = new RegExp(`"((?:[^"\\\\\\n]|\\\\.){1,${MAX_VALUE}})"`, 'y');
const SINGLE_QUOTED = new RegExp(`'((?:[^'\\\\\\n]|\\\\.){1,${MAX_VALUE}})'`, 'y');

function readValue(text: string, from: number): Value | null {
  let i = from;
  while (text[i] === ' ' || text[i] === '\t') i++;
  const q = text[i];
  if (q === '"' || q === "'") {
    const re = q === '"' ? DOUBLE_QUOTED : SINGLE_QUOTED;
    re.lastIndex = i;
    const m = re.exec(text);
    return m ? { start: i + 1, end: i + 1 + m[1]!.length, quoted: true } : null;
  }
  UNQUOTED.lastIndex = i;
  const m = UNQUOTED.exec(text);
  if (!m || m[0].length > MAX_VALUE) return null;
  return { start: i, end: i + m[0].length, quoted: false };
}

/**
 * `key: value` is YAML, an object literal, a header, or prose ("Password: reset it via…"). A
 * value alone on a YAML-style line counts; elsewhere it must look machine-made.
 */
function colonValueOk(text: string, nameAt: number, valueEnd: number, raw: string): boolean {
  if (!isLiteralValue(raw)) return false;
  const lineStart = text.lastIndexOf('\n', nameAt - 1) + 1;
  let lineEnd = text.indexOf('\n', valueEnd);
  if (lineEnd === -1) lineEnd = text.length;
  const before = text.slice(lineStart, nameAt);
  const after = text.slice(valueEnd, lineEnd).trim();
  const yamlLine = /^[ \t]*(?:- )?$/.test(before) && (after === '' || after.startsWith('#') || after === ',');
  if (yamlLine) return true;
  return looksSecretish(raw) && !isIdentifier(raw);
}
