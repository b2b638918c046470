/**
 * The shape every redaction rule shares. A rule finds the spans of one secret type; the
 * redactor merges the spans of all rules and replaces each with `[REDACTED:<type>]`.
 */

/** A half-open character range [start, end) of the input. */
export interface Span {
  start: number;
  end: number;
}

/** A span a rule found; `type` overrides the rule's type for rules that find several kinds. */
export interface Found extends Span {
  type?: string;
}

export interface SecretRule {
  /** Placeholder type, e.g. `github_token`. Lowercase letters, digits and `_` only. */
  type: string;
  /** Every span of this rule's secret in `text`. Must run in time roughly linear in `text`. */
  find(text: string): Found[];
}

export interface RegexRuleOptions {
  /** Capture groups to redact, first matched wins; [] or absent = the whole match. */
  groups?: number[];
  /** Veto a match by looking at the redacted value (and the text around it). */
  accept?: (value: string, text: string, start: number) => boolean;
}

/**
 * A rule from one global regex. The regex gets the `d` flag here so group offsets are known;
 * it must avoid nested quantifiers so no input can make it backtrack catastrophically.
 */
export function regexRule(type: string, re: RegExp, opts: RegexRuleOptions = {}): SecretRule {
  const flags = new Set(re.flags);
  flags.add('g');
  flags.add('d');
  const pattern = new RegExp(re.source, [...flags].join(''));
  const groups = opts.groups ?? [];
  return {
    type,
    find(text) {
      const out: Span[] = [];
      pattern.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = pattern.exec(text)) !== null) {
        if (m[0].length === 0) {
          pattern.lastIndex++;
          continue;
        }
        const span = pickSpan(m, groups);
        if (!span || span.end <= span.start) continue;
        if (opts.accept && !opts.accept(text.slice(span.start, span.end), text, span.start)) continue;
        out.push(span);
      }
      return out;
    },
  };
}

function pickSpan(m: RegExpExecArray, groups: number[]): Span | null {
  if (groups.length === 0) return { start: m.index, end: m.index + m[0].length };
  for (const g of groups) {
    const at = m.indices?.[g];
    if (at) return { start: at[0], end: at[1] };
  }
  return null;
}
