/**
 * Context assembly (DESIGN §5.7): retrieved memories, already filtered and deduplicated, combined
 * into one labelled block within a token budget. The block is wrapped in <memory-context> tags,
 * which the extractor recognizes so injected context is never captured again.
 */
import { squeeze } from '../text/content.js';

export interface ContextItem {
  content: string;
  category: string;
  /** Higher first when the budget cannot hold everything. */
  score: number;
  /** Epoch ms of the memory's last update, shown as a date. */
  updated_at?: number;
}

export interface ContextSection {
  title: string;
  items: ContextItem[];
}

export interface AssembleOptions {
  /** Budget in tokens (≈ 4 characters each). */
  maxTokens: number;
  /** Hard cap in characters, whatever the budget (hook output limit is 10,000). @default 9000 */
  maxChars?: number;
  /** Longest single memory shown; longer ones end with an ellipsis. @default 700 */
  maxItemChars?: number;
}

export const CONTEXT_OPEN = '<memory-context source="memory-service">';
export const CONTEXT_CLOSE = '</memory-context>';
const HEADER = 'Memories from earlier sessions (they may be out of date: the code and the user’s instructions take precedence).';

/** Rough token estimate used for the budget: one token per 4 characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function line(item: ContextItem, maxItemChars: number): string {
  const text = squeeze(item.content);
  const clipped = text.length > maxItemChars ? `${text.slice(0, maxItemChars - 1).trimEnd()}…` : text;
  const date = item.updated_at ? ` (${new Date(item.updated_at).toISOString().slice(0, 10)})` : '';
  return `- [${item.category}] ${clipped}${date}`;
}

/**
 * Pick items by score across sections until the budget is spent, then print them grouped by
 * section in the given order. Returns '' when there is nothing to say.
 */
export function assembleContext(sections: readonly ContextSection[], opts: AssembleOptions): { text: string; count: number } {
  const maxChars = Math.min(opts.maxChars ?? 9000, opts.maxTokens * 4);
  const maxItem = opts.maxItemChars ?? 700;
  const candidates = sections.flatMap((s, si) => s.items.map((item, ii) => ({ si, ii, item, text: line(item, maxItem) })));
  candidates.sort((a, b) => b.item.score - a.item.score || a.si - b.si || a.ii - b.ii);
  const fixed = CONTEXT_OPEN.length + HEADER.length + CONTEXT_CLOSE.length + 4;
  let used = fixed;
  const chosen = new Set<string>();
  const titled = new Set<number>();
  for (const c of candidates) {
    const title = titled.has(c.si) ? 0 : sections[c.si]!.title.length + 5;
    const cost = c.text.length + 1 + title;
    if (used + cost > maxChars) continue;
    used += cost;
    titled.add(c.si);
    chosen.add(`${c.si}:${c.ii}`);
  }
  if (chosen.size === 0) return { text: '', count: 0 };
  const out = [CONTEXT_OPEN, HEADER];
  sections.forEach((s, si) => {
    const items = s.items.map((item, ii) => ({ item, ii })).filter(({ ii }) => chosen.has(`${si}:${ii}`));
    if (items.length === 0) return;
    out.push(`## ${s.title}`);
    for (const { item } of items) out.push(line(item, maxItem));
  });
  out.push(CONTEXT_CLOSE);
  return { text: out.join('\n'), count: chosen.size };
}

/**
 * Two assembled blocks as one: the sections of `a`, then those of `b`, a section `b` shares a title
 * with getting its items under `a`'s heading. For a recall that answers two questions in one hook
 * output (a session's opening block and its first prompt's), each selected within its own budget.
 */
export function joinContext(a: { text: string; count: number }, b: { text: string; count: number }): { text: string; count: number } {
  if (!a.text) return b;
  if (!b.text) return a;
  const sections = new Map<string, string[]>();
  for (const block of [a.text, b.text]) {
    let items: string[] | undefined;
    for (const l of block.split('\n')) {
      if (l.startsWith('## ')) {
        items = sections.get(l) ?? [];
        sections.set(l, items);
      } else if (l.startsWith('- ') && items) items.push(l);
    }
  }
  const out = [CONTEXT_OPEN, HEADER];
  for (const [title, items] of sections) out.push(title, ...items);
  out.push(CONTEXT_CLOSE);
  return { text: out.join('\n'), count: a.count + b.count };
}
