/**
 * The session's opening block (recall at SessionStart) is shown in every session of a repository,
 * unasked: only confident extracted memories go there; the rest still answer the prompts they fit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordEpisodes } from '../../daemon/episodes.js';
import { recall } from '../../daemon/recall.js';
import { RecalledPerSession } from '../../daemon/recall-seen.js';
import type { Turn } from '../../daemon/transcript.js';
import { MemoryEngine, RuleExtractor, type Candidate } from '../../engine/index.js';
import { InMemoryStore } from '../../engine/store/memory-store.js';

const repo = { repo: 'github.com/acme/app', root: '/src/app', dir: '.' };
const candidate = (content: string, confidence: number, role: Candidate['role'], category: Candidate['category'] = 'decision'): Candidate => ({ content, category, space: 'project', confidence, subject: null, role });

describe('recall: the opening block', () => {
  it('shows extracted memories only when confident (the user at 0.7, anyone else at 0.8); what a person stored always', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    const base = { user_id: 'u', repo: repo.repo, dir: '.', run_id: 'old', source: { kind: 'capture' as const, session_id: 'old' } };
    await engine.ingest(
      [
        candidate('We decided to keep sessions in Postgres.', 0.85, 'user'),
        candidate('Deploys go through the staging cluster first.', 0.62, 'user', 'context'),
        candidate('The root cause of the flaky build is a stale lockfile.', 0.7, 'assistant', 'fact'),
        candidate('Decision: ship the CLI as a single binary.', 0.85, 'assistant'),
      ],
      base,
    );
    await engine.add({ content: 'Never push to main directly.', user_id: 'u', repo: repo.repo, category: 'constraint', source: { kind: 'api' } });
    const opening = await recall(engine, { event: 'SessionStart', session_id: 'new', repo, user_id: 'u' }, { maxTokens: 2000 });
    assert.match(opening.text, /keep sessions in Postgres/);
    assert.match(opening.text, /single binary/);
    assert.match(opening.text, /Never push to main/);
    assert.doesNotMatch(opening.text, /staging cluster/, 'a weak statement does not open every session');
    assert.doesNotMatch(opening.text, /stale lockfile/, "the assistant's finding below 0.8 does not either");
    const asked = await recall(engine, { event: 'UserPromptSubmit', session_id: 'new', repo, user_id: 'u', prompt: 'what was the root cause of the flaky build?' }, { maxTokens: 2000 });
    assert.match(asked.text, /stale lockfile/, 'it still answers a prompt it is relevant to');
    await engine.close();
  });
});

describe('recall: findings', () => {
  const task = 'I need to understand:\n1. How list_panes works when tmux is not running\n2. How the session registry stores panes';
  const report = (answer: string): string => `## Key Findings\n\n### 1. How list_panes Works When tmux Is Not Running\n\n${answer}\n\n### 2. Session Registry Storage\n\nThe session registry keeps pane ids in a public ETS table.`;

  it('stores what a reply to the user’s question list answered as findings: not shown at session start, answering the prompts they fit, replaced when the question is answered again', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    const base = { user_id: 'u', repo: repo.repo, dir: '.', run_id: 'old', source: { kind: 'capture' as const, session_id: 'old' } };
    const extractor = new RuleExtractor();
    const explore = async (answer: string): Promise<void> => {
      await engine.ingest(await extractor.extract([{ role: 'user', kind: 'prompt', text: task }, { role: 'assistant', text: report(answer) }]), base);
    };
    await explore('`list_panes/0` will NOT crash when tmux is missing. It returns `{:error, reason}`.');
    const stored = (await engine.list({ filter: { repo: repo.repo }, limit: 10 })).results;
    assert.deepEqual(
      stored.map((r) => [r.category, (r.metadata as { confidence: number }).confidence]).sort(),
      [
        ['fact', 0.6],
        ['fact', 0.6],
      ],
    );
    const opening = await recall(engine, { event: 'SessionStart', session_id: 'new', repo, user_id: 'u' }, { maxTokens: 2000 });
    assert.doesNotMatch(opening.text, /list_panes|ETS/, 'a finding is second-hand: it does not open every session');
    const asked = await recall(engine, { event: 'UserPromptSubmit', session_id: 'new', repo, user_id: 'u', prompt: 'what does list_panes do when tmux is not running?' }, { maxTokens: 2000 });
    assert.match(asked.text, /will NOT crash/);
    await explore('`list_panes/0` now raises when tmux is missing; callers rescue it.');
    const now = (await engine.list({ filter: { repo: repo.repo }, limit: 10 })).results.map((r) => r.content);
    assert.equal(now.length, 2, `the same question answered again replaces its finding: ${JSON.stringify(now)}`);
    assert.ok(now.some((c) => /now raises/.test(c)) && !now.some((c) => /will NOT crash/.test(c)), JSON.stringify(now));
    await engine.close();
  });
});

describe("recall: episodes in a prompt's recall", () => {
  it('injects up to three episodes, each as a snippet of up to 900 characters holding the passage that matches', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    const turn = (role: Turn['role'], text: string): Turn => ({ uuid: null, role, text, ...(role === 'user' ? { kind: 'prompt' as const } : {}) });
    const topics = ['alpha', 'bravo', 'charlie', 'delta'];
    const padding = (t: string): string => Array.from({ length: 8 }, (_, i) => `Step ${t}${i} of the ${t} walkthrough changed ${t}-${i} only.`).join(' ');
    for (const [i, t] of topics.entries()) {
      await recordEpisodes(engine, [turn('user', `question ${t} about the cpu backend files`), turn('assistant', `${padding(t)} The cpu backend files of round ${i} live in src/backends/cpu now. ${padding(t)}`)], { user_id: 'u', run_id: `old-${i}`, repo: repo.repo, dir: '.' });
    }
    const out = await recall(engine, { event: 'UserPromptSubmit', session_id: 'new', repo, user_id: 'u', prompt: 'where do the cpu backend files live' }, { maxTokens: 4000 });
    const items = out.text.split('\n').filter((l) => l.startsWith('- [note]'));
    assert.equal(items.length, 3);
    for (const item of items) {
      assert.match(item, /live in src\/backends\/cpu now/);
      assert.ok(item.length > 700 && item.length <= 900 + 40, `${item.length}`);
    }
    await engine.close();
  });

  it('shows an episode again in the same session for a prompt that needs a passage of it not shown yet, never the same passage twice', async () => {
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
    await engine.open();
    const filler = (t: string): string => Array.from({ length: 10 }, (_, i) => `Step ${t}${i} of the walkthrough changed ${t}-${i} only.`).join(' ');
    const outcome = `${filler('a')}\nThe countdown pulses in red during the last ten seconds.\n${filler('b')}\nThe alert sound is a beep played through the Web Audio API.\n${filler('c')}`;
    await recordEpisodes(engine, [{ uuid: null, role: 'user', kind: 'prompt', text: 'build the timer app with a countdown and an alert sound' }, { uuid: null, role: 'assistant', text: outcome }], { user_id: 'u', run_id: 'old', repo: repo.repo, dir: '.' });
    const recalled = new RecalledPerSession();
    const ask = async (prompt: string): Promise<string> => {
      const seen = recalled.for('new', 'UserPromptSubmit');
      const out = await recall(engine, { event: 'UserPromptSubmit', session_id: 'new', repo, user_id: 'u', prompt, seen }, { maxTokens: 4000 });
      seen?.delivered();
      return out.text;
    };
    const first = await ask('what does the countdown do in the last ten seconds');
    assert.match(first, /pulses in red/);
    assert.doesNotMatch(first, /Web Audio/, 'the snippet holds the passage for this prompt');
    assert.match(await ask('how is the alert sound played'), /Web Audio API/, 'another passage of the same episode is new to the session');
    assert.equal(await ask('what does the countdown do in the last ten seconds'), '', 'a passage already shown is not shown again');
    await engine.close();
  });
});
