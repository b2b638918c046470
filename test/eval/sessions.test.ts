/**
 * Real Claude Code transcripts (test/fixtures/transcripts) replayed through the installed plugin's
 * hooks.json into a fresh daemon, scored against their hand labels: the floors below fail CI when
 * capture, extraction or recall regresses on real sessions. (`npm run eval:sessions` runs all of
 * them and writes the table in BENCHMARKS.md.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadFixtures } from '../../scripts/eval/session-replay.js';
import { emptyScores, fixtureRepoName, isJunk, type StoredMemory } from '../../scripts/eval/session-score.js';
import { byLanguage, evaluate, memorySets, renderTables, setColumns, setOf, type EvalResult } from '../../scripts/eval/sessions.js';

const FIXTURES = ['vsla-2cba43de', 'vsla-9cc4a4b0', 'reliability-coverage-test-fix'];

describe('real sessions, replayed through hooks.json', () => {
  it('keeps the turns, recovers the labelled facts, answers the questions and injects no junk from one-offs or other repositories', async () => {
    const fixtures = loadFixtures(undefined, FIXTURES);
    assert.equal(fixtures.length, FIXTURES.length);
    const r = await evaluate(fixtures);
    const s = r.sets.tuned!;
    const share = (n: number, d: number): number => (d === 0 ? 1 : n / d);
    const report = JSON.stringify(s);
    assert.ok(share(s.turnsKept, s.turnsPresent) >= 0.98, `turns kept: ${report}`);
    assert.ok(share(s.factsRecovered, s.facts) >= 0.6, `facts recovered: ${report}`);
    assert.ok(share(s.searchHits, s.questions) >= 0.6, `search hit@5: ${report}`);
    assert.ok(share(s.recallHits, s.questions) >= 0.5, `recall hit@5: ${report}`);
    assert.ok(share(s.injectedJunk, s.injected) <= 0.34, `junk injected: ${report} ${JSON.stringify(r.junk)}`);
    assert.equal(s.oneOffStored, 0, report);
    assert.equal(s.oneOffInjected, 0, report);
    assert.equal(s.crossRepoInjected, 0, report);
    assert.ok(s.episodes > 0, 'every turn leaves an episode');
    assert.equal(r.firstRecall.cold, 0, 'the first prompt after a daemon start recalls what a warm daemon recalls');
    assert.equal(r.firstRecall.prompt, r.firstRecall.sessions, 'the first prompt after a daemon start recalls something');
    assert.equal(r.firstRecall.sessionStart, 0, 'SessionStart runs in the background and prints nothing (its block opens the first prompt)');
  });

  it('reports the held-out set added after the last tuning in a column of its own, only when it has fixtures', () => {
    assert.equal(setOf({ holdout: false }), 'tuned');
    assert.equal(setOf({ holdout: true }), 'holdout');
    assert.equal(setOf({ holdout: true, unseen: true }), 'unseen');
    assert.equal(setOf({ holdout: true, unseen: true, newest: true }), 'newest');
    const result = (unseenFixtures: number, newestFixtures = 0, more: EvalResult['sets'] = {}): EvalResult => ({
      sets: {
        tuned: { ...emptyScores(), fixtures: 2, questions: 4, recallHits: 3, recallHitsThisPrompt: 2 },
        holdout: { ...emptyScores(), fixtures: 1 },
        unseen: { ...emptyScores(), fixtures: unseenFixtures },
        newest: { ...emptyScores(), fixtures: newestFixtures },
        ...more,
      },
      questions: [],
      firstRecall: { sessionStart: 0, prompt: 0, sessions: 0 },
      memories: [],
      junk: [],
      ms: 0,
    });
    const head = (md: string): string => md.split('\n').find((l) => l.startsWith('| measure'))!;
    assert.match(head(renderTables(result(1), 'npm run eval:sessions', 4)), /\| held out \(new, looked at since\) \|$/);
    assert.doesNotMatch(head(renderTables(result(0), 'npm run eval:sessions', 3)), /held out \(new/);
    assert.match(head(renderTables(result(1, 2), 'npm run eval:sessions', 6)), /\| held out \(new, looked at since\) \| held out \(newest\) \|$/);
    const md = renderTables(result(0), 'npm run eval:sessions', 3);
    assert.match(md, /answer in the agent’s context[^\n]*\| 75% \(3\/4\) \|/, 'the hook row counts answers shown earlier in the session');
    assert.match(md, /this very prompt[^\n]*\| 50% \(2\/4\) \|/);
  });

  it('asks each language’s questions in a session of their own, English first, and reports those in the user’s language apart', () => {
    const q = (text: string, lang?: string) => ({ q: text, expect: ['x'], ...(lang ? { lang } : {}) });
    const groups = byLanguage([q('ja 1', 'ja'), q('en 1'), q('ko 1', 'ko'), q('en 2'), q('ja 2', 'ja')]);
    assert.deepEqual(
      groups.map(([lang, qs]) => [lang, qs.map((x) => x.q)]),
      [
        [null, ['en 1', 'en 2']],
        ['ja', ['ja 1', 'ja 2']],
        ['ko', ['ko 1']],
      ],
    );
    const sets = { tuned: { ...emptyScores(), fixtures: 1, questions: 6, ownLanguageQuestions: 4, ownLanguageSearchHits: 3, ownLanguageRecallHits: 1 }, holdout: { ...emptyScores(), fixtures: 1 } };
    const md = renderTables({ sets, questions: [], firstRecall: { sessionStart: 0, prompt: 0, sessions: 0 }, memories: [], junk: [], ms: 0 }, 'npm run eval:sessions', 2);
    assert.match(md, /own language[^\n]*\| 75% \/ 25% \(3, 1\/4\) \| — \|/);
  });

  it('scores a memory in the set of the fixture whose session wrote it, when two sets hold sessions of one repository', () => {
    const labels = (set: string) => ({ fixture: '', holdout: true, set, repo: 'discourse-graph', facts: [], questions: [], oneOff: [] });
    const setOfMemory = memorySets([
      { name: 'dg-e9bb47d2', labels: labels('blind-21') },
      { name: 'dg-823de576', labels: labels('blind-23') },
    ]);
    assert.equal(setOfMemory({ session: 'eval-dg-e9bb47d2' }, 'discourse-graph'), 'blind-21');
    assert.equal(setOfMemory({ session: 'eval-dg-823de576' }, 'discourse-graph'), 'blind-23');
    assert.equal(setOfMemory({}, 'discourse-graph'), 'blind-21', 'written by no replayed session: its repository’s first set');
    assert.equal(setOfMemory({ session: 'eval-other' }, null), 'tuned');
  });

  it('counts a document injected in its own repository as no cross-repository junk when another repository’s reads the same at its start', () => {
    const preamble = 'Read: CLAUDE.md\nText: # CLAUDE.md This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.';
    const doc = (repo: string, rest: string): StoredMemory => ({ memory_id: repo, content: `${preamble} ## ${rest}`, category: 'note', space: 'project', repo: `github.com/fixtures/${repo}`, episode: true });
    const memories = [doc('slopometry', 'Project Overview'), doc('user-org', 'Rules of Engagement')];
    const repoOf = (r: string | null) => r?.split('/').at(-1) ?? null;
    const injected = (repo: string) => ({ repo, category: 'note', content: `${preamble} ## Rules of Engagement` });
    assert.deepEqual(isJunk(injected('user-org'), memories, repoOf, () => []), { junk: false, crossRepo: false, oneOff: false });
    assert.equal(isJunk(injected('chess'), memories, repoOf, () => []).crossRepo, true, 'in a third repository it is another repository’s');
  });

  it('finds the fixture repository of a memory whose remote had a space in its name (normalized as %20)', () => {
    const labelRepos = new Map([['pai - tpos', 'PAI - TPOS'], ['local-api', 'local-api']]);
    assert.equal(fixtureRepoName('github.com/fixtures/pai%20-%20tpos', labelRepos), 'PAI - TPOS');
    assert.equal(fixtureRepoName('github.com/fixtures/local-api', labelRepos), 'local-api');
    assert.equal(fixtureRepoName('github.com/fixtures/100%-done', labelRepos), '100%-done', 'a stray % is no escape');
    assert.equal(fixtureRepoName(null, labelRepos), null);
  });

  it('reports a set named in the labels (`"set": "blind-1"`) in a column named after it, after the legacy sets', () => {
    assert.equal(setOf({ holdout: true, set: 'blind-1' }), 'blind-1');
    assert.equal(setOf({ holdout: true, unseen: true, newest: true, set: 'blind-2' }), 'blind-2', 'the set name wins over the legacy flags');
    assert.equal(setOf({ holdout: true, set: '  ' }), 'holdout', 'a blank set name falls back to the flags');
    const scores = (fixtures: number, questions = 0, searchHits = 0) => ({ ...emptyScores(), fixtures, questions, searchHits });
    const sets = { tuned: scores(2), holdout: scores(1), unseen: scores(0), newest: scores(3), 'blind-2': scores(1, 4, 1), 'blind-1': scores(2, 2, 2) };
    assert.deepEqual(setColumns(sets), ['tuned', 'holdout', 'newest', 'blind-1', 'blind-2']);
    assert.deepEqual(setColumns({ tuned: scores(0), holdout: scores(0), 'blind-1': scores(0) }), ['tuned', 'holdout'], 'a named set without fixtures has no column');
    assert.deepEqual(setColumns({ tuned: scores(1), 'blind-10': scores(1), 'blind-9': scores(1), 'blind-2': scores(1) }), ['tuned', 'holdout', 'blind-2', 'blind-9', 'blind-10'], 'in the order of their numbers');
    const md = renderTables({ sets, questions: [], firstRecall: { sessionStart: 0, prompt: 0, sessions: 0 }, memories: [], junk: [], ms: 0 }, 'npm run eval:sessions', 9);
    const lines = md.split('\n');
    assert.match(lines.find((l) => l.startsWith('| measure'))!, /\| held out \(newest\) \| blind-1 \| blind-2 \|$/);
    assert.match(lines.find((l) => l.startsWith('| question hit@5, `service search`'))!, /\| 100% \(2\/2\) \| 25% \(1\/4\) \|$/);
  });
});
