/**
 * LoCoMo through the engine's public API: every turn becomes a memory of its conversation's
 * user (valid from the session's date, the dialog id in metadata), and every question is a search
 * scoped to that user whose results map back to dialog ids. Turns go in one `engine.add` each
 * (the path add throughput is measured on) or, faster, as one `engine.import` (the batch path
 * behind POST /v1/imports): the same rows either way.
 */
import { uuidv7, type MemoryEngine } from '../../engine/index.js';
import { memoryContent, type LocomoConversation, type LocomoQuestion } from './locomo-data.js';

/** Adds kept in flight at once (the engine commits concurrent adds in batches). */
export const ADD_WINDOW = 64;

/** The user a conversation's memories belong to. */
export function userOf(conversationId: string): string {
  return `locomo-${conversationId}`;
}

/** Run `fn` over `items` with at most `window` calls in flight, in order of start. */
export async function inWindow<T>(items: readonly T[], window: number, fn: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, items.length) }, worker));
}

/** Add every turn; returns how many memories were added and how long it took (ms). */
export async function ingest(engine: MemoryEngine, conversations: readonly LocomoConversation[], window = ADD_WINDOW): Promise<{ memories: number; ms: number }> {
  const t0 = performance.now();
  let memories = 0;
  for (const c of conversations) {
    const user = userOf(c.id);
    await inWindow(c.turns, window, async (t) => {
      await engine.add({ content: memoryContent(t), user_id: user, valid_from: t.at, metadata: { dia_id: t.id }, source: { kind: 'api' } });
      memories++;
    });
  }
  await engine.flushWrites();
  return { memories, ms: performance.now() - t0 };
}

/** Import every turn as version lines (batches of 500 rows, embedded per batch). */
export async function importTurns(engine: MemoryEngine, conversations: readonly LocomoConversation[], lines: readonly string[] = turnLines(conversations)): Promise<{ memories: number; ms: number }> {
  const t0 = performance.now();
  const r = await engine.import(lines);
  return { memories: r.memories, ms: performance.now() - t0 };
}

/** Every turn as an import line (fresh ids each call: import one result into several engines to compare them). */
export function turnLines(conversations: readonly LocomoConversation[]): string[] {
  const now = new Date().toISOString();
  return conversations.flatMap((c) =>
    c.turns.map((t) => {
      const at = new Date(t.at).toISOString();
      return JSON.stringify({
        kind: 'version', version_id: uuidv7(), memory_id: uuidv7(), version: 1, tx: 1, content: memoryContent(t), user_id: userOf(c.id),
        agent_id: null, app_id: null, run_id: null, owner_id: null, space: 'project', repo: null, dir: null, category: 'note',
        metadata: { dia_id: t.id }, source: { kind: 'api' }, valid_from: at, valid_to: null, recorded_at: now, created_at: now, deleted: false, block: null,
      });
    }),
  );
}

export type Mode = 'text' | 'vector' | 'hybrid';

export interface Retrieved {
  /** Dialog ids, best first. */
  ids: string[];
  /** Wall time of the search call, ms (query embedding included). */
  ms: number;
  /** The engine's own split: query embedding and store + ranking. */
  embedMs: number;
  searchMs: number;
}

export async function retrieve(engine: MemoryEngine, q: LocomoQuestion, mode: Mode, topK: number, exact: boolean): Promise<Retrieved> {
  const t0 = performance.now();
  const out = await engine.search({ query: q.question, filter: { user_id: userOf(q.conversation) }, top_k: topK, mode, exact });
  const ms = performance.now() - t0;
  if (mode !== 'text' && out.mode !== mode) throw new Error(`asked for a ${mode} search, the engine ran ${out.mode}: is the model loaded?`);
  return { ids: out.results.map((r) => String(r.row.metadata.dia_id)), ms, embedMs: out.embed_ms, searchMs: out.search_ms };
}
