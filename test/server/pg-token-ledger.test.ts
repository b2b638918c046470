/**
 * The LLM token budget in PostgreSQL against a real PostgreSQL: two replicas (two pools) reserving
 * at once never take more than the day's budget between them, corrections follow the tokens an
 * endpoint reports, and two LLM extractors on one database draw from one budget.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { LlmExtractor, pgPoolClient, RuleExtractor, type SqlClient } from '../../engine/index.js';
import { migrateServer } from '../../server/pg-state.js';
import { PgTokenLedger } from '../../server/pg-token-ledger.js';
import { sharedPostgres, skipWithoutPostgres } from '../helpers/postgres.js';

const cluster = sharedPostgres();
const clients: SqlClient[] = [];
after(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

/** Two clients on one new database, as two replicas. */
async function replicas(): Promise<[SqlClient, SqlClient]> {
  const url = await (await cluster()).createDatabase();
  const pair: [SqlClient, SqlClient] = [pgPoolClient(url, { max: 4 }), pgPoolClient(url, { max: 4 })];
  clients.push(...pair);
  await migrateServer(pair[0]);
  return pair;
}

describe('PgTokenLedger', { skip: skipWithoutPostgres() }, () => {
  let server: http.Server;
  let url = '';
  let calls = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls++;
        const content = JSON.stringify({ memories: [{ content: 'The project deploys with blue-green releases.', category: 'decision', space: 'project' }] });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content } }], usage: { total_tokens: 500 } }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  });
  after(() => server.close());

  it('lets two replicas reserving at once take no more than the budget between them', async () => {
    const [a, b] = (await replicas()).map((db) => new PgTokenLedger(db));
    const day = '2026-01-02';
    const got = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a! : b!).reserve(day, 100, 1000)));
    assert.equal(got.filter(Boolean).length, 10, 'exactly the budget, not one reservation more');
    await a!.settle(day, -40, true);
    await b!.settle(day, 15, true);
    assert.deepEqual(await b!.refresh(day), { used: 975, calls: 2 });
    assert.equal(await a!.reserve(day, 30, 1000), false);
    assert.equal(await a!.reserve(day, 25, 1000), true);
    assert.deepEqual(await a!.refresh('2026-01-03'), { used: 0, calls: 0 }, 'a new day starts empty');
  });

  it('charges two LLM extractors on one database against one daily budget', async () => {
    const dbs = await replicas();
    const turns = [{ role: 'user' as const, text: 'We decided to deploy with blue-green releases from now on.' }];
    // Each call is estimated at about 1,000 tokens and reports 500: the budget fits five calls' estimates.
    const make = (db: SqlClient) => new LlmExtractor({ baseUrl: url, apiKey: '', model: 'm', dailyTokens: 5200, ledgerFile: '/nonexistent/never-written.json', ledger: new PgTokenLedger(db), fallback: new RuleExtractor() });
    const [x, y] = dbs.map(make);
    calls = 0;
    for (let i = 0; i < 6; i++) await (i % 2 ? x! : y!).extract(turns);
    assert.equal(calls, 6, 'settled at the reported 500 each, so six calls fit');
    const used = await new PgTokenLedger(dbs[0]).refresh(new Date().toISOString().slice(0, 10));
    assert.deepEqual(used, { used: 3000, calls: 6 });
    assert.equal(x!.usage().used, 3000, 'status shows the shared use (as of its last call)');
    for (let i = 0; i < 10; i++) await (i % 2 ? x! : y!).extract(turns);
    assert.ok(calls < 16, 'calls stop once the shared budget is spent');
    const final = await new PgTokenLedger(dbs[1]).refresh(new Date().toISOString().slice(0, 10));
    assert.ok(final.used <= 5200, `never over the budget: ${final.used}`);
  });
});
