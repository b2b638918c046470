/**
 * Scores of the real-session evaluation (scripts/eval/sessions.ts) against the hand labels.
 * Everything here is pure: memories, injected items and answers in, counts out.
 */
import type { LabelFact, Labels } from './session-replay.js';

export interface StoredMemory {
  memory_id: string;
  content: string;
  category: string;
  space: string;
  repo: string | null;
  episode: boolean;
  /** Whose words an extracted memory came from (the extractor's `speaker`: user, assistant …). */
  speaker?: string;
  /** The session whose capture wrote its current version (`eval-<fixture>` for a replayed fixture). */
  session?: string;
}

/** One item a recall hook put in front of the agent. */
export interface Injected {
  /** Repository the prompt was typed in. */
  repo: string;
  content: string;
  category: string;
}

export interface SetScores {
  fixtures: number;
  turnsPresent: number;
  turnsKept: number;
  /** Turns on branches the user rewound away from: left out of memory by design, not in turnsPresent. */
  turnsRewound: number;
  facts: number;
  factsRecovered: number;
  factsAsMemory: number;
  extracted: number;
  extractedMatching: number;
  episodes: number;
  oneOffStored: number;
  personalStored: number;
  questions: number;
  searchHits: number;
  /**
   * The answer is in front of the agent when the question is asked: injected for this prompt, or
   * earlier in the same session (SessionStart, earlier prompts), which the hook does not repeat.
   */
  recallHits: number;
  /** The answer is among the items injected for this very prompt. */
  recallHitsThisPrompt: number;
  /** Of the questions, those asked in the user's own language (LabelQuestion.lang), and their hits. */
  ownLanguageQuestions: number;
  ownLanguageSearchHits: number;
  ownLanguageRecallHits: number;
  injected: number;
  injectedJunk: number;
  oneOffInjected: number;
  crossRepoInjected: number;
}

export function emptyScores(): SetScores {
  return { fixtures: 0, turnsPresent: 0, turnsKept: 0, turnsRewound: 0, facts: 0, factsRecovered: 0, factsAsMemory: 0, extracted: 0, extractedMatching: 0, episodes: 0, oneOffStored: 0, personalStored: 0, questions: 0, searchHits: 0, recallHits: 0, recallHitsThisPrompt: 0, ownLanguageQuestions: 0, ownLanguageSearchHits: 0, ownLanguageRecallHits: 0, injected: 0, injectedJunk: 0, oneOffInjected: 0, crossRepoInjected: 0 };
}

const norm = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Every term appears in the text (case-insensitive). */
export function containsAll(text: string, terms: readonly string[]): boolean {
  const t = norm(text);
  return terms.every((x) => t.includes(x.toLowerCase()));
}

/** Whether stored or injected text carries a one-off request of the labels. */
export function isOneOff(text: string, oneOff: readonly string[]): boolean {
  const t = norm(text);
  return oneOff.some((o) => o.length >= 12 && t.includes(norm(o).slice(0, 60)));
}

/** Whether a memory states this labelled fact (its terms, or one of its alternative wordings). */
export function statesFact(content: string, fact: LabelFact): boolean {
  return containsAll(content, fact.match) || (fact.alt ?? []).some((terms) => containsAll(content, terms));
}

/** A memory that states one of the facts labelled for its repository. */
export function matchesAFact(content: string, labels: readonly Labels[]): boolean {
  return labels.some((l) => l.facts.some((f) => statesFact(content, f)));
}

/** `- [category] content (date)` lines of a recall hook's context block. */
export function injectedItems(context: string): { category: string; content: string }[] {
  const out: { category: string; content: string }[] = [];
  for (const line of context.split('\n')) {
    const m = /^- \[(\w+)\] (.*?)(?: \(\d{4}-\d{2}-\d{2}\))?$/.exec(line);
    if (m) out.push({ category: m[1]!, content: m[2]! });
  }
  return out;
}

/**
 * The stored memory an injected item shows (content is whitespace-collapsed and may be clipped, or
 * a snippet of it: pieces joined by "…", each of which the memory holds, the first at its start).
 * Where memories of several repositories read the same (two CLAUDE.md files that open with the same
 * `/init` preamble), the one `preferred` says (the repository the item was injected in) is it.
 */
export function sourceOf(item: { content: string }, memories: readonly StoredMemory[], preferred: (m: StoredMemory) => boolean = () => false): StoredMemory | null {
  const pick = (found: StoredMemory[]): StoredMemory | null => found.find(preferred) ?? found[0] ?? null;
  const head = norm(item.content).replace(/…$/, '').slice(0, 120);
  const exact = pick(memories.filter((m) => norm(m.content).startsWith(head)));
  if (exact) return exact;
  const parts = norm(item.content)
    .split('…')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length < 2) return null;
  return pick(memories.filter((m) => { const c = norm(m.content); return c.startsWith(parts[0]!) && parts.every((p) => c.includes(p)); }));
}

/**
 * An injected item is junk when it shows a memory of another repository, a one-off request stored
 * as a memory, or an extracted memory that states none of the facts labelled for its repository. (Labels are not
 * exhaustive: a true but unlabelled memory counts as junk, so this is an upper bound.) An episode
 * of the same repository that cleared the relevance floor is not junk.
 */
export function isJunk(item: Injected, memories: readonly StoredMemory[], repoOf: (repo: string | null) => string | null, labelsOfRepo: (repo: string) => Labels[]): { junk: boolean; crossRepo: boolean; oneOff: boolean } {
  const src = sourceOf(item, memories, (m) => repoOf(m.repo) === item.repo);
  const labels = labelsOfRepo(item.repo);
  // An episode records the request it answered ("Asked: …"): that is history, not the request stored as a memory.
  const oneOff = !src?.episode && isOneOff(item.content, labels.flatMap((l) => l.oneOff));
  const srcRepo = src ? repoOf(src.repo) : null;
  const crossRepo = src !== null && src.space === 'project' && srcRepo !== null && srcRepo !== item.repo;
  if (crossRepo || oneOff) return { junk: true, crossRepo, oneOff };
  if (src?.episode) return { junk: false, crossRepo, oneOff };
  return { junk: !matchesAFact(item.content, labels), crossRepo, oneOff };
}

/**
 * The fixture repository a stored memory belongs to: the name after `fixtures/` in its normalized
 * remote (lower case, a space written %20: "github.com/fixtures/pai%20-%20tpos"), as the labels spell it.
 */
export function fixtureRepoName(repo: string | null, labelRepos: ReadonlyMap<string, string>): string | null {
  if (!repo) return null;
  const raw = /fixtures\/([^/]+)$/.exec(repo)?.[1] ?? repo;
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded after all: the name as it is.
  }
  name = name.toLowerCase();
  return labelRepos.get(name) ?? name;
}

export function pct(n: number, d: number): string {
  return d === 0 ? '—' : `${((100 * n) / d).toFixed(0)}%`;
}
