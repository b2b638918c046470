/**
 * Findings: what an answer established about the questions it was asked. A prompt that enumerates
 * what the user needs to know ("I need to understand: 1. … 2. …") is answered by a reply (or a
 * report) whose sections take those items one by one ("### 1. How X works",
 * "### 2. Whether there is any Y"); each such section opens with its answer ("`list_panes/0` will
 * NOT crash. It returns `{:error, reason}`", "The timeline is exclusively a live replay mode with
 * NO rewind"). That opening, headed by its section, is a durable finding about the code base: a
 * `fact` at a moderate confidence (it answers the prompts it is relevant to, never opens a
 * session), keyed by the question and the section's subject, so that asking the same question
 * again replaces it instead of piling up.
 *
 * Only answers to an asked list: the same report read without the question list is raw material
 * that stays in its episode, and a section that takes up none of the items (recommendations, next
 * steps, a design the report proposes) is no finding.
 */
import { informativeTerms, form } from '../search/relevance.js';
import { cleanContent } from './clean.js';
import { isNarration, isQuestion } from './noise.js';
import { stripInjected } from './segment.js';

/** A finding is the report's word, second-hand: below what the user or the assistant stated. */
export const FINDING_CONFIDENCE = 0.6;
/** Subject keys of findings start with this (consolidation replaces a finding of the same key). */
export const FINDING_SUBJECT = 'finding:';
/** A question list has at least this many items. */
const MIN_ITEMS = 2;
const MAX_CONTENT = 300;
const MIN_LEAD = 20;
const MAX_HEAD = 100;

export interface Finding {
  content: string;
  /** `finding:`, the terms of the question it answers and those of its section's heading. */
  subject: string;
}

/** A line that leads a list of what the asker needs to know ("I need to understand:", "Report on:"). */
const ASKS =
  /\b(?:(?:i|we) (?:need|want|would like|'d like) to (?:understand|know|learn|find out|figure out|see)|tell me|find out|report (?:on|back|what)|summar(?:y|ize|ise) (?:of|what|how)|explain|answer)\b/i;
/**
 * An item that is a question by itself ("Whether …", "How … works", "Is there …?", "Any tests for
 * X?"); "Any CSS that might affect …" without a question mark asks to find things (an inventory,
 * whose report lists what it found rather than answering).
 */
const QUESTION_ITEM = /^(?:what|how|why|where|which|who|when|whether|does|do|is|are|can|could|check (?:if|whether)|if)\b|\?\W*$/i;
const ITEM = /^\s*(?:\d{1,2}[.)]|[-*•])\s+(.+)$/;

/**
 * The items of the question list a request holds: numbered or bulleted lines under a line that
 * asks to know something, or lines that are questions themselves. Fewer than two: no list.
 */
export function questionItems(request: string): string[] {
  const out: string[] = [];
  let asked = false;
  for (const line of stripInjected(request).split(/\r?\n/)) {
    const m = ITEM.exec(line);
    if (!m) {
      if (line.trim()) asked = ASKS.test(line);
      continue;
    }
    const item = m[1]!.replace(/\*\*|__/g, '').trim();
    if (asked || QUESTION_ITEM.test(item)) out.push(item);
  }
  return out.length >= MIN_ITEMS ? out : [];
}

/** A section heading: `## …` to `###### …`, or a numbered bold line ("1. **Router**:"). */
const HEADING = /^#{2,6}\s+(.+)$|^\d{1,2}[.)]\s+\*\*(.+?)\*\*:?\s*$|^\*\*\d{1,2}[.)]\s+(.+?)\*\*:?\s*$/;
/** Sections that advise or plan rather than report what is. */
const NOT_A_FINDING = /\b(?:recommend\w*|next steps?|suggest\w*|to ?do|plan|questions?|how to|propos\w*|options?|fix(?:es)? required|action items?|implementation|approach)\b/i;
/**
 * A line that introduces what follows without saying anything ("What happens when tmux is NOT
 * running:", "**Flow**:", "`vsla_core.c` - Core utility functions providing:"), unlike an
 * opening that states something and then lists it ("These files should remain in `src/`:").
 */
function isLabel(line: string): boolean {
  if (!line.endsWith(':')) return false;
  const body = line.slice(0, -1);
  return body.includes(':') ? false : isQuestion(body) || body.split(/\s+/).length <= 4 || !STATES.test(body);
}
/** A verb that makes a line a statement. */
const STATES =
  /\b(?:is|are|was|were|be|been|isn't|aren't|should|must|may|will|won't|can|cannot|can't|has|have|had|does|do|doesn't|don't|uses?|contains?|returns?|runs?|lives?|stores?|keeps?|calls?|provides?|implements?|holds?|reads?|writes?|handles?|sends?|starts?|depends?)\b/i;
const FENCE = /^(?:`{3,}|~{3,})/;
/** A line that introduces the report rather than answering ("Based on my exploration, …", "Here is …"). */
const PREAMBLE = /^(?:based on|here(?:'s| is| are)|overall|i(?:'ve| have))\b/i;
/** The answer opens its section: only its first few lines are read. */
const OPENING_LINES = 4;
/** An opening with fewer words of its own (outside code, paths, line numbers) points, not states. */
const MIN_STATED_WORDS = 3;
/** "Location: …", "Lines 4-11: …", "Defined in …": where something is, not what it is. */
const POINTER = /^(?:location|path|file|files|defined in|found in|see|lines? \d+)\b/i;
/** An opening that starts with a condition ("If no `session_id` is given, …") details one case, not what is. */
const CONDITION = /^(?:if|unless|when|whenever|in case|once|after|before)\b/i;
/**
 * A pointer that goes stale with the next edit or run: a file and line ("`sessions.ts:90-101`"), or
 * a temporary directory ("/tmp/tmpqwh7888i/tests/").
 */
const STALE = /\b[\w-]+\.[a-z]{1,5}:\d+|(?:^|[\s`'"(])\/(?:tmp|var\/folders|private\/tmp)\//i;
/** A heading or opening that tells what to do ("Remove the push trigger", "Edit `test.yml`"). */
const TASK_VERB =
  /^(?:\d{1,2}[.)]\s*)?(?:add|remove|delete|edit|change|update|create|enable|disable|fix|replace|move|rename|install|run|set|use|avoid|consider|implement|refactor|migrate|keep|make|ensure|switch|configure|apply|revert|upgrade|downgrade)\b/i;
const BULLET = /^(?:\d{1,2}[.)]|[-*+•✓✗✔✘❌✅])\s+/;

interface Section {
  head: string;
  /** Its lines, trimmed, with how far each was indented (a nested bullet details the one above). */
  lines: { text: string; indent: number }[];
}

function sectionsOf(answer: string): Section[] {
  const out: Section[] = [];
  let cur: Section | null = null;
  let fenced = false;
  for (const raw of answer.split(/\r?\n/)) {
    const line = raw.trim();
    if (FENCE.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || !line) continue;
    const h = HEADING.exec(line);
    if (h) {
      const head = (h[1] ?? h[2] ?? h[3]!)
        .replace(/\*\*|__/g, '')
        .replace(/^\d{1,2}[.)]\s*/, '')
        .replace(/[:\s]+$/, '')
        .trim();
      out.push((cur = { head, lines: [] }));
      continue;
    }
    cur?.lines.push({ text: line, indent: raw.length - raw.trimStart().length });
  }
  return out;
}

/** A section's opening statement: its first line that says something (not a label, a table, a question or narration). */
function leadOf(s: Section): string | null {
  const top = Math.min(...s.lines.map((l) => l.indent));
  for (const { text: line, indent } of s.lines.slice(0, OPENING_LINES)) {
    if (indent > top + 1) continue;
    if (line.startsWith('|') || /^[-=*_]{3,}$/.test(line)) continue;
    const t = line.replace(BULLET, '').replace(/\*\*|__/g, '').trim();
    if (isLabel(t) || t.length < MIN_LEAD || isQuestion(t) || isNarration(t) || PREAMBLE.test(t)) continue;
    // The first line that says something is advice ("Edit `test.yml`: remove …"), a pointer
    // ("Location: `src/x.py` (lines 53-89)", "Function: `flatten(nested)`"), one case ("If …") or
    // goes stale: the section does not open with its answer, and no finding is taken from it.
    if (TASK_VERB.test(t) || POINTER.test(t) || CONDITION.test(t) || STALE.test(t) || statedWords(t) < MIN_STATED_WORDS) return null;
    return introless(t);
  }
  return null;
}

/**
 * An opening that ends by introducing what follows ("… not a replay system. There is:", "It
 * returns `{:error, reason}` safely:"): the colon becomes a full stop, and a short closing sentence
 * that only introduces the list ("There is:") is dropped.
 */
function introless(text: string): string {
  if (!text.endsWith(':')) return text;
  const body = text.slice(0, -1).trimEnd();
  const at = body.search(/[.!?]\s+[^.!?]+$/);
  if (at > 0 && body.slice(at + 1).trim().split(/\s+/).length <= 3) return body.slice(0, at + 1);
  return `${body}.`;
}

/** Words of a statement outside code spans, paths and line references. */
function statedWords(text: string): number {
  const prose = text
    .replace(/`[^`]*`/g, ' ')
    .replace(/(?:~|\.{1,2})?\/?[\w.-]+(?:\/[\w.-]+)+\/?/g, ' ')
    .replace(/\blines? \d+(?:\s*[-–,]\s*\d+)*/gi, ' ');
  return informativeTerms(prose).length;
}

const termsOf = (text: string): string[] => [...new Set(informativeTerms(text).map(form))];

/**
 * What a finding is about: the question it answers (its terms, in order of the alphabet, so a
 * reworded repeat of the same words matches) and the heading of the section that answered it. Asked
 * again and answered under the same heading, a newer finding replaces the older; a different
 * question whose answer has a similar heading is another finding.
 */
function subjectKey(item: readonly string[], head: string): string {
  const bare = head.replace(/\([^)]*\)|`[^`]*`/g, ' ');
  const heading = (termsOf(bare).length > 0 ? termsOf(bare) : termsOf(head)).slice(0, 4).join(' ');
  return `${FINDING_SUBJECT}${[...item].sort().slice(0, 6).join(' ')} | ${heading}`;
}

/** `head: lead`, cut at a sentence end within MAX_CONTENT characters. */
function contentOf(head: string, lead: string): string {
  const h = head.length > MAX_HEAD ? `${head.slice(0, MAX_HEAD - 1).trimEnd()}…` : head;
  let text = `${h}: ${lead}`.replace(/\s+/g, ' ');
  if (text.length > MAX_CONTENT) {
    const cut = text.slice(0, MAX_CONTENT);
    const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('; '));
    text = end > h.length + MIN_LEAD ? cut.slice(0, end + 1) : `${cut.slice(0, cut.lastIndexOf(' ')).trimEnd()}…`;
  }
  return cleanContent(text);
}

/**
 * The findings `answer` gives to the question list of `request`: for each item, the section of the
 * answer whose heading takes it up best (shares its informative terms, the rarer among the headings
 * weighing more; each section once), as its heading and opening statement. None when the request
 * asks no list or the answer has no sections that open with a statement.
 */
export function findings(request: string, answer: string): Finding[] {
  const items = questionItems(request).map(termsOf);
  if (items.length === 0) return [];
  const sections = sectionsOf(answer)
    .filter((s) => !NOT_A_FINDING.test(s.head) && !TASK_VERB.test(s.head))
    .map((s) => ({ s, terms: new Set(termsOf(s.head)), lead: leadOf(s) }))
    .filter((x): x is typeof x & { lead: string } => x.lead !== null);
  // A term most headings hold (the report's topic) tells little about which item a section answers.
  const df = new Map<string, number>();
  for (const x of sections) for (const t of x.terms) df.set(t, (df.get(t) ?? 0) + 1);
  const used = new Set<number>();
  const out: Finding[] = [];
  // Each item its best section (the one whose heading covers most of the item's terms, rare ones
  // weighing more), each section at most once: no more findings than questions.
  for (const item of items) {
    let best = -1;
    let top = 0;
    sections.forEach((x, i) => {
      if (used.has(i)) return;
      const score = item.reduce((a, t) => a + (x.terms.has(t) ? 1 / df.get(t)! : 0), 0);
      if (score > top) {
        top = score;
        best = i;
      }
    });
    if (best < 0) continue;
    used.add(best);
    const x = sections[best]!;
    out.push({ content: contentOf(x.s.head, x.lead), subject: subjectKey(item, x.s.head) });
  }
  return out;
}
