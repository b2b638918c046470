/**
 * LoCoMo retrieval evaluation (`npm run eval:locomo`, issue 8): every turn of the benchmark's
 * conversations becomes a memory through the engine's public API, every question of categories
 * 1–4 a search scoped to its conversation's user, scored by recall@5/10/25 and MRR of the evidence
 * turns for full text only, vector only and hybrid. Prints markdown and rewrites the
 * `bench:locomo` section of BENCHMARKS.md.
 *
 *   npm run eval:locomo                      all 10 conversations (writes BENCHMARKS.md)
 *   npm run eval:locomo -- --quick           the first 2 conversations (prints only)
 *   options: --conversations N, --model-dir DIR (or SERVICE_MODEL_DIR), --data FILE,
 *            --json FILE (per-question rankings), --write / --no-write
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LanceStore, MemoryEngine } from '../../engine/index.js';
import { machineDescription } from '../bench/machine.js';
import { withSection } from '../bench/markdown.js';
import { summarize } from '../bench/stats.js';
import { ingest, retrieve, type Mode } from './engine-corpus.js';
import { CATEGORY_NAMES, evalSet, loadLocomo } from './locomo-data.js';
import { KS, renderLocomo, type LocomoResults, type ModeResult } from './locomo-report.js';
import { aggregateByGroup, type Judged } from './metrics.js';
import { loadEmbedder, resolveEvalModel } from './model.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const repoRoot = path.resolve(here, '..', '..', '..');
/** Vector first: it embeds the question; hybrid reuses the engine's cached query vector. */
const MODES: Mode[] = ['vector', 'hybrid', 'text'];
const TOP_K = Math.max(...KS);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      conversations: { type: 'string' },
      'model-dir': { type: 'string' },
      data: { type: 'string' },
      json: { type: 'string' },
      write: { type: 'boolean' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const quick = values.quick ?? false;
  const write = values['no-write'] ? false : (values.write ?? !quick);
  const started = performance.now();
  const data = loadLocomo(repoRoot, values.data);
  const take = Number(values.conversations ?? (quick ? 2 : data.conversations.length));
  const conversations = data.conversations.slice(0, take);
  const set = evalSet(conversations);
  const model = resolveEvalModel(repoRoot, values['model-dir']);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-locomo-'));
  try {
    console.log(`· model ${model.dir} (${model.label})`);
    const { embedder, loadMs } = await loadEmbedder(model, path.join(tmp, 'models'));
    const engine = new MemoryEngine({ store: new LanceStore({ dir: path.join(tmp, 'lance'), dim: embedder.dim }), embedder, background: false });
    await engine.open();
    const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
    console.log(`· adding ${turns} turns of ${conversations.length} conversations`);
    const added = await ingest(engine, conversations);
    await engine.maintain(true);
    console.log(`· ${added.memories} memories in ${(added.ms / 1000).toFixed(1)} s; ${set.questions.length} questions × ${MODES.length} modes`);

    const judged = new Map<Mode, Judged[]>(MODES.map((m) => [m, []]));
    const storeMs = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
    const embedMs: number[] = [];
    const rows: { index: number; category: number; gold: string[]; ranked: Record<string, string[]> }[] = [];
    for (const [i, q] of set.questions.entries()) {
      const ranked: Record<string, string[]> = {};
      for (const mode of MODES) {
        const r = await retrieve(engine, q, mode, TOP_K, true);
        if (mode === 'vector') embedMs.push(r.embedMs);
        storeMs.get(mode)!.push(r.searchMs);
        judged.get(mode)!.push({ group: `${q.category} ${CATEGORY_NAMES[q.category]}`, gold: q.evidence, ranked: r.ids });
        ranked[mode] = r.ids;
      }
      rows.push({ index: i, category: q.category, gold: q.evidence, ranked });
      if ((i + 1) % 200 === 0) console.log(`  ${i + 1}/${set.questions.length}`);
    }
    await engine.close();
    await embedder.close();

    const sortGroups = (items: Judged[]): Judged[] => [...items].sort((a, b) => a.group.localeCompare(b.group));
    const modes: ModeResult[] = (['text', 'vector', 'hybrid'] as Mode[]).map((mode) => {
      const { overall, groups } = aggregateByGroup(sortGroups(judged.get(mode)!), KS);
      return { mode, overall, groups, latency: summarize(storeMs.get(mode)!) };
    });
    const results: LocomoResults = {
      command: `npm run eval:locomo${quick ? ' -- --quick' : ''}`,
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      machine: machineDescription(),
      durationSec: (performance.now() - started) / 1000,
      dataFile: path.relative(repoRoot, data.file),
      conversations: conversations.length,
      turns,
      captions: conversations.reduce((n, c) => n + c.turns.filter((t) => t.caption).length, 0),
      set,
      model: { label: model.label, standIn: model.standIn, loadMs },
      ingest: added,
      modes,
      embedding: summarize(embedMs),
    };
    const md = renderLocomo(results);
    console.log(`\n${md}\n`);
    if (values.json) fs.writeFileSync(values.json, JSON.stringify({ model: model.label, rows }, null, 1));
    if (write) {
      const file = path.join(repoRoot, 'BENCHMARKS.md');
      fs.writeFileSync(file, withSection(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null, 'locomo', md));
      console.log(`· wrote ${file}`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
