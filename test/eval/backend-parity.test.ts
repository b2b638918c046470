/**
 * LoCoMo search parity of the server's backends: the first conversation imported into LanceDB
 * and into PostgreSQL 15 (PgStore without pgvector, full text from the resident view and from
 * the BM25 statement), every question asked of both in text,
 * vector and hybrid mode: the same memories in the same order, scores within 1e-6. All ten
 * conversations: `npm run eval:pg-parity`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { pgPoolClient, type SqlClient } from '../../engine/index.js';
import { locomoParity, PARITY_EPSILON } from '../../scripts/eval/backend-parity.js';
import { loadLocomo } from '../../scripts/eval/locomo-data.js';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';
import { tinyEmbedder } from '../helpers/server.js';
import { repoRoot, tempDir } from '../helpers/tmp.js';

const skip = skipWithoutPostgres();
const cluster = sharedPostgres();
const LOCOMO = path.join(repoRoot(), '..', 'shared', 'bench', 'locomo10.json');

describe('LoCoMo search parity, LanceDB and PostgreSQL', { skip }, () => {
  const clients: SqlClient[] = [];
  after(async () => {
    for (const c of clients) await c.close();
  });

  for (const text of ['resident', 'sql'] as const) {
  it(`ranks every question of a conversation the same on both backends, in every mode (PostgreSQL full text: ${text})`, { skip: fs.existsSync(LOCOMO) ? false : `LoCoMo is read from ${LOCOMO} (never copied into the repository); put locomo10.json there to run this` }, async () => {
    const { conversations } = loadLocomo(repoRoot());
    // The statement takes tens of ms a search on a loaded machine: a third of the questions keeps the test quick.
    const first = conversations.slice(0, 1).map((c) => (text === 'sql' ? { ...c, questions: c.questions.filter((_, i) => i % 3 === 0) } : c));
    const db = pgPoolClient(await (await cluster()).createDatabase(), { max: 4 });
    clients.push(db);
    const r = await locomoParity({ conversations: first, embedder: tinyEmbedder(), lanceDir: path.join(tempDir('parity-'), 'lance'), db, text });
    assert.equal(r.memories, first[0]!.turns.length);
    assert.equal(r.questions, first[0]!.questions.length);
    assert.equal(r.searches, r.questions * 3);
    assert.ok(r.results > r.searches * 5, `rankings were compared rank by rank (${r.results} results over ${r.searches} searches)`);
    assert.deepEqual(r.mismatches.slice(0, 5), [], `${r.mismatches.length} of ${r.searches} searches differ`);
    assert.ok(r.maxScoreDiff <= PARITY_EPSILON, `largest score difference ${r.maxScoreDiff}`);
  });
  }
});
