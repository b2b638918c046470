/**
 * Turn text into prose sentences worth scoring. Removes what must never become a memory
 * (injected `<memory-context>` blocks, fenced code, code-like lines, diffs, logs, traces),
 * joins hard-wrapped lines, strips Markdown decoration, and splits sentences.
 */
import { isChatterLine, isCodeLine } from './noise.js';

export interface Sentence {
  text: string;
  /** A bullet under a "Summary" / "Decisions" heading: an assistant conclusion by position. */
  concluded: boolean;
  /**
   * The first sentence of a list item: the line that introduced its list (a heading, a line ending
   * in ":", or the parent item ending in ":"), without its colon, or null when nothing introduced it.
   * Absent for sentences that do not open a list item.
   */
  lead?: string | null;
}

// Our recall hook labels what it injects with this tag; such text is never extracted again.
// Unclosed: to the end, failing closed.
const MEMORY_CONTEXT = /<memory-context\b[^>]*>[\s\S]*?(?:<\/memory-context\s*>|$)/gi;
const FENCE = /^[ \t]*(`{3,}|~{3,})([^\n]*)\n[\s\S]*?(?:^[ \t]*\1[ \t]*$|(?![\s\S]))/gm;
/**
 * A fence marked as text ("```txt", "```markdown"): words set apart, often a prompt the user wrote
 * for the assistant with their decisions in it, not code. Its lines are read as prose (and still
 * meet the line filters: a log pasted there stays out).
 */
const PROSE_FENCE = /^\s*(?:te?xt|markdown|md|plain(?:text)?|prompt)\s*$/i;
const DIFF_HEADER = /^(?:diff --git |@@ -\d|\+\+\+ |--- a\/)/m;
const BULLET = /^(?:[-*+•]|\d{1,2}[.)])\s+/;
const HEADING = /^#{1,6}\s+/;
/**
 * A banner drawn with box-drawing rules, titled or not ("`★ Insight ─────`", "`──────`", which the
 * explanatory output style puts around its notes): a break between paragraphs, leading nothing.
 */
const BANNER = /^`?[^`\n]{0,24}[─━═]{5,}[^`\n]{0,24}`?$/;
/** A Markdown rule (`---`, `***`, `___`): a break between sections. */
const RULE = /^(?:-{3,}|\*{3,}|_{3,}|={3,})$/;
/**
 * A section's title written as a line of its own, no `#` before it: a few words without closing
 * punctuation, standing alone right after a rule or right above one ("---" / "The concrete workflow
 * change going forward" / blank line). It leads what follows and states nothing.
 */
const TITLE_LINE = /^[^.!?:;,]{3,80}$/;
const MAX_TITLE_WORDS = 10;
const SUMMARY_WORDS = '(?:summary|decisions?|key decisions|conclusions?|outcome|what (?:we|i) (?:changed|decided)|changes(?: made)?)';
/** A line that is only a summary label ("Summary:", "**Decisions**"). */
const SUMMARY_LABEL = new RegExp(`^(?:\\*\\*)?${SUMMARY_WORDS}(?:\\*\\*)?:?(?:\\*\\*)?$`, 'i');
/** A Markdown heading about a summary ("## Summary of changes"). */
const SUMMARY_HEADING = new RegExp(`^${SUMMARY_WORDS}\\b[^.!?]{0,40}$`, 'i');

/**
 * Claude Code shows each assistant reply behind a "⏺" marker ("●" where the terminal's font lacks
 * it), its tool output behind "⎿", each prompt typed into it behind "❯", and indents what follows by
 * two spaces. A user prompt holding such a block pastes another conversation's words (the assistant's,
 * a tool's, or a prompt typed there before), not what the user says now: the block runs from the
 * marker line through the indented and blank lines after it. A line padded with spaces to the
 * terminal's width was copied from a terminal, not typed: it opens such a block too (a copy that
 * left the marker out).
 */
const PASTED_MARKER = /^\s*[⏺●⎿❯]\s|\S {8,}$/;

/**
 * A line a program printed: box-drawing characters (tree and table output), check and cross marks,
 * colour escapes (raw or written out as `\033[`), or an emoji opening the line (installers and CLIs
 * head their sections with one).
 */
const PROGRAM_LINE = /[\u2500-\u257f]|[✓✔✗✘❌⚠]|\\(?:033|x1b|u001b|e)\[|^\s*\p{Extended_Pictographic}/u;
const ESCAPE = '\u001b[';
const isProgramLine = (line: string): boolean => PROGRAM_LINE.test(line) || line.includes(ESCAPE);
/** Program lines a pasted block holds at least, and their least share of its non-blank lines. */
const MIN_PROGRAM_LINES = 5;
const MIN_PROGRAM_SHARE = 0.3;

/**
 * A user's text without the output pasted into it: Claude Code's (behind its markers), a chat app's
 * answer, a titled document after the user's words, and a program's (the lines from its first
 * printed-looking line to its last, when there are enough of them): "the installer doesn't look
 * right: <its whole output> I need the latest from my branch".
 */
export function stripPastedOutput(text: string): string {
  const out: string[] = [];
  let pasted = false;
  for (const line of text.split(/\r?\n/)) {
    if (PASTED_MARKER.test(line)) {
      pasted = true;
      continue;
    }
    if (pasted && (line.trim() === '' || /^\s/.test(line))) continue;
    pasted = false;
    out.push(line);
  }
  const typed = withoutRelayedText(withoutPastedDocument(withoutCopiedAnswer(out)));
  const marked = typed.flatMap((line, i) => (isProgramLine(line) ? [i] : []));
  if (marked.length < MIN_PROGRAM_LINES) return typed.join('\n');
  const from = marked[0]!;
  const to = marked[marked.length - 1]!;
  const filled = typed.slice(from, to + 1).filter((line) => line.trim() !== '').length;
  if (marked.length < MIN_PROGRAM_SHARE * filled) return typed.join('\n');
  return [...typed.slice(0, from), ...typed.slice(to + 1)].join('\n');
}

/**
 * U+FFFC stands where a chat app's answer had a citation chip or an image: text copied from it, not
 * typed. With two or more, the paragraphs from the first to the last are the copied answer.
 */
const COPIED_MARK = '\uFFFC';

function withoutCopiedAnswer(lines: readonly string[]): string[] {
  const marked = lines.flatMap((line, i) => (line.includes(COPIED_MARK) ? [i] : []));
  if (marked.length < 2) return [...lines];
  let from = marked[0]!;
  while (from > 0 && lines[from - 1]!.trim() !== '') from--;
  let to = marked[marked.length - 1]!;
  while (to + 1 < lines.length && lines[to + 1]!.trim() !== '') to++;
  return [...lines.slice(0, from), ...lines.slice(to + 1)];
}

/** A titled document this long after the user's words was pasted, not typed. */
const MIN_PASTED_DOCUMENT = 2000;

/**
 * A Markdown document with a title of its own ("# Nomos — Adversarial Code and Claims Audit") after
 * the user's words, running to the end of the prompt: an audit, a review or a spec the user brought
 * for the work at hand, read like a subagent's report (its findings are not the user's statements;
 * the episode keeps the prompt whole).
 */
function withoutPastedDocument(lines: readonly string[]): string[] {
  const typed = lines.findIndex((line) => line.trim() !== '');
  const title = lines.findIndex((line, i) => i > typed && /^# \S/.test(line));
  if (title < 0 || lines.slice(title).join('\n').length < MIN_PASTED_DOCUMENT) return [...lines];
  return lines.slice(0, title);
}

/** What another agent, model or session wrote, named as such ("feedback from another agent", "here is what Gemini said"). */
const OTHERS_WORDS = String.raw`(?:another|the other|a different|my other|a second|a separate) (?:agent|model|ai|llm|session|assistant|instance|claude|chat|reviewer)|chatgpt|gpt-?\d[\w.-]*|gemini|codex|copilot|grok|deepseek|perplexity`;
/**
 * A lead-in that hands over to another's words, ending in a colon: "Some feedback from another agent
 * regarding improvements we can make:", "Here is what Gemini suggested:", "Another session came up
 * with this plan:".
 */
const RELAYED_LEAD = new RegExp(
  String.raw`(?:\b(?:feedback|review|notes?|analysis|response|answer|reply|suggestions?|output|findings|report|summary|plan|comments?|ideas?|thoughts|proposal|audit)\b[^:\n]{0,40}\b(?:from|by|of)\s+(?:${OTHERS_WORDS})\b|\b(?:${OTHERS_WORDS})\s+(?:said|says|wrote|suggested|suggests|came up with|found|recommends?|proposed|thinks|gave|answered|replied)\b)[^:\n]{0,80}:\s*$`,
  'i',
);
/** Least length of the block after such a lead-in for it to be another's text, not a short quote. */
const MIN_RELAYED = 600;

/**
 * The user's words without another's text they relay: after a line that says what follows is another
 * agent's, model's or session's ("Some feedback from another agent …:"), the rest of the prompt is
 * theirs, read like a subagent's report (the episode keeps the prompt whole).
 */
function withoutRelayedText(lines: readonly string[]): string[] {
  const lead = lines.findIndex((line) => RELAYED_LEAD.test(line.trim()));
  if (lead < 0 || lines.slice(lead + 1).join('\n').length < MIN_RELAYED) return [...lines];
  return lines.slice(0, lead + 1);
}

/**
 * Typographic quotes as typed ones: editors and phones turn "don't" into "don’t", which no cue
 * (written with ') would read.
 */
export function plainQuotes(text: string): string {
  return text.replace(/[‘’ʼ′]/g, "'").replace(/[“”″]/g, '"');
}

/** Remove injected memory context and fenced code blocks; a fence marked as text keeps its lines. */
export function stripInjected(text: string): string {
  return text.replace(MEMORY_CONTEXT, '\n').replace(FENCE, (block, fence: string, info: string) => {
    if (!PROSE_FENCE.test(info)) return '\n';
    const lines = block.split('\n').slice(1);
    // An unclosed fence runs to the end of the text: its last line is text, not the fence.
    if (lines.at(-1)?.trim().startsWith(fence)) lines.pop();
    return `\n${lines.join('\n')}\n`;
  });
}

export function sentences(text: string): Sentence[] {
  const body = stripInjected(text);
  const diff = DIFF_HEADER.test(body);
  const out: Sentence[] = [];
  let summary = false;
  let para: string[] = [];
  let paraConcluded = false;
  // The lead-in of the current list (a heading or a line ending in ":"), the items ending in ":"
  // that nested items hang under, and the lead of the item being read (undefined: not an item).
  let listLead: string | null = null;
  let parents: { indent: number; text: string }[] = [];
  let itemLead: string | null | undefined;
  let itemIndent = 0;
  const flush = (): void => {
    if (para.length > 0)
      splitSentences(para.join(' ')).forEach((s, i) => out.push(i === 0 && itemLead !== undefined ? { text: s, concluded: paraConcluded, lead: itemLead } : { text: s, concluded: paraConcluded }));
    para = [];
    paraConcluded = false;
    itemLead = undefined;
  };

  const lines = body.split(/\r?\n/);
  let afterRule = false;
  for (const [at, raw] of lines.entries()) {
    if (raw.trim() === '') {
      flush();
      afterRule = false;
      continue;
    }
    if (diff && /^[+-]/.test(raw)) continue;
    let line = raw.trim().replace(/^>\s?/, '');
    const ruled = afterRule;
    afterRule = false;
    if (BANNER.test(line) || RULE.test(line)) {
      flush();
      listLead = null;
      parents = [];
      afterRule = RULE.test(line);
      continue;
    }
    if (para.length === 0 && isTitle(line, ruled, lines[at - 1], lines.slice(at + 1))) {
      flush();
      listLead = leadText(line);
      parents = [];
      continue;
    }
    if (HEADING.test(line) || SUMMARY_LABEL.test(line)) {
      flush();
      summary = SUMMARY_LABEL.test(line) || SUMMARY_HEADING.test(line.replace(HEADING, ''));
      listLead = leadText(line.replace(HEADING, ''));
      parents = [];
      continue;
    }
    const bullet = BULLET.test(line);
    if (bullet) {
      flush();
      line = line.replace(BULLET, '');
      const indent = raw.length - raw.trimStart().length;
      itemIndent = indent;
      parents = parents.filter((p) => p.indent < indent);
      itemLead = parents.at(-1)?.text ?? listLead;
      if (line.trimEnd().endsWith(':')) parents.push({ indent, text: leadText(line) });
    } else if (itemLead !== undefined && endsItem(raw, line, itemIndent, para.at(-1) ?? '')) {
      flush();
      summary = false;
    } else if (para.length === 0) {
      summary = false;
    }
    // A line of prose that opens a paragraph ends the list before it; one ending in ":" leads the next.
    if (!bullet) {
      if (para.length === 0) {
        listLead = null;
        parents = [];
      }
      if (itemLead === undefined && line.trimEnd().endsWith(':')) listLead = leadText([...para, line].join(' '));
    }
    line = line.replace(/\*\*([^*]+)\*\*/g, '$1').replace(/__([^_]+)__/g, '$1');
    if (isCodeLine(line) || isChatterLine(line)) {
      flush();
      continue;
    }
    // Hard-wrapped prose continues the paragraph; a new bullet starts its own.
    para.push(line);
    paraConcluded = summary && bullet ? true : paraConcluded;
  }
  flush();
  return out;
}

/**
 * A line that starts a sentence of its own after a list item, out at the item's marker or further
 * left ("   - Run: pnpm install" then "   This regenerates the lockfile …"): no longer the item. A
 * line indented under the item's text, or one that goes on with an unfinished clause, continues it.
 */
function endsItem(raw: string, line: string, itemIndent: number, before: string): boolean {
  const indent = raw.length - raw.trimStart().length;
  return indent <= itemIndent && /^[A-Z]/.test(line) && !/(?:[,;:(&+/–—-]|\b(?:and|or|but|the|an?|to|of|with|for|in|on|by|from|that|which|is|are))\s*$/i.test(before);
}

/**
 * Whether a line opening a paragraph is a section's title (TITLE_LINE, capitalised): right above a
 * rule (Markdown's underlined heading), or right after one and alone in its paragraph, with the
 * section's text after the blank line that follows. A typed rule closing a prompt after a rule
 * ("---" / "never hard-wrap lines") is no title.
 */
function isTitle(line: string, afterRule: boolean, before: string | undefined, rest: readonly string[]): boolean {
  if (!TITLE_LINE.test(line) || !/^[\p{Lu}\d]/u.test(line) || line.split(/\s+/).length > MAX_TITLE_WORDS || BULLET.test(line)) return false;
  const next = rest[0]?.trim() ?? '';
  if (RULE.test(next) && (before === undefined || before.trim() === '')) return true;
  return afterRule && next === '' && rest.some((l) => l.trim() !== '');
}

/** A heading or lead-in line as the words it introduces its list with: no Markdown, no closing colon. */
function leadText(line: string): string {
  return line
    .replace(/\*\*|__/g, '')
    .replace(/[:\s]+$/, '')
    .trim();
}

const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'cf', 'approx', 'incl', 'fig', 'no', 'mr', 'mrs', 'dr', 'st', 'al']);

/** Longer sentences are pasted text or rambling, not a memory. */
export const MAX_SENTENCE_CHARS = 400;
/** A sentence longer than this (lower-case text without full stops) is split at clauses. */
export const RUN_ON_CHARS = 240;
/**
 * Where a run-on sentence may be split: before a connective that starts a new statement. "never" or
 * "always" goes on with the clause before it when it comes before a participle ("a case by case
 * basis, never assumed, never inferred") or after its own subject ("a combination that never
 * coexisted", "it always expires"): only the clause it starts would be kept, a rule it is not.
 */
const CLAUSE_GAP = String.raw`(?:[,;:]\s+|\s+[-–—]\s+|\s+)`;
const CLAUSE = new RegExp(
  String.raw`${CLAUSE_GAP}(?=(?:and then|but|so|also|instead(?! of)|then|plus|and (?:i|we|you|dont|don't|do not|never|always|use|make)|i (?:want|need|only|prefer|like|dont|don't)|we (?:need|should|use|want|dont|don't)|dont|don't|do not|please)\b)` +
    String.raw`|(?<!\b(?:that|which|who|it|they|he|she|this|these|those|will|would|should|could|can|must|is|are|was|were|has|have|had|almost|nearly))${CLAUSE_GAP}(?=(?:never|always)(?!\s+\w+(?:ed|en)\b)\b)`,
  'gi',
);

/**
 * A sentence end typed without its space ("room sound.Another thing is …"): a word of lower-case
 * letters, its full stop, then a capitalised word and a space. Dotted names ("Node.js",
 * "React.Component", "obj.Method(") never match: they start with a capital, or go on with "(" or ".".
 */
const RUN_TOGETHER = /(?<=^|\s)([a-z]{2,}[.!?])(?=[A-Z][a-z]+[\s,;:])/g;

/**
 * Split at sentence ends: ".", "!" or "?" followed by space and a capital, digit, quote or code,
 * or by a lower-case word when the text before it is a sentence of its own (people type without
 * capitals); not after "e.g." and the like. Run-on sentences are then cut at clause connectives.
 */
export function splitSentences(input: string): string[] {
  const items = inlineItems(input);
  if (items) return items.flatMap(splitSentences);
  const text = input.replace(RUN_TOGETHER, '$1 ');
  const out: string[] = [];
  // A slash after a sentence's end ("don't couple./ I want …") separates it from the next as a space would.
  const re = /[.!?]+["')\]]*\/?\s+(?=[A-Za-z0-9"'`([])/g;
  let start = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const before = text.slice(start, m.index);
    // The word before the stop; after an apostrophe it ends a contraction ("init'd."), not an initial.
    const last = /(['’]?)([\w.]+)$/.exec(before);
    const lastWord = last?.[1] ? '' : (last?.[2]?.toLowerCase() ?? '');
    if (ABBREVIATIONS.has(lastWord) || /^[a-z]$/i.test(lastWord)) continue;
    const next = text[m.index + m[0].length] ?? '';
    // Lower case after a full stop: a new sentence only when the one before is sentence-sized.
    if (/[a-z]/.test(next) && (!/^[.!?]+\/?\s+$/.test(m[0]) || before.trim().split(/\s+/).length < 3)) continue;
    out.push(text.slice(start, m.index + m[0].replace(/\/?\s+$/, '').length).trim());
    start = m.index + m[0].length;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out
    .flatMap((s) => s.split(CJK_END))
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .flatMap(splitRunOn);
}

/**
 * Where a Chinese, Japanese or Korean sentence ends: after a full-width full stop, exclamation or
 * question mark, which takes no space after it ("已修复。以后都用 pnpm。").
 */
const CJK_END = /(?<=[。！？])(?!["'」』）)\]])/u;

/** "1. " or "2) " where a sentence may start: at the text's start or after ":", ";" or a sentence end. */
const INLINE_MARKER = /(^|[:;.!?]\s+)(\d{1,2})[.)]\s+(?=\S)/g;

/**
 * A numbered list typed inline ("To answer your questions: 1. The first region is … 2. I don't
 * know yet …"): the text before it and each item, without their numbers; null when the text holds
 * no such list (markers 1 and 2, in order). Without this, "questions: 1." would read as a sentence.
 */
function inlineItems(text: string): string[] | null {
  const marks = [...text.matchAll(INLINE_MARKER)].map((m) => ({ n: Number(m[2]), at: m.index + m[1]!.length, end: m.index + m[0].length }));
  const list: typeof marks = [];
  for (const m of marks) if (m.n === list.length + 1) list.push(m);
  if (list.length < 2) return null;
  const parts = [text.slice(0, list[0]!.at)];
  list.forEach((m, i) => parts.push(text.slice(m.end, list[i + 1]?.at ?? text.length)));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** A sentence over RUN_ON_CHARS cut at clause connectives into pieces. */
export function splitRunOn(sentence: string): string[] {
  if (sentence.length <= RUN_ON_CHARS) return [sentence];
  const parts: string[] = [];
  let last = 0;
  for (const m of sentence.matchAll(CLAUSE)) {
    const at = m.index;
    if (at - last < 8) continue;
    parts.push(sentence.slice(last, at).trim());
    last = at + m[0].length;
  }
  parts.push(sentence.slice(last).trim());
  return parts.map((p) => p.replace(/[\s,;:]+(?:and|or|but|so|then)$/i, '')).filter((p) => p.length > 0);
}
