/**
 * The LoCoMo benchmark file (Maharana et al., ACL 2024; CC BY-NC 4.0, evaluation only) read into
 * turns and questions. The data is never copied into this repository: it is read from
 * `../shared/bench/locomo10.json` at run time.
 *
 * Shape: conversations with `session_N` turn lists and `session_N_date_time` strings, and `qa`
 * items whose `evidence` names the turns (`D<session>:<turn>`) that support the answer. Sessions
 * are found by their `session_N` keys (one conversation has dates for sessions without turns).
 * Evidence ids are taken as written: an id that is not in the canonical `D<n>:<n>` form
 * (`D8:6; D9:17`, `D:11:26`, `D30:05`) is malformed, one that names no turn is missing; neither
 * can ever be retrieved, so they are dropped from the question's gold set and counted.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface LocomoTurn {
  /** The dialog id, `D<session>:<turn>`. */
  id: string;
  session: number;
  speaker: string;
  text: string;
  /** BLIP caption of a shared image, when the turn has one. */
  caption: string | null;
  /** The session's date and time (epoch ms, read as UTC). */
  at: number;
}

export type Category = 1 | 2 | 3 | 4 | 5;

/** LoCoMo's question categories (as numbered in the data file). */
export const CATEGORY_NAMES: Record<Category, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

export interface InvalidEvidence {
  id: string;
  reason: 'malformed' | 'missing';
}

export interface LocomoQuestion {
  conversation: string;
  question: string;
  category: Category;
  /** Evidence turn ids that exist in the conversation (the gold set). */
  evidence: string[];
  /** Evidence ids that cannot be retrieved. */
  invalid: InvalidEvidence[];
}

export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DATE = /^(\d{1,2}):(\d{2})\s*(am|pm) on (\d{1,2}) ([A-Za-z]+),? (\d{4})$/i;
const CANONICAL_ID = /^D[1-9]\d*:[1-9]\d*$/;

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). Throws on any other shape. */
export function parseSessionDate(text: string): number {
  const m = DATE.exec(text.trim());
  const month = m ? MONTHS.indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unrecognised LoCoMo session date: ${JSON.stringify(text)}`);
  const hour12 = Number(m[1]) % 12;
  const hour = m[3]!.toLowerCase() === 'pm' ? hour12 + 12 : hour12;
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** The memory text of a turn: who said it, what they said, and what their shared image shows. */
export function memoryContent(turn: Pick<LocomoTurn, 'speaker' | 'text' | 'caption'>): string {
  const said = `${turn.speaker}: ${turn.text.trim()}`;
  return turn.caption ? `${said} [shared an image: ${turn.caption.trim()}]` : said;
}

/** Split evidence ids into those naming a turn of `known` and those that cannot be retrieved. */
export function checkEvidence(ids: readonly unknown[], known: ReadonlySet<string>): { valid: string[]; invalid: InvalidEvidence[] } {
  const valid: string[] = [];
  const invalid: InvalidEvidence[] = [];
  for (const raw of ids) {
    const id = String(raw);
    if (!CANONICAL_ID.test(id)) invalid.push({ id, reason: 'malformed' });
    else if (!known.has(id)) invalid.push({ id, reason: 'missing' });
    else if (!valid.includes(id)) valid.push(id);
  }
  return { valid, invalid };
}

interface RawTurn {
  speaker?: unknown;
  dia_id?: unknown;
  text?: unknown;
  blip_caption?: unknown;
}

interface RawSample {
  sample_id?: unknown;
  conversation?: Record<string, unknown>;
  qa?: { question?: unknown; evidence?: unknown; category?: unknown }[];
}

/** Parse the file's JSON value (an array of conversations). */
export function parseLocomo(raw: unknown): LocomoConversation[] {
  if (!Array.isArray(raw)) throw new Error('LoCoMo data must be a JSON array of conversations');
  return (raw as RawSample[]).map((sample, n) => {
    const id = typeof sample.sample_id === 'string' ? sample.sample_id : `conv-${n}`;
    const conv = sample.conversation ?? {};
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns: LocomoTurn[] = [];
    for (const s of sessions) {
      const list = conv[`session_${s}`];
      const date = conv[`session_${s}_date_time`];
      if (!Array.isArray(list) || list.length === 0) continue;
      if (typeof date !== 'string') throw new Error(`${id}: session ${s} has turns but no date`);
      const at = parseSessionDate(date);
      for (const t of list as RawTurn[]) {
        if (typeof t.dia_id !== 'string' || typeof t.text !== 'string') throw new Error(`${id}: a turn of session ${s} lacks dia_id or text`);
        turns.push({
          id: t.dia_id,
          session: s,
          speaker: String(t.speaker ?? 'unknown'),
          text: t.text,
          caption: typeof t.blip_caption === 'string' && t.blip_caption.trim() ? t.blip_caption : null,
          at,
        });
      }
    }
    const known = new Set(turns.map((t) => t.id));
    const questions: LocomoQuestion[] = (sample.qa ?? []).map((q) => {
      const category = Number(q.category);
      if (![1, 2, 3, 4, 5].includes(category)) throw new Error(`${id}: question category ${String(q.category)} is not 1..5`);
      const { valid, invalid } = checkEvidence(Array.isArray(q.evidence) ? q.evidence : [], known);
      return { conversation: id, question: String(q.question ?? ''), category: category as Category, evidence: valid, invalid };
    });
    return { id, turns, questions };
  });
}

/** Read the benchmark file from the shared folder beside the repository (or `file`). */
export function loadLocomo(repoRoot: string, file?: string): { file: string; conversations: LocomoConversation[] } {
  const at = path.resolve(file ?? path.join(repoRoot, '..', 'shared', 'bench', 'locomo10.json'));
  if (!fs.existsSync(at)) throw new Error(`LoCoMo data not found at ${at}; it is read from ../shared/bench/locomo10.json (never copied into the repository)`);
  return { file: at, conversations: parseLocomo(JSON.parse(fs.readFileSync(at, 'utf8'))) };
}

export interface EvalSet {
  /** Questions of the chosen categories with at least one retrievable evidence turn. */
  questions: LocomoQuestion[];
  /** Questions of the chosen categories in the data. */
  asked: number;
  /** Of those, questions left without any retrievable evidence (not scored). */
  unanswerable: number;
  /** Of the scored ones, questions that lost some (not all) of their evidence ids. */
  partial: number;
  /** Evidence ids of the chosen categories that cannot be retrieved, by reason. */
  malformed: number;
  missing: number;
  /** Questions of other categories, not asked. */
  skipped: number;
}

/** The questions to score (LoCoMo categories 1–4 by default: category 5 has no evidence answer). */
export function evalSet(conversations: readonly LocomoConversation[], categories: readonly Category[] = [1, 2, 3, 4]): EvalSet {
  const all = conversations.flatMap((c) => c.questions);
  const chosen = all.filter((q) => categories.includes(q.category));
  const invalid = chosen.flatMap((q) => q.invalid);
  const questions = chosen.filter((q) => q.evidence.length > 0);
  return {
    questions,
    asked: chosen.length,
    unanswerable: chosen.length - questions.length,
    partial: questions.filter((q) => q.invalid.length > 0).length,
    malformed: invalid.filter((i) => i.reason === 'malformed').length,
    missing: invalid.filter((i) => i.reason === 'missing').length,
    skipped: all.length - chosen.length,
  };
}
