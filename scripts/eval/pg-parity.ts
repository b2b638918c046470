/**
 * LoCoMo search parity of the server's backends (`npm run eval:pg-parity`): all ten
 * conversations imported into LanceDB and into PostgreSQL (PgStore, its vector channel the
 * resident view, as on a database without pgvector), every question asked of both in text,
 * vector and hybrid mode, rankings compared rank by rank (scripts/eval/backend-parity.ts).
 * Writes the `locomo-parity` section of BENCHMARKS.md; exits 1 when any search differs.
 *
 * Options: --conversations N (all), --text resident|sql (where PostgreSQL scores full text;
 * `sql` writes the `locomo-parity-sql` section), --model-dir DIR (or SERVICE_MODEL_DIR; default the
 * random-weight MiniLM of ../shared/models), --data FILE, --database-url URL (default: a
 * throwaway PostgreSQL 15 cluster started here), --no-write.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pgPoolClient } from '../../engine/index.js';
import { startPostgres, type TestPostgres } from '../../test/helpers/postgres.js';
import { machineDescription } from '../bench/machine.js';
import { writeBenchSection } from '../bench/markdown.js';
import { locomoParity, PARITY_EPSILON, PARITY_MODES } from './backend-parity.js';
import { loadLocomo } from './locomo-data.js';
import { loadEmbedder, resolveEvalModel } from './model.js';

const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..');
const TOP_K = 25;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      conversations: { type: 'string' },
      'model-dir': { type: 'string' },
      data: { type: 'string' },
      'database-url': { type: 'string' },
      text: { type: 'string', default: 'resident' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const { file, conversations: all } = loadLocomo(repoRoot, values.data);
  const conversations = all.slice(0, values.conversations ? Number(values.conversations) : all.length);
  const model = resolveEvalModel(repoRoot, values['model-dir']);
  const text = values.text;
  if (text !== 'resident' && text !== 'sql') throw new Error(`--text takes resident or sql, not ${text}`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-parity-'));
  let cluster: TestPostgres | null = null;
  const { embedder } = await loadEmbedder(model, path.join(work, 'models'));
  try {
    let url = values['database-url'] ?? '';
    if (!url) {
      cluster = await startPostgres();
      url = await cluster.createDatabase('parity');
    }
    const db = pgPoolClient(url, { max: 4 });
    const t0 = performance.now();
    const r = await locomoParity({
      conversations,
      embedder,
      lanceDir: path.join(work, 'lance'),
      db,
      topK: TOP_K,
      text,
      onConversation: (done, total) => process.stdout.write(`\rcompared ${done}/${total} conversations`),
    }).finally(() => db.close());
    process.stdout.write('\n');
    const seconds = (performance.now() - t0) / 1000;
    const equal = r.mismatches.length === 0 && r.maxScoreDiff <= PARITY_EPSILON;
    const section = [
      `## LoCoMo search parity: PostgreSQL and the embedded backend (\`npm run eval:pg-parity${text === 'sql' ? ' -- --text sql' : ''}\`)`,
      '',
      `${r.conversations} LoCoMo conversations (${r.memories.toLocaleString('en-US')} turns, read from ${path.basename(file)}) imported as the same version lines into LanceDB and into PostgreSQL 15 (PgStore without pgvector: ${text === 'sql' ? 'vectors from the resident view, full text by the BM25 statement in SQL' : 'both channels from the resident view, as a replica serves them'}), model ${model.label}; every one of the ${r.questions.toLocaleString('en-US')} questions asked of both in ${PARITY_MODES.join(', ')} mode, top ${TOP_K}, scoped to its conversation's user. Machine: ${machineDescription()}.`,
      '',
      '| searches compared | results compared rank by rank | searches that differ | largest score difference | import embedded / PostgreSQL |',
      '| ---: | ---: | ---: | ---: | ---: |',
      `| ${r.searches.toLocaleString('en-US')} | ${r.results.toLocaleString('en-US')} | ${r.mismatches.length} | ${r.maxScoreDiff.toExponential(2)} | ${(r.importMs.embedded / 1000).toFixed(1)} s / ${(r.importMs.postgres / 1000).toFixed(1)} s |`,
      '',
      `Target: the same ids in the same order, scores within ${PARITY_EPSILON} → **${equal ? 'met' : 'missed'}**${r.mismatches.length > 0 ? ` (first difference: ${r.mismatches[0]!.mode} search "${r.mismatches[0]!.question}", ${r.mismatches[0]!.what})` : ''}. Run time ${seconds.toFixed(0)} s.`,
      '',
      `Reproduce: \`npm run eval:pg-parity${text === 'sql' ? ' -- --text sql' : ''}\` (options: \`--conversations N --text resident|sql --database-url postgres://… --model-dir DIR\`).`,
    ].join('\n');
    console.log(`\n${section}\n`);
    if (!values['no-write']) writeBenchSection(path.join(repoRoot, 'BENCHMARKS.md'), text === 'sql' ? 'locomo-parity-sql' : 'locomo-parity', section);
    return equal ? 0 : 1;
  } finally {
    await embedder.close();
    await cluster?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
