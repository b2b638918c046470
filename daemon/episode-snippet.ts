/**
 * What recall shows of an episode block: its head and the passages that answer the prompt, within
 * SNIPPET_CHARS. The stored block stays whole, for search (episodes.ts).
 */
import { informativeTerms, squeeze, termForm } from '../engine/index.js';
import { clip } from './episodes.js';

/** Longest episode text injected: the head and the passage that matches the prompt. */
export const SNIPPET_CHARS = 900;
/** How much of a block's first passage (its request) heads a snippet. */
const HEAD_CHARS = 160;
/** The head of an episode's later block. */
const CONTINUED_HEAD = /^\w+ \(continued\):/;

/** About `size` characters of `text` around the first word whose term is in `terms`, cut at spaces. */
function windowAround(text: string, terms: ReadonlySet<string>, size: number): string {
  let at = 0;
  for (const m of text.matchAll(/[\p{L}\p{N}_'’-]+/gu)) {
    if (informativeTerms(m[0]).some((t) => terms.has(t))) {
      at = m.index;
      break;
    }
  }
  let from = Math.max(0, Math.min(at - Math.floor(size / 3), text.length - size));
  if (from > 0) from = text.indexOf(' ', from) + 1 || from;
  let to = Math.min(text.length, from + size - 2);
  if (to < text.length) to = text.lastIndexOf(' ', to) > from ? text.lastIndexOf(' ', to) : to;
  return `${from > 0 ? '…' : ''}${text.slice(from, to).trim()}${to < text.length ? '…' : ''}`;
}

/**
 * What recall shows of an episode block: the whole block when short, else the start of its request
 * and the passages (sentences, lines) holding the query's terms, the rarest in the block first,
 * each followed by what comes after it (where the answer to a matched heading or question sits),
 * within `max` characters. The stored block stays whole, for search.
 */
export function episodeSnippet(content: string, query: string, max = SNIPPET_CHARS): string {
  return snippetOf(content, query, max).text;
}

export interface Snippet {
  text: string;
  /**
   * The passages shown because they hold the query's terms (not the head, the opening or what
   * follows them): what this snippet says about the query. None when the block is shown whole.
   */
  passages: string[];
}

/** `episodeSnippet` with the passages it showed for the query. */
export function snippetOf(content: string, query: string, max = SNIPPET_CHARS): Snippet {
  if (squeeze(content).length <= max) return { text: squeeze(content), passages: [] };
  const units = content.split('\n').flatMap(passagesOfLine).map(squeeze).filter(Boolean);
  const head = clip(units[0] ?? '', HEAD_CHARS);
  // Terms compared as the relevance floor compares them ("stored" and "store" alike).
  const termsOf = (text: string): string[] => informativeTerms(text).map(termForm);
  const wanted = new Set(termsOf(query));
  const held = units.map((u, i) => (i === 0 && u.length <= HEAD_CHARS ? new Set<string>() : new Set(termsOf(u).filter((t) => wanted.has(t)))));
  // A term few passages hold says more about which passage answers than one most of them hold.
  const df = new Map<string, number>();
  for (const h of held) for (const t of h) df.set(t, (df.get(t) ?? 0) + 1);
  const weight = (i: number): number => [...held[i]!].reduce((a, t) => a + 1 / df.get(t)!, 0);
  const order = units.map((_, i) => i).filter((i) => held[i]!.size > 0);
  order.sort((a, b) => weight(b) - weight(a) || a - b);
  let room = max - head.length - 2;
  const shown = new Map<number, string>();
  const take = (i: number, text: string): void => {
    shown.set(i, text);
    // The request shown whole replaces the head that clips it.
    room -= text.length + 3 - (i === 0 ? head.length + 2 : 0);
  };
  // 0. An episode's first block opens with what the turn came to (a summary, the answer): its
  // first passages, in a third of the room.
  if (!CONTINUED_HEAD.test(units[0] ?? '')) {
    let opening = Math.floor(room / 3);
    for (let j = 1; j < units.length && units[j]!.length + 3 <= opening; j++) {
      opening -= units[j]!.length + 3;
      take(j, units[j]!);
    }
  }
  // 1. The densest region first: the shortest run of passages holding more of the query's terms
  // (rare ones weighing more) than any one passage does, when it fits in the room ("There is an
  // auto-follow toggle … Located in scope-bar.tsx … Button with …": the answer sits between the
  // passages that hold the terms).
  const cover = (from: number, to: number): number => {
    const terms = new Set<string>();
    for (let k = from; k <= to; k++) for (const t of held[k]!) terms.add(t);
    return [...terms].reduce((a, t) => a + 1 / df.get(t)!, 0);
  };
  const single = order.length > 0 ? weight(order[0]!) : 0;
  let region: { from: number; to: number; score: number; length: number } | null = null;
  for (const from of order) {
    if (shown.has(from)) continue;
    let length = 0;
    for (let to = from; to < units.length && !shown.has(to); to++) {
      length += units[to]!.length + 3;
      if (length > room) break;
      if (to === from || held[to]!.size === 0) continue;
      const score = cover(from, to);
      if (score > single + 1e-9 && (!region || score > region.score + 1e-9 || (Math.abs(score - region.score) <= 1e-9 && length < region.length))) region = { from, to, score, length };
    }
  }
  const matched: string[] = [];
  if (region) {
    for (let k = region.from; k <= region.to; k++) {
      take(k, units[k]!);
      if (held[k]!.size > 0) matched.push(units[k]!);
    }
  }
  // 2. The matching passages, best first; one longer than the room is cut around its match.
  for (const i of order) {
    if (room < 40) break;
    if (shown.has(i)) {
      if (!matched.includes(units[i]!)) matched.push(units[i]!);
      continue;
    }
    if (units[i]!.length + 3 <= room) take(i, units[i]!);
    else if (shown.size === 0) take(i, windowAround(units[i]!, held[i]!, room - 3));
    else continue;
    matched.push(units[i]!);
  }
  // 3. What follows each of them, in the room left (the last piece cut to fit).
  for (const i of [...shown.keys()].sort((a, b) => a - b)) {
    for (let j = i + 1; j < units.length && room >= 40 && !shown.has(j); j++) {
      const u = units[j]!;
      take(j, u.length + 3 <= room ? u : `${u.slice(0, Math.max(0, room - 4)).trimEnd()}…`);
    }
  }
  let out = joinShown(head, shown);
  if (out.length > max) out = `${out.slice(0, max - 1).trimEnd()}…`;
  return { text: out, passages: matched };
}

/**
 * A line's sentences: cut after ".", "!", "?" or ";" and a space, never inside a code span
 * ("Added `uv tool install . --reinstall` to the README" is one passage).
 */
function passagesOfLine(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  let code = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '`') code = !code;
    else if (!code && /[.!?;]/.test(c) && /\s/.test(line[i + 1] ?? '')) {
      out.push(line.slice(start, i + 1));
      start = i + 2;
    }
  }
  out.push(line.slice(start));
  return out;
}

/**
 * The head, then the shown passages in order, "…" where passages were skipped. When the first
 * passage (the request the head clips) is shown itself, it stands for the head.
 */
function joinShown(head: string, shown: ReadonlyMap<number, string>): string {
  let out = shown.get(0) ?? head;
  let prev = 0;
  for (const i of [...shown.keys()].sort((a, b) => a - b)) {
    if (i === 0) continue;
    out += i === prev + 1 ? ` ${shown.get(i)}` : ` … ${shown.get(i)}`;
    prev = i;
  }
  return out;
}
