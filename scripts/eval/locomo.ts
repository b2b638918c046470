/**
 * LoCoMo retrieval evaluation and the peer side by side (issue 8).
 *
 * Every turn of the benchmark's conversations becomes a memory through `engine.add`; every
 * question of categories 1–4 is a search scoped to its conversation's user, scored by
 * recall@5/10/25 and MRR of the evidence turns for full text only, vector only and hybrid
 * (`bench:locomo` section). With `--peer`, mem0's open-source memory gets the same turns and
 * questions in the same run (scripts/eval/peer.ts; `bench:peer` section). One ingest serves both.
 *
 *   npm run eval:locomo                  evaluation, all 10 conversations (writes BENCHMARKS.md)
 *   npm run eval:peer                    the side by side only
 *   npm run eval:locomo -- --peer        both in one run (what `npm run bench` does)
 *   options: --quick (first conversation, prints only), --conversations N, --peer-every N (the side
 *            by side asks every Nth question; default 3, 1 with --quick),
 *            --model-dir DIR (or SERVICE_MODEL_DIR), --data FILE (another file in LoCoMo's shape),
 *            --json FILE (per-question rankings),
 *            --write / --no-write
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LanceStore, MemoryEngine } from '../../engine/index.js';
import { machineDescription } from '../bench/machine.js';
import { writeBenchSection } from '../bench/markdown.js';
import { summarize } from '../bench/stats.js';
import { importTurns, ingest, retrieve, userOf, type Mode } from './engine-corpus.js';
import { CATEGORY_NAMES, evalSet, loadLocomo } from './locomo-data.js';
import { KS, renderLocomo, type LocomoResults, type ModeResult } from './locomo-report.js';
import { aggregateByGroup, type Judged } from './metrics.js';
import { loadEmbedder, resolveEvalModel } from './model.js';
import { renderPeer } from './peer-report.js';
import { PeerRun } from './peer.js';
import { RecordingEmbedder } from './recording-embedder.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const repoRoot = path.resolve(here, '..', '..', '..');
/** Vector first: it embeds the question (unless the peer search did); hybrid reuses the cached vector. */
const MODES: Mode[] = ['vector', 'hybrid', 'text'];
const TOP_K = Math.max(...KS);

function now(): string {
  return new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

function writeSection(name: string, md: string): void {
  writeBenchSection(path.join(repoRoot, 'BENCHMARKS.md'), name, md);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      peer: { type: 'boolean', default: false },
      'peer-every': { type: 'string' },
      'peer-only': { type: 'boolean', default: false },
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
  const withPeer = (values.peer ?? false) || (values['peer-only'] ?? false);
  const withEval = !values['peer-only'];
  /** The side by side asks every Nth question (mem0's searches are slow; the comparison needs a sample). */
  const peerEvery = Math.max(1, Number(values['peer-every'] ?? (quick ? 1 : 3)));
  const flags = [quick ? '--quick' : '', withEval && withPeer ? '--peer' : ''].filter(Boolean);
  const command = `npm run ${withEval ? 'eval:locomo' : 'eval:peer'}${flags.length > 0 ? ` -- ${flags.join(' ')}` : ''}`;
  const started = performance.now();
  const data = loadLocomo(repoRoot, values.data);
  const conversations = data.conversations.slice(0, Number(values.conversations ?? (quick ? 1 : data.conversations.length)));
  const set = evalSet(conversations);
  const model = resolveEvalModel(repoRoot, values['model-dir']);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-locomo-'));
  let peer: PeerRun | null = null;
  try {
    console.log(`· model ${model.dir} (${model.label})`);
    const { embedder: modelEmbedder, loadMs } = await loadEmbedder(model, path.join(tmp, 'models'));
    const embedder = new RecordingEmbedder(modelEmbedder);
    const store = new LanceStore({ dir: path.join(tmp, 'lance'), dim: embedder.dim });
    const engine = new MemoryEngine({ store, embedder, background: false });
    await engine.open();
    if (withPeer) peer = await PeerRun.start(modelEmbedder, { modelName: model.name, tmp, known: embedder.documents });
    const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
    console.log(`· ${conversations[0]!.turns.length} turns through engine.add, ${turns - conversations[0]!.turns.length} through engine.import`);
    const added = await ingest(engine, conversations.slice(0, 1));
    const imported = await importTurns(engine, conversations.slice(1));
    const t0 = performance.now();
    await engine.maintain(true); // compaction and indexes, as the engine's background upkeep would
    const indexMs = performance.now() - t0;
    const indexed = (await engine.status()).vectorIndex;
    const inMemory = store.residentRows() !== null;
    console.log(`· added ${added.memories} in ${(added.ms / 1000).toFixed(1)} s, imported ${imported.memories} in ${(imported.ms / 1000).toFixed(1)} s, maintenance ${(indexMs / 1000).toFixed(1)} s`);
    if (peer) {
      console.log(`· adding the same turns to mem0 ${peer.version}`);
      await peer.ingest(conversations);
      await peer.probeHttp(set.questions.slice(0, 30).map((q) => q.question));
      await peer.warm(engine, userOf(conversations[0]!.id));
    }

    const judged = new Map<Mode, Judged[]>(MODES.map((m) => [m, []]));
    const storeMs = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
    const rows: { index: number; category: number; gold: string[]; ranked: Record<string, string[]> }[] = [];
    console.log(`· ${set.questions.length} questions${withEval ? ` × ${MODES.length} modes` : ''}${peer ? ', and both systems side by side' : ''}`);
    for (const [i, q] of set.questions.entries()) {
      if (peer && i % peerEvery === 0) await peer.question(engine, q, i / peerEvery);
      if (withEval) {
        const ranked: Record<string, string[]> = {};
        for (const mode of MODES) {
          const r = await retrieve(engine, q, mode, TOP_K, true);
          storeMs.get(mode)!.push(r.searchMs);
          judged.get(mode)!.push({ group: `${q.category} ${CATEGORY_NAMES[q.category]}`, gold: q.evidence, ranked: r.ids });
          ranked[mode] = r.ids;
        }
        rows.push({ index: i, category: q.category, gold: q.evidence, ranked });
      }
      if ((i + 1) % 250 === 0) console.log(`  ${i + 1}/${set.questions.length}`);
    }
    const embedMs = await queryEmbedding(embedder, set.questions.slice(0, 100).map((q) => q.question));
    await engine.close();
    await peer?.close();
    await embedder.close();
    const durationSec = (performance.now() - started) / 1000;

    if (withEval) {
      const modes: ModeResult[] = (['text', 'vector', 'hybrid'] as Mode[]).map((mode) => {
        const items = [...judged.get(mode)!].sort((a, b) => a.group.localeCompare(b.group));
        const { overall, groups } = aggregateByGroup(items, KS);
        return { mode, overall, groups, latency: summarize(storeMs.get(mode)!) };
      });
      const results: LocomoResults = {
        command,
        date: now(),
        machine: machineDescription(),
        durationSec,
        dataFile: path.relative(repoRoot, data.file),
        conversations: conversations.length,
        turns,
        captions: conversations.reduce((n, c) => n + c.turns.filter((t) => t.caption).length, 0),
        set,
        model: { label: model.label, standIn: model.standIn, loadMs },
        ingest: { added, imported },
        modes,
        embedding: summarize(embedMs),
        inMemory,
      };
      const md = renderLocomo(results);
      console.log(`\n${md}\n`);
      if (values.json) fs.writeFileSync(values.json, JSON.stringify({ model: model.label, rows }, null, 1));
      if (write) writeSection('locomo', md);
    }
    if (peer) {
      const results = peer.results({ command, date: now(), machine: machineDescription(), durationSec, conversations: conversations.length, memories: turns, every: peerEvery, of: set.questions.length, model: { label: model.label, standIn: model.standIn }, ourAdds: added, indexMs, indexed, inMemory });
      const md = renderPeer(results);
      console.log(`\n${md}\n`);
      const c = results.checks;
      if (c.llmCalls > 0 || c.otherCalls > 0 || c.blockedFetches > 0) throw new Error(`the peer reached for an LLM or the network (${JSON.stringify(c)}); the comparison is void`);
      if (write) writeSection('peer', md);
    }
  } finally {
    await peer?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Query embedding on its own (the model, uncached), ms per question. */
async function queryEmbedding(embedder: { embedQuery(t: string): Promise<Float32Array> }, texts: readonly string[]): Promise<number[]> {
  const out: number[] = [];
  for (const t of texts) {
    const t0 = performance.now();
    await embedder.embedQuery(t);
    out.push(performance.now() - t0);
  }
  return out;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
