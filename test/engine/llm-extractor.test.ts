/**
 * The optional LLM extractor against a real OpenAI-compatible endpoint on loopback: it extracts
 * through the endpoint, charges a hard daily budget kept on disk, and falls back to the local
 * rules whenever the budget, the network or the answer fails.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { extractorFor, extractorInfo, LlmExtractor, RuleExtractor, type ExtractTurn } from '../../engine/index.js';
import { tempDir } from '../helpers/tmp.js';

interface Seen {
  auth: string | undefined;
  body: { model: string; messages: { role: string; content: string }[]; max_tokens: number };
}

let server: http.Server;
let url = '';
const seen: Seen[] = [];
let mode: 'ok' | 'garbage' | 'error' = 'ok';

before(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, body: JSON.parse(raw) as Seen['body'] });
      if (mode === 'error') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
        return;
      }
      const content = mode === 'garbage' ? 'I think you should use pnpm.' : JSON.stringify({ memories: [{ content: 'The project uses pnpm workspaces.', category: 'convention', space: 'project' }] });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
after(() => server.close());

const turns: ExtractTurn[] = [
  { role: 'user', text: 'We use pnpm workspaces for every package in this repo.' },
  { role: 'assistant', text: 'Noted. <memory-context source="memory-service">- [decision] old stuff</memory-context>' },
];

function make(ledgerFile: string, dailyTokens = 10_000): LlmExtractor {
  return new LlmExtractor({ baseUrl: url, apiKey: 'sk-test', model: 'tiny-model', dailyTokens, ledgerFile, fallback: new RuleExtractor() });
}

describe('LlmExtractor', () => {
  it('extracts through the endpoint, never sending injected context, and charges the day', async () => {
    mode = 'ok';
    const ledger = path.join(tempDir('llm-'), 'usage.json');
    const ex = make(ledger);
    const out = await ex.extract(turns);
    assert.deepEqual(
      out.map((c) => [c.content, c.category, c.space]),
      [['The project uses pnpm workspaces.', 'convention', 'project']],
    );
    const last = seen[seen.length - 1]!;
    assert.equal(last.auth, 'Bearer sk-test');
    assert.equal(last.body.model, 'tiny-model');
    assert.ok(!JSON.stringify(last.body).includes('old stuff'), 'recalled context is not sent back');
    assert.equal(ex.usage().used, 340);
    assert.equal(make(ledger).usage().used, 340, 'usage survives a restart');
  });

  it('stops calling once the daily budget would be exceeded and extracts locally', async () => {
    mode = 'ok';
    const ledger = path.join(tempDir('llm-'), 'usage.json');
    const ex = make(ledger, 1300);
    await ex.extract(turns);
    const calls = seen.length;
    const local = await ex.extract(turns);
    assert.equal(seen.length, calls, 'no second call: the budget could not cover it');
    assert.ok(local.length > 0 && local.every((c) => c.confidence !== 0.8), 'the rule extractor answered');
    assert.ok(ex.usage().used <= 1300);
    const tomorrow = new LlmExtractor({ baseUrl: url, apiKey: '', model: 'm', dailyTokens: 2000, ledgerFile: ledger, fallback: new RuleExtractor(), now: () => new Date(Date.now() + 86_400_000) });
    assert.equal(tomorrow.usage().used, 0, 'a new day starts a new budget');
  });

  it('falls back to the rules on HTTP errors and malformed answers', async () => {
    for (const m of ['error', 'garbage'] as const) {
      mode = m;
      const ex = make(path.join(tempDir('llm-'), 'usage.json'));
      const out = await ex.extract(turns);
      assert.ok(out.some((c) => /pnpm/.test(c.content)), `${m}: local extraction still yields the memory`);
    }
    mode = 'ok';
  });

  it('is off unless configured', () => {
    const off = extractorFor({ llmBaseUrl: '', llmApiKey: '', llmModel: 'm', llmDailyTokens: 1000 }, tempDir('llm-'), null, undefined as never);
    assert.deepEqual(extractorInfo(off), { kind: 'rules' });
    const on = extractorFor({ llmBaseUrl: url, llmApiKey: '', llmModel: 'm', llmDailyTokens: 1000 }, tempDir('llm-'), null, undefined as never);
    assert.equal(extractorInfo(on).kind, 'llm');
  });
});
