/**
 * Search parity between the server's two backends on LoCoMo: the same import lines go into an
 * engine on LanceDB (the embedded default) and one on PostgreSQL (PgStore), and every question
 * is asked of both in every mode. The bar: the same memory ids in the same order, and
 * scores (fused and cosine) within 1e-6.
 */
import { LanceStore, MemoryEngine, PgStore, type Embedder, type PlannedRow, type SqlClient } from '../../engine/index.js';
import { turnLines, userOf, type Mode } from './engine-corpus.js';
import type { LocomoConversation } from './locomo-data.js';

export const PARITY_EPSILON = 1e-6;
export const PARITY_MODES: readonly Mode[] = ['text', 'vector', 'hybrid'];
const EMBED_BATCH = 64;

export interface ParityMismatch {
  conversation: string;
  question: string;
  mode: Mode;
  /** What differs first: result count, the memory at a rank, or a score beyond the tolerance. */
  what: string;
}

export interface ParityReport {
  conversations: number;
  memories: number;
  questions: number;
  /** Searches compared (questions × modes). */
  searches: number;
  /** Results compared, rank by rank. */
  results: number;
  /** Largest difference of a fused or cosine score between the backends. */
  maxScoreDiff: number;
  mismatches: ParityMismatch[];
  /** Import time per backend (vectors made beforehand, once for both), ms. */
  importMs: { embedded: number; postgres: number };
}

export interface ParityOptions {
  conversations: readonly LocomoConversation[];
  embedder: Embedder;
  /** An empty directory for the LanceDB store. */
  lanceDir: string;
  /** A database for the PgStore (its tables are created in it). */
  db: SqlClient;
  topK?: number;
  modes?: readonly Mode[];
  /** Where PostgreSQL scores full text: the resident view (default, as served without pgvector) or the BM25 statement. */
  text?: 'resident' | 'sql';
  /** Called after each conversation (progress). */
  onConversation?: (done: number, total: number) => void;
}

/** Load both backends with the same rows and compare every question's ranking in every mode. */
export async function locomoParity(o: ParityOptions): Promise<ParityReport> {
  const topK = o.topK ?? 25;
  const modes = o.modes ?? PARITY_MODES;
  // Both imports must embed: an engine stores rows unembedded while its model is still loading.
  await o.embedder.ready();
  const open = async (store: LanceStore | PgStore): Promise<MemoryEngine> => {
    const e = new MemoryEngine({ store, embedder: o.embedder, background: false });
    await e.open();
    return e;
  };
  const embedded = await open(new LanceStore({ dir: o.lanceDir, dim: o.embedder.dim }));
  const postgres = await open(new PgStore({ db: o.db, store: `locomo-parity-${o.text ?? 'resident'}`, dim: o.embedder.dim, pgvector: false, residentText: o.text ?? 'resident' }));
  const report: ParityReport = { conversations: o.conversations.length, memories: 0, questions: 0, searches: 0, results: 0, maxScoreDiff: 0, mismatches: [], importMs: { embedded: 0, postgres: 0 } };
  try {
    // Embedded once, imported into both with those vectors (the model is deterministic).
    const lines = turnLines(o.conversations);
    const contents = lines.map((l) => (JSON.parse(l) as { memory_id: string; content: string }));
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < contents.length; i += EMBED_BATCH) {
      const batch = contents.slice(i, i + EMBED_BATCH);
      (await o.embedder.embedDocuments(batch.map((c) => c.content))).forEach((v, k) => vectors.set(batch[k]!.memory_id, v));
    }
    const withVector = (row: PlannedRow): PlannedRow => ({ ...row, vector: vectors.get(row.memory_id) ?? null, embed_model: o.embedder.model });
    for (const [name, engine] of [['embedded', embedded], ['postgres', postgres]] as const) {
      const t0 = performance.now();
      report.memories = (await engine.import(lines, { rewrite: withVector })).memories;
      report.importMs[name] = performance.now() - t0;
    }
    let done = 0;
    for (const c of o.conversations) {
      for (const q of c.questions) {
        report.questions++;
        for (const mode of modes) {
          const ask = (e: MemoryEngine): ReturnType<MemoryEngine['search']> => e.search({ query: q.question, filter: { user_id: userOf(c.id) }, top_k: topK, mode });
          const [a, b] = [await ask(embedded), await ask(postgres)];
          report.searches++;
          const miss = (what: string): void => void report.mismatches.push({ conversation: c.id, question: q.question, mode, what });
          if (a.mode !== b.mode) {
            miss(`the embedded backend ran ${a.mode}, PostgreSQL ${b.mode}`);
            continue;
          }
          if (a.results.length !== b.results.length) miss(`${a.results.length} results embedded, ${b.results.length} on PostgreSQL`);
          const n = Math.min(a.results.length, b.results.length);
          for (let i = 0; i < n; i++) {
            const x = a.results[i]!;
            const y = b.results[i]!;
            report.results++;
            if (x.row.memory_id !== y.row.memory_id) {
              miss(`rank ${i + 1}: ${x.row.memory_id} (score ${x.score}) embedded, ${y.row.memory_id} (score ${y.score}) on PostgreSQL`);
              break;
            }
            const d = Math.max(Math.abs(x.score - y.score), Math.abs((x.vectorScore ?? 0) - (y.vectorScore ?? 0)));
            report.maxScoreDiff = Math.max(report.maxScoreDiff, d);
            if (d > PARITY_EPSILON || (x.vectorScore === null) !== (y.vectorScore === null)) {
              miss(`rank ${i + 1} (${x.row.memory_id}): scores ${x.score}/${x.vectorScore} embedded, ${y.score}/${y.vectorScore} on PostgreSQL`);
              break;
            }
          }
        }
      }
      o.onConversation?.(++done, o.conversations.length);
    }
    return report;
  } finally {
    await embedded.close();
    await postgres.close();
  }
}
