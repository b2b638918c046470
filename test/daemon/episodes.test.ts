/**
 * Episodes (daemon/episodes.ts) on a real engine over the in-memory store: the whole turn is
 * searchable (long outcomes in blocks, never cut; subagent reports as records of their own), what
 * recall shows is short (a snippet around the prompt's terms), and episodes never flood recall.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isReport, turnOf, weighEpisodes } from '../../daemon/episode-rows.js';
import { episodeSnippet, SNIPPET_CHARS } from '../../daemon/episode-snippet.js';
import { addEpisodeRecord, episodeDrafts, episodeRecords, projectPath, recordEpisodes, repoFolder } from '../../daemon/episodes.js';
import type { Turn } from '../../daemon/transcript.js';
import { MemoryEngine } from '../../engine/index.js';
import { InMemoryStore } from '../../engine/store/memory-store.js';

const turn = (role: Turn['role'], text: string, extra: Partial<Turn> = {}): Turn => ({ uuid: null, role, text, ...extra });
/** A long report whose fact sits far past the first 700 characters. */
const filler = (n: number): string => Array.from({ length: n }, (_, i) => `- Module ${i} renders a list of widgets and forwards clicks to its parent component.`).join('\n');

async function engine(): Promise<MemoryEngine> {
  const e = new MemoryEngine({ store: new InMemoryStore(), embedder: null, background: false });
  await e.open();
  return e;
}

const scope = { user_id: 'u', run_id: 's1', repo: 'github.com/acme/app', dir: null };

describe('episodes', () => {
  it('keeps what a subagent reported in a record of its own, headed by the request it served', () => {
    const drafts = episodeDrafts([
      turn('user', 'how does the app store its data?', { kind: 'prompt' }),
      turn('tool', 'Events are stored in SQLite at ./data/observe.db.', { tool: 'Task', kind: 'report', title: 'Explore storage' }),
      turn('assistant', 'It stores events in SQLite.'),
    ]);
    assert.equal(drafts.length, 1);
    const records = episodeRecords(drafts[0]!);
    assert.deepEqual(records, [
      ['Asked: how does the app store its data?\nOutcome: It stores events in SQLite.'],
      ['Asked: how does the app store its data?\nReport (Explore storage): Events are stored in SQLite at ./data/observe.db.'],
    ]);
  });

  it("records a subagent's own transcript as a task, and a background agent's late report as an episode of its own", () => {
    const drafts = episodeDrafts([
      turn('user', 'Check branch protection on main', { kind: 'task' }),
      turn('assistant', 'enforce_admins is false.'),
      turn('tool', 'Lint is clean now.', { tool: 'Task', kind: 'report', title: 'Agent "Fix lint" completed' }),
    ]);
    assert.deepEqual(
      drafts.map((d) => episodeRecords(d).map((r) => r[0])),
      [['Task: Check branch protection on main\nOutcome: enforce_admins is false.', 'Task: Check branch protection on main\nReport (Agent "Fix lint" completed): Lint is clean now.']],
    );
    const late = episodeDrafts([turn('tool', 'Lint is clean now.', { tool: 'Task', kind: 'report', title: 'Agent "Fix lint" completed' })]);
    assert.equal(episodeRecords(late[0]!)[0]![0], 'Asked: Agent "Fix lint" completed\nReport (Agent "Fix lint" completed): Lint is clean now.');
  });

  it('keeps what the assistant found on the way to its final message, without its narration, questions or repeats', async () => {
    const turns = [
      turn('user', 'run the setup wizard and fix whatever breaks', { kind: 'prompt' }),
      turn('assistant', 'Let me run the wizard first.'),
      turn('tool', '$ go run main.go init --wizard', { tool: 'Bash' }),
      turn('assistant', 'The generated config has "y" as its build command because askString returns the default answer when stdin is closed. Let me fix that.'),
      turn('assistant', 'Should I also validate the log level?'),
      turn('assistant', 'The generated config has "y" as its build command because askString returns the default answer when stdin is closed.\n\nDone.'),
      turn('assistant', 'Fixed the wizard; all tests pass.'),
    ];
    const [d] = episodeDrafts(turns);
    assert.deepEqual(episodeRecords(d!), [
      [
        'Asked: run the setup wizard and fix whatever breaks\nRan: go run main.go init --wizard\nOutcome: Fixed the wizard; all tests pass.\n' +
          'Noted: The generated config has "y" as its build command because askString returns the default answer when stdin is closed.',
      ],
    ]);
    const e = await engine();
    await recordEpisodes(e, turns, scope);
    const hits = weighEpisodes((await e.search({ query: 'why is y the build command in the generated config', user_id: 'u', top_k: 3, relevance: true, textOf: turnOf })).results);
    assert.match(hits[0]?.row.content ?? '', /askString/);
  });

  it('stores a long outcome whole, in blocks of one text each headed by the request, and search finds a fact deep in it', async () => {
    const e = await engine();
    const outcome = `Here is the overview.\n${filler(60)}\n- The worktrees are tracked in docs/worktree-tracking.md.\n${filler(20)}`;
    await recordEpisodes(e, [turn('user', 'explain the repository layout', { kind: 'prompt' }), turn('assistant', outcome)], scope);
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 50 })).results;
    assert.ok(rows.length >= 3, `${rows.length} blocks`);
    assert.ok(rows.every((r) => r.content.length <= 2000 && /^Asked(?: \(continued\))?: explain the repository layout/.test(r.content)));
    assert.equal(new Set(rows.map((r) => r.block?.group_id)).size, 1, 'one text');
    const whole = rows.sort((a, b) => a.block!.index - b.block!.index).map((r) => r.content).join('\n');
    assert.ok(whole.includes('docs/worktree-tracking.md') && whole.includes(`Module 59 renders`), 'nothing cut');
    const hits = weighEpisodes((await e.search({ query: 'where are worktrees tracked', user_id: 'u', top_k: 10, relevance: true, textOf: turnOf })).results);
    assert.equal(hits.length, 1, 'one block per record');
    assert.match(hits[0]!.row.content, /worktree-tracking\.md/);
  });

  it('fills each block before the next: a long request still has the outcome begin in its first block', () => {
    const request = `Investigate the security gap: how did a direct push to main bypass branch protection? ${'Context line about the repository settings. '.repeat(8)}`;
    const blocks = episodeRecords({ request, qa: [], outcome: `The answer: enforce_admins is false.\n${filler(40)}`, reports: [], files: [] })[0]!;
    assert.ok(blocks.length >= 2);
    assert.match(blocks[0]!, /\nOutcome: The answer: enforce_admins is false\./);
    assert.ok(blocks.every((b) => b.length <= 2000));
    assert.ok(blocks.slice(0, -1).every((b) => b.length >= 1700), 'no block closed half empty');
  });

  it('goes on in sections when the head alone is too long for a block (eight answers and ten commands, as a real session had)', () => {
    const qa = Array.from({ length: 8 }, (_, i) => `Question ${i + 1} about the design? ${'The chosen option and why it was chosen. '.repeat(12)}`);
    const commands = Array.from({ length: 10 }, (_, i) => ({ command: `gh label create "area:${i}" --repo user/app --color 1d76db --description "${'Board surfaces and the gates. '.repeat(4)}"`, ok: true }));
    const blocks = episodeRecords({ request: 'review the first issue and its pull request', qa, outcome: 'Reviewed; the design holds.', reports: [], files: [], commands })[0]!;
    assert.ok(blocks.length >= 3, `${blocks.length} blocks`);
    assert.ok(blocks.every((b) => b.length <= 2000), blocks.map((b) => b.length).join(', '));
    assert.ok(blocks.every((b) => b.startsWith('Asked')));
    const whole = blocks.join('\n');
    assert.ok(whole.includes('Answered: Question 8 about the design?') && whole.includes('area:9') && whole.includes('Outcome: Reviewed; the design holds.'), 'nothing lost');
  });

  it('leaves out a record the store refuses for what it holds, reports why, and stores the next one', async () => {
    const e = await engine();
    const refused: string[] = [];
    const mine = { ...scope, onRefused: (err: Error) => refused.push(err.message) };
    assert.deepEqual(await addEpisodeRecord(e, mine, ['Asked: a record whose first block is too long ' + 'x'.repeat(4_500), 'Asked (continued): …'], {}), []);
    assert.match(refused[0] ?? '', /at most 4000/);
    assert.equal((await addEpisodeRecord(e, mine, ['Asked: a record of a normal size'], {})).length, 1);
    assert.equal(refused.length, 1);
    await e.close();
    // Anything else (here, a closed store) still fails the flush, to be retried.
    await assert.rejects(addEpisodeRecord(e, mine, ['Asked: after close'], {}));
    assert.equal(refused.length, 1);
  });

  it('keeps a long request whole (a plan to implement), after the outcome, and search finds what the plan decided', async () => {
    const plan = `Implement the following plan:\n# Plan: Homebrew tap\n${filler(12)}\n## Verification\n1. Run \`goreleaser release --snapshot --clean\` locally to test the configuration.\n${filler(8)}`;
    const blocks = episodeRecords({ request: plan, qa: [], outcome: 'Done: the tap formula is generated on release.', reports: [], files: [] })[0]!;
    assert.match(blocks[0]!, /^Asked: Implement the following plan: # Plan: Homebrew tap .{300,}…\nOutcome: Done: the tap formula/, 'the head is clipped, the outcome comes first');
    const whole = blocks.join('\n');
    assert.ok(whole.includes('Module 11 renders') && whole.includes('goreleaser release --snapshot --clean') && whole.includes('Module 7 renders'), 'nothing of the request cut');
    assert.ok(blocks.every((b) => b.length <= 2000));
    const short = episodeRecords({ request: 'rename the flag', qa: [], outcome: 'Renamed.', reports: [], files: [] })[0]!;
    assert.deepEqual(short, ['Asked: rename the flag\nOutcome: Renamed.'], 'a short request is not repeated');
    const e = await engine();
    await recordEpisodes(e, [turn('user', plan, { kind: 'prompt' }), turn('assistant', 'Done: the tap formula is generated on release.')], scope);
    const hits = weighEpisodes((await e.search({ query: 'how can I try the goreleaser config without publishing', user_id: 'u', top_k: 5, relevance: true, textOf: turnOf })).results);
    assert.match(hits[0]?.row.content ?? '', /--snapshot/);
  });

  it("weighs a subagent's report below the turn's own outcome, and both below an extracted fact", async () => {
    const e = await engine();
    await recordEpisodes(
      e,
      [
        turn('user', 'where is the sqlite database', { kind: 'prompt' }),
        turn('tool', 'The sqlite database file is ./data/observe.db.', { tool: 'Task', kind: 'report', title: 'Explore' }),
        turn('assistant', 'The sqlite database file is ./data/observe.db.'),
      ],
      scope,
    );
    await e.add({ content: 'The sqlite database file is ./data/observe.db.', user_id: 'u', repo: scope.repo, category: 'fact' });
    const hits = weighEpisodes((await e.search({ query: 'where is the sqlite database file', user_id: 'u', top_k: 10 })).results);
    assert.deepEqual(
      hits.map((h) => (isReport(h.row) ? 'report' : h.row.category === 'note' ? 'outcome' : 'fact')),
      ['fact', 'outcome', 'report'],
    );
    assert.equal(weighEpisodes(hits, 1).filter((h) => h.row.category === 'note').length, 1, 'at most maxEpisodes episodes');
  });

  it('shows a short snippet: the request, the opening, and the passage holding the prompt’s rarest terms', () => {
    const block = `Asked: explain the repository layout\nOutcome: Here is the overview.\n${filler(20)}\n- The worktrees are tracked in docs/worktree-tracking.md.\n${filler(10)}`;
    const s = episodeSnippet(block, 'where are worktrees tracked');
    assert.ok(s.length <= SNIPPET_CHARS, `${s.length}`);
    assert.ok(s.startsWith('Asked: explain the repository layout Outcome: Here is the overview.'));
    assert.match(s, /… - The worktrees are tracked in docs\/worktree-tracking\.md\./);
    assert.equal(episodeSnippet('Asked: x\nOutcome: short answer.', 'anything'), 'Asked: x Outcome: short answer.', 'a short block is shown whole');
  });

  it('shows the densest region whole: the run of passages holding most of the prompt’s terms, with the answer between them', () => {
    const block = [
      'Task: Explore the timeline feature and report.',
      'Outcome: ## Summary',
      filler(12),
      '**Existing Follow Functionality**',
      'There IS an auto-follow toggle (not a full pause):',
      '- `autoFollow` state in the UI store (defaults to `true`)',
      '- When enabled: scrolls the list to new events',
      '- Located at `app/client/src/components/main-panel/scope-bar.tsx`',
      '  - Button with an arrow icon',
      filler(6),
      '- The follow state is described in the store.',
      filler(6),
      '- Each button of the toolbar has a tooltip.',
    ].join('\n');
    const s = episodeSnippet(block, 'where is the auto-follow button');
    assert.ok(s.length <= SNIPPET_CHARS, `${s.length}`);
    assert.match(s, /auto-follow toggle.*scope-bar\.tsx.*Button with an arrow icon/, s);
  });

  it('never cuts a passage inside a code span ("`uv tool install . --reinstall`" is one passage)', () => {
    const block = `Asked: update the docs\nOutcome: Done.\n${filler(20)}\n- Added \`uv tool install . --reinstall\` to CLAUDE.md and README.md\n${filler(10)}`;
    assert.match(episodeSnippet(block, 'how do I reinstall the cli'), /Added `uv tool install \. --reinstall` to CLAUDE\.md/);
  });

  it('shows a long request once when it holds the prompt’s terms itself (not its clipped head and then the whole of it)', () => {
    const request = 'Task: Create a git worktree for the integration sprint Requirements: - Branch name: feature/phase10-integration - Base branch: develop - Follow the layout of the worktrees folder - Update the tracking file';
    const s = episodeSnippet(`${request}\nOutcome: Done.\n${filler(30)}`, 'which branch do new feature branches start from');
    assert.match(s, /Base branch: develop/);
    assert.equal(s.split('Task: Create a git worktree').length - 1, 1, s);
  });

  it('lists the shell commands a turn ran that build, test or change something, failed ones marked, never ones that only look around', () => {
    const [d] = episodeDrafts([
      turn('user', 'make the tests pass', { kind: 'prompt' }),
      turn('tool', '$ ls src\nmain.ts', { tool: 'Bash', ok: true }),
      turn('tool', '$ rtk bun run test\nExit code 2', { tool: 'Bash', ok: false }),
      turn('tool', '$ cd api && git status\nclean', { tool: 'Bash', ok: true }),
      turn('tool', '$ gh run view 123 --log-failed\n…', { tool: 'Bash', ok: true }),
      turn('tool', '$ bun run test\n12 pass', { tool: 'Bash', ok: true }),
      turn('assistant', 'All 12 tests pass with plain `bun run test`.'),
    ]);
    assert.deepEqual(d?.commands, [
      { command: 'rtk bun run test', ok: false },
      { command: 'bun run test', ok: true },
    ]);
    assert.match(episodeRecords(d!)[0]![0]!, /^Asked: make the tests pass\nRan: rtk bun run test \(failed\); bun run test\nOutcome: /);
  });

  it('keeps what a failed command said went wrong, looking around or not, once per error', () => {
    // Real outputs: blind-42's `gh pr list` in a Replit shell, blind-3's push to a protected main.
    const [d] = episodeDrafts([
      turn('user', 'list the open PRs and push the fix', { kind: 'prompt' }),
      turn('tool', '$ gh pr list\nExit code 127\n/bin/bash: line 1: gh: command not found', { tool: 'Bash', ok: false }),
      turn('tool', '$ gh pr list --state open\nExit code 127\n/bin/bash: line 1: gh: command not found', { tool: 'Bash', ok: false }),
      turn('tool', '$ git push origin main\nExit code 1\n[entire] Pushing 1 checkpoint ref(s) to origin.......... done\nremote: error: GH006: Protected branch update failed for refs/heads/main.', { tool: 'Bash', ok: false }),
      turn('tool', '$ grep -r todo src\nExit code 1', { tool: 'Bash', ok: false }),
      turn('tool', '$ npm run dev\nError: listen EADDRINUSE: address already in use 0.0.0.0:5000', { tool: 'Bash', ok: false }),
      // blind-45 (0xscada-4cb7bb91): Python from `nix-env` crashes on start.
      turn('tool', '$ python3 --version\nExit code 139\n/bin/bash: line 1:  1255 Segmentation fault      (core dumped) python3 --version < /dev/null', { tool: 'Bash', ok: false }),
      turn('assistant', 'gh is not installed here and main is protected: open the PR from the pull/new URL.'),
    ]);
    assert.deepEqual(d?.failures, [
      { command: 'gh pr list', error: 'Exit code 127 / /bin/bash: line 1: gh: command not found' },
      { command: 'git push origin main', error: 'Exit code 1 / remote: error: GH006: Protected branch update failed for refs/heads/main.' },
      { command: 'npm run dev', error: 'Error: listen EADDRINUSE: address already in use 0.0.0.0:5000' },
      { command: 'python3 --version', error: 'Exit code 139 / /bin/bash: line 1: 1255 Segmentation fault (core dumped) python3 --version < /dev/null' },
    ]);
    const text = episodeRecords(d!)[0]!.join('\n');
    assert.match(text, /\nFailed: gh pr list → Exit code 127 \/ \/bin\/bash: line 1: gh: command not found\ngit push origin main → /);
    assert.doesNotMatch(text, /grep -r todo/, 'a search that found nothing said nothing went wrong');
  });

  it('gives a command the user ran in shell mode to the request typed after it, or to the last one when none follows', () => {
    // Real shape (napolimatcha): `! ./run_test.sh tests/pr_creation.test.ts`, then "Analyze the output of the test …".
    const shell = (command: string, out: string): Turn => turn('tool', `$ ${command}\n${out}`, { tool: 'Bash', command, kind: 'shell' });
    const drafts = episodeDrafts([
      turn('user', 'add the pr creation test', { kind: 'prompt' }),
      turn('assistant', 'Added tests/pr_creation.test.ts.'),
      shell('./run_test.sh tests/pr_creation.test.ts', '1 passed'),
      turn('user', 'Analyze the output of the test and propose a fix.', { kind: 'prompt' }),
      turn('assistant', 'The test passed but WORK_RESULT said failed: the status check reads the wrong field.'),
      shell('npm run build', 'done'),
    ]);
    assert.deepEqual(
      drafts.map((d) => d.commands?.map((c) => c.command)),
      [undefined, ['./run_test.sh tests/pr_creation.test.ts', 'npm run build']],
    );
    assert.match(episodeRecords(drafts[1]!)[0]![0]!, /^Asked: Analyze the output of the test and propose a fix\.\nRan: \.\/run_test\.sh tests\/pr_creation\.test\.ts; npm run build\n/);
  });

  it('shows files from inside the repository’s folder when their path passes through it', async () => {
    assert.equal(projectPath('/Users/u/Code/cipher-box/apps/api/src/migrations/1740-AddShares.ts', 'cipher-box', 2), 'apps/api/src/migrations/1740-AddShares.ts');
    assert.equal(projectPath('D:\\oh-my-posh\\e2e\\README.md', 'oh-my-posh', 3), 'e2e/README.md');
    assert.equal(projectPath('/home/u/elsewhere/src/lib/a.ts', 'cipher-box', 2), 'lib/a.ts', 'else its last segments');
    assert.equal(repoFolder('github.com/FSM1/cipher-box'), 'cipher-box');
    const e = await engine();
    await recordEpisodes(e, [turn('user', 'add the missing migration', { kind: 'prompt' }), turn('assistant', 'Added it.', { files: ['/Users/u/Code/app/apps/api/src/migrations/1740-AddShares.ts'] })], scope);
    const [row] = (await e.list({ filter: { repo: scope.repo }, limit: 5 })).results;
    assert.match(row?.content ?? '', /^Files: apps\/api\/src\/migrations\/1740-AddShares\.ts$/m);
  });

  it('folds a short follow-up into the episode and writes nothing twice when the same turns are replayed', async () => {
    const e = await engine();
    const turns = [turn('user', 'where is the sqlite database', { kind: 'prompt' }), turn('assistant', 'In ./data/observe.db.'), turn('user', 'thanks, commit it', { kind: 'prompt' }), turn('assistant', 'Committed.')];
    assert.equal(await recordEpisodes(e, turns, scope), 2);
    assert.equal(await recordEpisodes(e, turns, scope), 0);
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 10 })).results;
    assert.deepEqual(
      rows.map((r) => r.content),
      ['Asked: where is the sqlite database\nOutcome: In ./data/observe.db.\nThen asked: thanks, commit it → Committed.'],
    );
  });

  it('keeps a short follow-up whose turn found something on the way, or saw a command fail, as an episode of its own: its folded line would drop both', async () => {
    // Real shape (blind-42, a Replit session): "I still cant see it", a cause found mid-turn, a short final message.
    const e = await engine();
    const cause = "My background server is blocking port 5000: when the user clicks Run, the workflow's npm run dev crashes immediately with EADDRINUSE.";
    const turns = [
      turn('user', 'can you fix my website so i can preview it', { kind: 'prompt' }),
      turn('assistant', 'Fixed the dark theme flash in client/index.html; the preview renders now.'),
      turn('user', 'I still cant see it', { kind: 'prompt' }),
      turn('assistant', cause),
      turn('assistant', 'Port 5000 is now free. Click Stop, then Run.'),
    ];
    await recordEpisodes(e, turns, scope);
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 10 })).results.map((r) => r.content);
    assert.equal(rows.length, 2, JSON.stringify(rows));
    assert.ok(rows.some((r) => r.startsWith('Asked: I still cant see it') && r.includes('EADDRINUSE')), JSON.stringify(rows));
    const failing = await engine();
    const failed = (command: string, out: string): Turn => turn('tool', `$ ${command}\n${out}`, { tool: 'Bash', command, ok: false });
    await recordEpisodes(failing, [turns[0]!, turns[1]!, turn('user', 'open the pr', { kind: 'prompt' }), failed('gh pr create --fill', 'Exit code 127\n/bin/bash: line 1: gh: command not found'), turn('assistant', 'gh is not installed here.')], scope);
    const kept = (await failing.list({ filter: { repo: scope.repo }, limit: 10 })).results.map((r) => r.content);
    assert.ok(kept.some((r) => r.startsWith('Asked: open the pr') && r.includes('gh: command not found')), JSON.stringify(kept));
  });

  it('keeps a short question with a long answer as an episode of its own: its follow-up line would cut the answer (blind-40)', async () => {
    const e = await engine();
    const answer = `The to-dos are saved in the browser's localStorage under the key todoTasks. ${'The store writes them on every change through a deep watch, and the export button downloads a JSON backup named with the date. '.repeat(3)}`;
    const turns = [turn('user', 'fix the type errors in App.vue', { kind: 'prompt' }), turn('assistant', 'Fixed both.'), turn('user', '帮我分析代码，我的待办事项最后存储在本地哪里了', { kind: 'prompt' }), turn('assistant', answer)];
    await recordEpisodes(e, turns, scope);
    const rows = (await e.list({ filter: { repo: scope.repo }, limit: 10 })).results.map((r) => r.content).sort();
    assert.equal(rows.length, 2, JSON.stringify(rows));
    assert.ok(rows.some((r) => r.startsWith('Asked: 帮我分析代码') && r.includes(answer.trim().slice(-60))), 'the whole answer is kept');
  });
});
