/** The LoCoMo evaluation as the markdown section of BENCHMARKS.md. */
import { table } from '../bench/markdown.js';
import { ms } from '../bench/stats.js';
import type { Summary } from '../bench/stats.js';
import type { Mode } from './engine-corpus.js';
import type { EvalSet } from './locomo-data.js';
import type { Aggregate } from './metrics.js';

export const KS = [5, 10, 25] as const;

/** The LoCoMo paper's dialog-retrieval result (its own retriever; recall in %). */
export const PAPER = { recall5: 56.7, recall10: 66.2 };

export interface ModeResult {
  mode: Mode;
  overall: Aggregate;
  groups: Map<string, Aggregate>;
  /** The engine's store-and-ranking time per search (query embedding excluded). */
  latency: Summary;
}

export interface LocomoResults {
  command: string;
  date: string;
  machine: string;
  durationSec: number;
  dataFile: string;
  conversations: number;
  turns: number;
  captions: number;
  set: EvalSet;
  model: { label: string; standIn: boolean; loadMs: number };
  /** The first conversation through engine.add, the others through engine.import. */
  ingest: { added: { memories: number; ms: number }; imported: { memories: number; ms: number } };
  modes: ModeResult[];
  /** Query embedding (uncached, once per question). */
  embedding: Summary;
  /** Whether the store answered searches from its in-memory view (else through its LanceDB indexes). */
  inMemory: boolean;
}

const rate = (x: { memories: number; ms: number }): string => (x.memories / (x.ms / 1000)).toFixed(0);
const pct = (x: number | undefined): string => (x === undefined || Number.isNaN(x) ? 'n/a' : (100 * x).toFixed(1));

function retrieverName(mode: Mode, r: LocomoResults): string {
  if (mode === 'text') return 'engine, full text only (BM25)';
  return `engine, ${mode === 'vector' ? 'vector only' : 'hybrid (vector + full text)'}: ${r.model.label}`;
}

export function hybridVerdict(r: LocomoResults): { met: boolean; text: number; hybrid: number } | null {
  const text = r.modes.find((m) => m.mode === 'text')?.overall.recall[10];
  const hybrid = r.modes.find((m) => m.mode === 'hybrid')?.overall.recall[10];
  if (text === undefined || hybrid === undefined) return null;
  return { met: hybrid >= text, text, hybrid };
}

export function renderLocomo(r: LocomoResults): string {
  const overall = table(
    ['retriever', 'questions', 'recall@5', 'recall@10', 'recall@25', 'MRR'],
    [
      ...r.modes.map((m) => [retrieverName(m.mode, r), m.overall.n, pct(m.overall.recall[5]), pct(m.overall.recall[10]), pct(m.overall.recall[25]), m.overall.mrr.toFixed(3)]),
      ['LoCoMo paper, dialog retrieval, top-k dialogs: **a different retriever**, reported, not run here', '—', PAPER.recall5.toFixed(1), PAPER.recall10.toFixed(1), '—', '—'],
    ],
  );
  const groups = [...(r.modes[0]?.groups.keys() ?? [])];
  const perCategory = table(
    ['category', 'questions', 'retriever', 'recall@5', 'recall@10', 'recall@25', 'MRR'],
    groups.flatMap((g) =>
      r.modes.map((m) => {
        const a = m.groups.get(g)!;
        return [g, a.n, m.mode, pct(a.recall[5]), pct(a.recall[10]), pct(a.recall[25]), a.mrr.toFixed(3)];
      }),
    ),
  );
  const latency = table(
    ['retriever', 'store + ranking p50 ms', 'p95 ms', 'p99 ms'],
    r.modes.map((m) => [m.mode, ms(m.latency.p50), ms(m.latency.p95), ms(m.latency.p99)]),
  );
  const v = hybridVerdict(r);
  const s = r.set;
  return [
    '## LoCoMo retrieval (`scripts/eval/locomo.ts`)',
    '',
    `- Command: \`${r.command}\` (${r.durationSec.toFixed(0)} s), ${r.date}`,
    `- Machine: ${r.machine}`,
    `- Data: \`${r.dataFile}\` (LoCoMo, Maharana et al., ACL 2024, CC BY-NC 4.0, read at run time, not in this repository). ${r.conversations} conversations, ${r.turns.toLocaleString('en-US')} turns (${r.captions} with an image caption, appended to the text) → one memory each, one \`user_id\` per conversation, \`valid_from\` = the session's date: the first conversation through \`engine.add\` (${r.ingest.added.memories} in ${(r.ingest.added.ms / 1000).toFixed(1)} s, ${rate(r.ingest.added)}/s), the others through \`engine.import\`, the batch path (${r.ingest.imported.memories.toLocaleString('en-US')} in ${(r.ingest.imported.ms / 1000).toFixed(1)} s, ${rate(r.ingest.imported)}/s), embedding included.`,
    `- Questions: ${s.asked.toLocaleString('en-US')} of categories 1–4; ${s.questions.length.toLocaleString('en-US')} scored. **Unanswerable: ${s.unanswerable}** (no evidence id names an existing turn; not scored). Evidence ids that cannot be retrieved: ${s.malformed} malformed (e.g. \`D8:6; D9:17\`, \`D:11:26\`), ${s.missing} naming no turn; ${s.partial} scored questions lost some of theirs. Category 5 (adversarial, ${s.skipped} questions) has no evidence answer and is not asked.`,
    `- Each question is one \`engine.search\` scoped to its conversation's user, \`top_k\` 25; recall@5 and @10 are prefixes of that ranking. Exact vector search (the approximate index's own recall is the engine benchmark's subject). Store: LanceDB in a temp dir, compacted and indexed after the adds${r.inMemory ? ', searched in memory (its resident view: every memory fits the default budget)' : ''}.`,
    `- Model: ${r.model.label}, loaded in ${ms(r.model.loadMs)} ms.${r.model.standIn ? ' **Random weights**: its vectors act like a random projection of the bag of words, so the vector and hybrid rows measure a lexical stand-in, not semantic retrieval. Run with `SERVICE_MODEL_DIR=<a real model folder>` for real numbers.' : ''}`,
    '',
    table(
      ['target', 'measured', 'verdict'],
      [['hybrid recall@10 ≥ full-text recall@10 (fusion never makes it worse)', v ? `${pct(v.hybrid)} vs ${pct(v.text)}` : 'n/a', v ? (v.met ? '**met**' : '**missed**') : 'not measured']],
    ),
    '',
    overall,
    '',
    'Recall in %, averaged per question (|evidence ∩ top k| / |evidence|); MRR = mean of 1 / rank of the first evidence turn within the 25 results (0 when none).',
    '',
    '### Per category',
    '',
    perCategory,
    '',
    `### Search latency during the evaluation (in process, one search at a time, exact vector search, query embedding excluded; embedding a question on its own took p50 ${ms(r.embedding.p50)} ms, p95 ${ms(r.embedding.p95)} ms)`,
    '',
    latency,
    '',
    '### What these numbers mean and do not mean',
    '',
    '- They measure whether the turns a question was written from come back among the first k memories: retrieval, not answer quality (no LLM reads them here).',
    `- ${r.model.standIn ? 'The vector and hybrid rows use random weights; they show how fusion behaves when the vector channel is a noisy lexical signal, not how a semantic model ranks. ' : ''}The full-text row is model-independent.`,
    '- The paper row is copied from the LoCoMo paper (dialog turns as retrieval units, its own retriever and setup); it is context for scale, not a like-for-like comparison.',
    '- LoCoMo turns are chit-chat between two people; a coding agent\'s memories are shorter, more technical statements. Good numbers here do not transfer automatically.',
  ].join('\n');
}
