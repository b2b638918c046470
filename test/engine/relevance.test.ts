import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRelevant, MemoryEngine, RELEVANCE_FLOOR, relevance, relevantCandidates } from '../../engine/index.js';
import { askedSubjects } from '../../engine/extract/synonyms.js';
import { subjectsAsked } from '../../engine/search/relevance.js';
import { InMemoryStore } from '../../engine/store/memory-store.js';

describe('relevance floor', () => {
  it('needs two informative query terms (or every one of a shorter query), not one shared common word', () => {
    const memory = 'We store sessions in Postgres, not SQLite.';
    assert.equal(isRelevant('use the store for this please', memory), false, 'one common shared word');
    assert.equal(isRelevant('where do we store sessions', memory), true);
    assert.equal(isRelevant('postgres?', memory), true, 'a one-term query matched in full');
    assert.equal(isRelevant('I like your rec, create the plan', 'The plan: migrate the CLI to Rust.'), false);
  });

  it("reads a question in German, Spanish, Portuguese, French or Russian by its content words, not its language's function words", () => {
    // blind-43 (notebooklmclone-ed22f339) asked in German; the German session text shares "ich", "das", "die" with every question.
    const other = 'Ich habe das Setup geprüft, die Env-Variablen sind in den Secrets und das Backend läuft.';
    assert.equal(isRelevant('wie starte ich nochmal das frontend, ist die env schon da?', other), false, 'only "env" is shared beyond function words');
    assert.deepEqual(relevance('wie sehen unsere api keys aus und wie werden sie gespeichert?', 'API keys use the nb_live_ prefix.').matched, ['api', 'key']);
    assert.equal(isRelevant('где хранятся ключи api и как они выглядят?', 'Ключи API хранятся в .env и не коммитятся.'), true);
    assert.equal(isRelevant('где это и как это сделать?', 'Это не так, как я думал.'), false, 'Russian function words alone');
  });

  it('measures the share against the smaller side, so a long prompt can still recall a short memory', () => {
    const prompt = 'ok so the build is broken again on the laptop, nvcc is missing and I think we need the cuda toolkit installed before we can run anything on the gpu, can you walk me through it';
    const r = relevance(prompt, 'Install CUDA toolkit 12.6 with apt-get install cuda-toolkit-12-6 (nvcc).');
    assert.ok(r.matched.length >= 2, String(r.matched));
    assert.equal(r.relevant, true);
    assert.ok(RELEVANCE_FLOOR.minShare > 0 && RELEVANCE_FLOOR.minTerms === 2);
  });

  it('matches the forms of a word whose stem drops a final e (stored / store, decided / decide)', () => {
    assert.ok(isRelevant('how are sessions stored', 'We decided to store sessions in PostgreSQL, never in Redis.'));
    assert.ok(isRelevant('what was decided about caching', 'We decide on caching per route.'));
    assert.ok(!isRelevant('how are sessions stored', 'Sessions expire after an hour.'), 'one shared term is still not enough');
  });

  it('is applied by engine search when asked, and only then', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    await engine.add({ content: 'We store sessions in Postgres, not SQLite.', user_id: 'u', category: 'decision' });
    await engine.add({ content: 'Tests run with pnpm test.', user_id: 'u', category: 'fact' });
    const plain = await engine.search({ query: 'please store this thing', user_id: 'u' });
    assert.equal(plain.results.length, 1, 'the top full-text hit of one common word');
    const floored = await engine.search({ query: 'please store this thing', user_id: 'u', relevance: true });
    assert.equal(floored.results.length, 0);
    const good = await engine.search({ query: 'which database stores sessions, postgres?', user_id: 'u', relevance: true });
    assert.deepEqual(
      good.results.map((h) => h.row.content),
      ['We store sessions in Postgres, not SQLite.'],
    );
    await engine.close();
  });

  it('keeps the top candidate of a question on one rare term when it leads by far', () => {
    const others = Array.from({ length: 12 }, (_, i) => ({ content: `Episode ${i}: fixed the parser and ran the tests again.`, score: 0.2 }));
    const answer = { content: 'Checks to run: ruff and pyrefly (the linters), pyrefly has 58 old errors.', score: 0.9 };
    assert.deepEqual(relevantCandidates('which linters do we run', [answer, ...others]).slice(0, 2), [true, false]);
    assert.equal(relevantCandidates('please run the linters', [answer, ...others])[0], false, 'a request is never relaxed');
    assert.equal(relevantCandidates('which linters do we run', [answer, { ...others[0]!, score: 0.6 }, ...others])[0], false, 'not far ahead, no relaxation');
    assert.equal(relevantCandidates('which linters do we run', [others[0]!, answer, ...others])[1], false, 'only the top candidate');
  });

  it('counts the blocks of one text as one candidate: for the lead, and for how rare a term is', () => {
    const others = Array.from({ length: 12 }, (_, i) => ({ content: `Episode ${i}: fixed the parser and ran the tests again.`, score: 0.2, group: `e${i}` }));
    const answer = { content: 'Checks to run: ruff and pyrefly (the linters), pyrefly has 58 old errors.', score: 0.9, group: 'g' };
    const sibling = { content: 'More of the same text: the linters also run in CI.', score: 0.8, group: 'g' };
    assert.equal(relevantCandidates('which linters do we run', [answer, sibling, ...others])[0], true, 'its own next block is no rival');
    assert.equal(relevantCandidates('which linters do we run', [answer, { ...sibling, group: 'h' }, ...others])[0], false, 'another text that close is');
    const blocks = Array.from({ length: 4 }, (_, i) => ({ content: `Block ${i} of the report: the linters are listed below.`, score: 0.1, group: 'r' }));
    assert.equal(relevantCandidates('which linters do we run', [answer, ...blocks, ...others])[0], true, 'four blocks of one text hold "linters": still rare');
    assert.equal(relevantCandidates('which linters do we run', [answer, ...blocks.map((b, i) => ({ ...b, group: `r${i}` })), ...others])[0], false, 'four texts holding it: common');
  });

  it('never relaxes on a common term, so one shared common word still injects nothing', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ content: `The tests of module ${i} run in CI.`, score: 0.1 }));
    const top = { content: 'Old tests moved to the archive folder.', score: 0.9 };
    assert.equal(relevantCandidates('which tests do we keep', [top, ...many])[0], false, '"tests" is held by most candidates');
    assert.equal(relevantCandidates('please store this thing', [{ content: 'We store sessions in Postgres, not SQLite.', score: 1 }, ...many])[0], false);
  });

  it('applies the relaxation in engine search: a question finds its answer on one rare word, a common word finds nothing', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    for (let i = 0; i < 12; i++) await engine.add({ content: `Session ${i}: the tests of module m${i} pass in CI after the parser fix.`, user_id: 'u', category: 'fact' });
    await engine.add({ content: 'Checks to run: ruff and pyrefly (the linters).', user_id: 'u', category: 'convention' });
    const hit = await engine.search({ query: 'which linters do we run', user_id: 'u', relevance: true, top_k: 5 });
    assert.deepEqual(hit.results.map((h) => h.row.content), ['Checks to run: ruff and pyrefly (the linters).']);
    const common = await engine.search({ query: 'which tests do we have', user_id: 'u', relevance: true, top_k: 5 });
    assert.equal(common.results.length, 0, JSON.stringify(common.results.map((h) => h.row.content)));
    await engine.close();
  });
  it('finds the memory that names the choice when a question names the subject ("state management" → zustand), in search and in the floor', async () => {
    assert.deepEqual(
      askedSubjects('what are we using for state management now').map((a) => [a.key, a.phrase]),
      [['state management', 'state management']],
    );
    assert.deepEqual(askedSubjects('how do I lint').map((a) => a.key), ['linter']);
    assert.deepEqual(askedSubjects('is the state of the cache managed anywhere'), [], 'words of a subject apart are no subject');
    assert.deepEqual(subjectsAsked('which linters do we run').map((a) => a.key), ['linter']);
    assert.deepEqual(subjectsAsked('does the linter force doc comments on exported functions'), [], 'a question about a rule of the linter, not which one');
    const memory = 'I thought we replaced redux with zustand.';
    assert.equal(isRelevant('what are we using for state management now', memory), true, 'a value covers the words naming its subject');
    assert.equal(isRelevant('what are we using for state management now', 'The state of the form is kept in the URL.'), false, 'one shared word is still not enough');
    assert.equal(isRelevant('what do we use for the test runner', memory), false, 'another subject covers nothing');
    // blind-38: "where does oravini get hosted" is answered by the session that says it deploys on Render.
    const hosted = 'Oravini: React client, Express server, PostgreSQL with Drizzle ORM, deployed on Render.';
    assert.equal(isRelevant('where does oravini get hosted?', hosted), true, 'a hosting platform covers "hosted"');
    assert.equal(isRelevant('where does oravini get hosted?', 'Oravini: the DM automation page merges the DM hub and the tracker.'), false);
    assert.equal(isRelevant('how do I render the chart', 'We use Render for the API.'), false, 'the verb is not the platform');

    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    for (let i = 0; i < 12; i++) await engine.add({ content: `Session ${i}: the timer screen of round ${i} now shows the combo count.`, user_id: 'u', category: 'fact' });
    await engine.add({ content: memory, user_id: 'u', category: 'decision' });
    await engine.add({ content: 'Run ruff check . before committing the Python scripts.', user_id: 'u', category: 'convention' });
    const state = await engine.search({ query: 'what are we using for state management now', user_id: 'u', relevance: true, top_k: 5 });
    assert.deepEqual(state.results.map((h) => h.row.content), [memory]);
    const lint = await engine.search({ query: 'how do I lint', user_id: 'u', relevance: true, top_k: 5 });
    assert.deepEqual(lint.results.map((h) => h.row.content), ['Run ruff check . before committing the Python scripts.']);
    const none = await engine.search({ query: 'which package manager do we use', user_id: 'u', relevance: true, top_k: 5 });
    assert.equal(none.results.length, 0, 'no memory names a package manager');
    await engine.close();
  });
});
