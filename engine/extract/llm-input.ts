/**
 * What the optional LLM extractor reads, assembled by priority within its character budget:
 * first the user's own words (typed requests, answers to the assistant's questions), never cut;
 * then the assistant's text (its conclusions, the compaction summary), newest first; then a parent
 * agent's task for a subagent and the subagent's report (second-hand findings); then tool
 * output, clipped per call and de-duplicated, newest first. The pieces are given back in session
 * order. (Before: the last 24,000 characters of a turn, which were 93–99% tool output.)
 */
import { contentHash } from '../text/content.js';
import type { ExtractTurn } from './types.js';

/** Longest piece of one tool output that is kept. */
export const TOOL_CLIP_CHARS = 600;
/** Longest single assistant message kept (its start and its end, where conclusions are). */
export const ASSISTANT_CLIP_CHARS = 4000;

const MEMORY_CONTEXT = /<memory-context[\s\S]*?(?:<\/memory-context>|$)/g;

function label(t: ExtractTurn): string {
  if (t.kind === 'task') return 'parent agent (task given to a subagent)';
  if (t.kind === 'report') return 'subagent (report to the parent agent)';
  if (t.role === 'tool') return `tool${t.tool ? ` ${t.tool}` : ''}${t.ok === false ? ' (failed)' : ''}`;
  if (t.kind === 'answer') return 'user (answer to the assistant’s question)';
  if (t.kind === 'summary') return 'assistant (summary of the earlier conversation)';
  return t.role;
}

/**
 * 0: the user's own words; 1: the assistant's text (its conclusions, the compaction summary); 2: a
 * parent agent's task for a subagent and the subagent's report (second-hand: what the assistant
 * concluded from it comes first); 3: tool output.
 */
function tier(t: ExtractTurn): number {
  if (t.kind === 'task' || t.kind === 'report') return 2;
  return t.role === 'user' ? 0 : t.role === 'assistant' ? 1 : 3;
}

function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.4);
  return `${text.slice(0, head)}\n[…]\n${text.slice(text.length - (max - head - 5))}`;
}

/** The turns as labelled text within `maxChars`, by priority (see the module comment). */
export function assembleLlmInput(turns: readonly ExtractTurn[], maxChars: number): string {
  const pieces = turns.map((t, i) => ({ i, tier: tier(t), text: t.text.replace(MEMORY_CONTEXT, '').trim(), label: label(t) }));
  const chosen = new Map<number, string>();
  let used = 0;
  const take = (i: number, label: string, text: string, force = false): boolean => {
    const line = `${label}: ${text}`;
    if (!force && used + line.length + 2 > maxChars) return false;
    chosen.set(i, line);
    used += line.length + 2;
    return true;
  };
  // 1. The user's words, whole; the latest request always, even alone over the budget.
  const user = pieces.filter((p) => p.tier === 0 && p.text);
  for (let k = user.length - 1; k >= 0; k--) take(user[k]!.i, user[k]!.label, user[k]!.text, k === user.length - 1);
  // 2. The assistant's text, newest first; then what subagents were asked and reported.
  for (const tierOf of [1, 2]) for (const p of pieces.filter((x) => x.tier === tierOf && x.text).reverse()) take(p.i, p.label, clipMiddle(p.text, ASSISTANT_CLIP_CHARS));
  // 3. Tool output, clipped and de-duplicated, newest first.
  const seen = new Set<string>();
  for (const p of pieces.filter((x) => x.tier === 3 && x.text).reverse()) {
    const clipped = clipMiddle(p.text, TOOL_CLIP_CHARS);
    const key = contentHash(clipped);
    if (seen.has(key)) continue;
    seen.add(key);
    take(p.i, p.label, clipped);
  }
  return [...chosen.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, line]) => line)
    .join('\n\n');
}
