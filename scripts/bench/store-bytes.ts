/**
 * Where a LanceStore's bytes go (issue 20's disk target): seeds a store of N memories of the bench
 * corpus (daemon-seed.ts, the store `npm run bench:daemon -- --sessions 20` starts from), or reads
 * copies of an existing data dir (never the dir itself), and prints per table: data files, each
 * index by kind, deletion files, manifests and transactions; per column, the bytes the column
 * takes when written alone in the store's file format (a scratch table, one fragment); and the
 * size of an export of everything.
 *
 *   node dist/scripts/bench/store-bytes.js [--memories 10000] [--home DIR] [--keep]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as lancedb from '@lancedb/lancedb';
import { LanceStore, MemoryEngine, resolvePaths } from '../../engine/index.js';
import { ftsIndex, vectorIndex, vectorIndexPlan } from '../../engine/store/lance-indexes.js';
import { loadLanceRuntime } from '../../engine/store/lance-runtime.js';
import { openSeeder } from './daemon-seed.js';
import { modelDtype } from './model-choice.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const repoRoot = path.resolve(here, '..', '..', '..');

function du(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const e of fs.readdirSync(p)) total += du(path.join(p, e));
  return total;
}

/** The kind of one index directory, told from its file names. */
function indexKind(dir: string): string {
  const files = fs.readdirSync(dir);
  if (files.some((f) => f.endsWith('.idx'))) return 'vector (IVF)';
  if (files.some((f) => f.includes('invert') || f.includes('tokens') || f.includes('docs'))) return 'full text';
  if (files.some((f) => f.startsWith('bitmap'))) return 'bitmap';
  if (files.some((f) => f.startsWith('page_'))) return 'btree';
  return `other (${files.join(',')})`;
}

export interface TableBytes {
  table: string;
  rows: number;
  fragments: number;
  data: number;
  indexes: Record<string, number>;
  deletions: number;
  manifests: number;
  transactions: number;
  other: number;
  total: number;
  columns: Record<string, number>;
  columnIndexes: Record<string, number>;
}

async function measureTable(db: lancedb.Connection, lanceDir: string, name: string, scratch: lancedb.Connection, scratchDir: string): Promise<TableBytes> {
  const dir = path.join(lanceDir, `${name}.lance`);
  const tbl = await db.openTable(name);
  const stats = await tbl.stats();
  const indexes: Record<string, number> = {};
  const idxRoot = path.join(dir, '_indices');
  if (fs.existsSync(idxRoot)) {
    for (const u of fs.readdirSync(idxRoot)) {
      const kind = indexKind(path.join(idxRoot, u));
      indexes[kind] = (indexes[kind] ?? 0) + du(path.join(idxRoot, u));
    }
  }
  const known = ['data', '_indices', '_deletions', '_versions', '_transactions'];
  const other = fs
    .readdirSync(dir)
    .filter((f) => !known.includes(f))
    .reduce((n, f) => n + du(path.join(dir, f)), 0);
  // Each column written alone into a scratch table of the same format, in one fragment, with the
  // index the table has on it built alone too.
  const columns: Record<string, number> = {};
  const columnIndexes: Record<string, number> = {};
  const schema = await tbl.schema();
  const indexOn = new Map((await tbl.listIndices()).map((i) => [i.columns[0]!, i.indexType]));
  for (const f of schema.fields) {
    const data = await tbl.query().select([f.name]).toArrow();
    const t = await scratch.createTable(`${name}_${f.name}`, data, { mode: 'overwrite' });
    const at = path.join(scratchDir, `${name}_${f.name}.lance`);
    columns[f.name] = du(path.join(at, 'data'));
    const kind = indexOn.get(f.name);
    if (kind) {
      const config =
        kind === 'FTS' ? ftsIndex() : kind === 'Bitmap' ? lancedb.Index.bitmap() : kind === 'BTree' ? lancedb.Index.btree() : vectorIndex(vectorIndexPlan(stats.numRows));
      await t.createIndex(f.name, { config });
      columnIndexes[`${f.name} (${kind})`] = du(path.join(at, '_indices'));
    }
    t.close();
  }
  tbl.close();
  const r: Omit<TableBytes, 'total'> = {
    table: name,
    rows: stats.numRows,
    fragments: stats.fragmentStats.numFragments,
    data: du(path.join(dir, 'data')),
    indexes,
    deletions: du(path.join(dir, '_deletions')),
    manifests: du(path.join(dir, '_versions')),
    transactions: du(path.join(dir, '_transactions')),
    other,
    columns,
    columnIndexes,
  };
  return { ...r, total: du(dir) };
}

const kb = (b: number, rows: number): string => `${(b / Math.max(1, rows)).toFixed(0)} B/row`;
const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(2)} MB`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      memories: { type: 'string', default: '10000' },
      home: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'model-dir': { type: 'string' },
      dtype: { type: 'string', default: 'q8' },
    },
  });
  const modelDir = path.resolve(values['model-dir'] ?? path.join(repoRoot, '..', 'shared', 'models', 'random-minilm-l6'));
  await loadLanceRuntime();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'store-bytes-'));
  const home = values.home ? path.resolve(values.home) : path.join(tmp, 'home');
  try {
    const paths = resolvePaths(home);
    if (!values.home) {
      const seeder = await openSeeder({ home, modelDir, dtype: modelDtype(values.dtype), userId: 'bench-user', repo: 'github.com/acme/web-app' }, { poolSize: 3000, seed: 42 });
      await seeder.growTo(Number(values.memories));
      await seeder.close();
    }
    // Measured on copies: the data dir is never changed (this build would upgrade one written by an
    // older build on open). Timestamps kept: LanceDB deletes no file it finds newer than the
    // versions that reference it.
    const asIs = du(paths.lanceDir);
    const live = path.join(tmp, 'live');
    fs.cpSync(paths.lanceDir, live, { recursive: true, preserveTimestamps: true });
    const forExport = path.join(tmp, 'export');
    fs.cpSync(paths.lanceDir, forExport, { recursive: true, preserveTimestamps: true });
    // The export, as `service export` writes it (one JSON line per version, no vectors).
    const engine = new MemoryEngine({ store: new LanceStore({ dir: forExport, dim: 384 }), background: false });
    await engine.open();
    let exportBytes = 0;
    let versions = 0;
    for await (const line of engine.exportLines()) {
      exportBytes += Buffer.byteLength(JSON.stringify(line)) + 1;
      versions++;
    }
    await engine.close();
    // What is live: every old table version deleted (what settled upkeep converges on).
    {
      const db = await lancedb.connect(live);
      for (const name of await db.tableNames()) {
        const t = await db.openTable(name);
        for (let i = 0; i < 3; i++) await t.optimize({ cleanupOlderThan: new Date(Date.now() + 1000), deleteUnverified: true });
        t.close();
      }
      db.close();
    }
    console.log(`as found: lance/ ${mb(asIs)} = ${(asIs / exportBytes).toFixed(2)}× the export (old table versions included)`);
    const db = await lancedb.connect(live);
    const scratchDir = path.join(tmp, 'scratch');
    const scratch = await lancedb.connect(scratchDir);
    const tables: TableBytes[] = [];
    for (const name of await db.tableNames()) tables.push(await measureTable(db, live, name, scratch, scratchDir));
    db.close();
    scratch.close();
    const lanceTotal = du(live);
    console.log(`versions ${versions}, export ${mb(exportBytes)} (${kb(exportBytes, versions)}); live lance/ ${mb(lanceTotal)} = ${(lanceTotal / exportBytes).toFixed(2)}× the export`);
    for (const t of tables) {
      console.log(`\n${t.table}: ${t.rows} rows, ${t.fragments} fragments, ${mb(t.total)} (${kb(t.total, t.rows)})`);
      console.log(`  data files ${mb(t.data)} (${kb(t.data, t.rows)}), deletions ${mb(t.deletions)}, manifests ${mb(t.manifests)}, transactions ${mb(t.transactions)}, other ${mb(t.other)}`);
      for (const [k, v] of Object.entries(t.indexes).sort((a, b) => b[1] - a[1])) console.log(`  index ${k}: ${mb(v)} (${kb(v, t.rows)})`);
      const cols = Object.entries(t.columns).sort((a, b) => b[1] - a[1]);
      console.log(`  columns written alone (sum ${mb(cols.reduce((n, [, v]) => n + v, 0))}):`);
      for (const [c, v] of cols) console.log(`    ${c.padEnd(14)} ${kb(v, t.rows).padStart(12)}`);
      console.log('  each index built alone:');
      for (const [c, v] of Object.entries(t.columnIndexes).sort((a, b) => b[1] - a[1])) console.log(`    ${c.padEnd(24)} ${kb(v, t.rows).padStart(12)}`);
    }
    console.log(JSON.stringify({ versions, exportBytes, lanceTotal, tables }));
  } finally {
    if (values.keep) console.log(`kept ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
