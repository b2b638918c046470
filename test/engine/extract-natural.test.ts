/**
 * Extraction on text the way people type it and the way Claude Code writes it: lower case without
 * full stops, misspellings, terse answers to numbered options, AskUserQuestion answers, the
 * assistant's findings and the compaction summary; one-off requests and approvals never stored.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DURABLE, RuleExtractor } from '../../engine/extract/rule-extractor.js';
import { splitSentences } from '../../engine/extract/segment.js';
import type { ExtractTurn } from '../../engine/extract/types.js';

const user = (text: string, kind?: ExtractTurn['kind']): ExtractTurn => ({ role: 'user', text, ...(kind ? { kind } : {}) });
const assistant = (text: string, kind?: ExtractTurn['kind']): ExtractTurn => ({ role: 'assistant', text, ...(kind ? { kind } : {}) });
const extract = (turns: ExtractTurn[]) => new RuleExtractor().extract(turns);

describe('extraction on natural text', () => {
  it('stores rules typed in lower case, with typos and without apostrophes', async () => {
    const got = await extract([user('i only want one ver of you, perferably brew'), user('dont block the commit, instead redact the secret and warn')]);
    assert.deepEqual(
      got.map((c) => [c.category, c.content]),
      [
        ['preference', 'I only want one ver of you, perferably brew.'],
        ['constraint', 'Dont block the commit, instead redact the secret and warn.'],
      ],
    );
    assert.equal(got[0]!.space, 'personal', 'durable ("only") and habitual: a taste for every repository');
  });

  it('splits a long lower-case message without full stops instead of dropping it', async () => {
    const text =
      'ok so the daemon keeps dying on my laptop when the lid closes and i had to restart it three times today which is annoying but fine for now, we should use launchd for the daemon on macos instead of the detached child process because launchd restarts it and the logs end up in the right place and also please never write the socket into the repo folder';
    assert.ok(text.length > 330);
    assert.ok(splitSentences(text).every((s) => s.length <= 400));
    const got = await extract([user(text)]);
    assert.ok(got.some((c) => /launchd/.test(c.content)), JSON.stringify(got));
    assert.ok(got.some((c) => /never write the socket/i.test(c.content)), JSON.stringify(got));
  });

  it('splits sentences that start in lower case', () => {
    assert.deepEqual(splitSentences('we use pnpm here. the ci runs on node 20. ok'), ['we use pnpm here.', 'the ci runs on node 20.', 'ok']);
    assert.deepEqual(splitSentences('It was picking up room sound.Another thing is that I say period out loud'), ['It was picking up room sound.', 'Another thing is that I say period out loud']);
    const doctrine = "it's the right move to kick it up to the human in the loop for final adjudication, even if it means sharpening the definition or loosening it as needed, but it's a case by case basis, never assumed, never inferred, never projected from your end";
    assert.deepEqual(splitSentences(doctrine).at(-1), "but it's a case by case basis, never assumed, never inferred, never projected from your end", 'never + participle goes on with its clause');
    const rules = 'we have been over this many times already and i keep repeating it in every single session with you and with the other agents too so please write it down somewhere this time, never push to main and always open a pull request, never skip the hooks';
    assert.ok(splitSentences(rules).includes('never push to main'), JSON.stringify(splitSentences(rules)));
    assert.deepEqual(splitSentences("I've git init'd. The repo is empty. Ask J. Smith first."), ["I've git init'd.", 'The repo is empty.', 'Ask J. Smith first.'], "a contraction's last letter is no initial");
    assert.deepEqual(splitSentences('Use Node.js here and extend React.Component when you write the view'), ['Use Node.js here and extend React.Component when you write the view']);
  });

  it('keeps no note of what the user says they just did, but keeps what a note tells', async () => {
    for (const did of ['FYI, I pushed the fix to main.', 'Heads up, I just merged the PR.', "FYI, I've git init'd."]) assert.deepEqual(await extract([user(did)]), [], did);
    const kept = await extract([user('FYI the staging db is reset every night.'), user('Remember that we deploy on fridays.'), user('FYI we have decided to drop IE support.')]);
    assert.deepEqual(
      kept.map((c) => c.content),
      ['The staging db is reset every night.', 'We deploy on fridays.', 'We have decided to drop IE support.'],
    );
  });

  it('reads a numbered list typed inline as its items, not "questions: 1." as a sentence', async () => {
    const answer =
      "FYI, I've git init'd. To answer your questions: 1. The initial dataset will be the San Francisco Bay Area. 2. I don't know where this data comes from yet. My suspicion is that there will need to be multiple sources. 3. We should not show any flat bars; there's enough as is.";
    assert.deepEqual(splitSentences(answer), [
      "FYI, I've git init'd.",
      'To answer your questions:',
      'The initial dataset will be the San Francisco Bay Area.',
      "I don't know where this data comes from yet.",
      'My suspicion is that there will need to be multiple sources.',
      "We should not show any flat bars; there's enough as is.",
    ]);
    assert.ok(!(await extract([user(answer)])).some((c) => /questions|init'd/.test(c.content)), 'neither the lead-in nor what the user just did');
    // Numbers that do not run 1, 2 … are no list: version numbers and a lone "1." stay in their sentence.
    assert.deepEqual(splitSentences('We pinned it to version 1. Then 3. happened.'), ['We pinned it to version 1.', 'Then 3. happened.']);
  });

  it('stores the work a user keeps for themselves as their way of working; in every repository only when said to last', async () => {
    const [got] = await extract([user('I will run commands like git init and git commit myself, so that I can verify things before commiting; make changes in an unstaged state.')]);
    assert.equal(got?.category, 'preference');
    assert.equal(got?.space, 'project', 'not said to last: this project’s');
    assert.match(got.content, /unstaged/);
    const [always] = await extract([user('I always do the commits myself, never commit for me.')]);
    assert.equal(always?.space, 'personal');
    assert.deepEqual(await extract([user("I'll do it myself.")]), [], 'one thing done by hand now is no way of working');
  });

  it('stores no plan for some day, and the style guide only as a rule or a place, not a mention', async () => {
    assert.deepEqual(await extract([user('We should migrate to ESM at some point.'), user('I looked at the style guide yesterday and it was confusing.')]), []);
    const got = await extract([user('The style guide is docs/style-guide.md.'), user('Per the style guide, headings are sentence case.')]);
    assert.deepEqual(
      got.map((c) => c.category),
      ['convention', 'convention'],
    );
  });

  it('never stores one-off requests and approvals, and never as personal preferences', async () => {
    const got = await extract([
      user('I like your rec, create the plan!'),
      user('I want you to quit your own session and start a fresh one, make it so!'),
      user('sounds good, go ahead'),
      user('I would much prefer MIT license alternatives where possible but only if it wont hurt performance.'),
    ]);
    assert.ok(!got.some((c) => /plan|quit|go ahead/i.test(c.content)), JSON.stringify(got));
    assert.ok(!got.some((c) => c.space === 'personal'), 'a conditional preference stays in its project');
    // Real sessions (blind-34): a demand for now, and release notes pasted under a console log.
    assert.deepEqual(await extract([user('Any edits you made to other files or folders must be reverted immediately.')]), []);
    assert.deepEqual(await extract([user("In 'Network conditions', you can now emulate the 'Save-Data' request header that indicates the client's preference for reduced data usage.")]), []);
    const ours = await extract([user('our preference is tabs over spaces in the Makefile')]);
    assert.equal(ours[0]?.category, 'preference', JSON.stringify(ours));
  });

  it('stores no request bound to the task at hand or to a moment, nor a pick among options on screen; the same said to last is a rule', async () => {
    const bound = await extract([
      user("Let's use the staging database for this test."),
      user("Let's use the style guide agent for this."),
      user("Don't commit yet."),
      user("Don't push until I say so."),
      user("Let's go with option B."),
      user("let's do your recommendation"),
      user('Keep the old endpoint for the time being.'),
    ]);
    assert.deepEqual(bound, []);
    // Real session (blind-35): a report requested read-only; what it protects is named nowhere.
    const readOnly = await extract([
      user('Produce a clear, structured report about the current Docker-based dev stack you are managing for me. \nDo NOT modify any state.'),
      user('Do NOT make any changes to the system; this is a documentation/explanation task.'),
      user("dont change anything, just look"),
    ]);
    assert.deepEqual(readOnly, []);
    const guarded = await extract([user("Don't modify the generated API clients in src/gen.")]);
    assert.equal(guarded[0]?.category, 'constraint', JSON.stringify(guarded));
    const lasting = await extract([user("Let's use Postgres for the event store, not Mongo."), user("From now on, don't merge until I review it.")]);
    assert.deepEqual(
      lasting.map((c) => c.category),
      ['decision', 'convention'],
    );
  });

  it('joins a prohibition that names only what it forbids to the rule after it, and keeps no attempt that failed or effect of a step', async () => {
    // Real session (blind-37, artifacthub-5b983582): the rule after the prohibition says where it holds.
    const joined = await extract([user('Replace the entire file content with CommonJS format:\n\nDo NOT use "export default". PostCSS config must use module.exports.\n\nThen run: pnpm build and show me the output.')]);
    assert.deepEqual(joined.map((c) => c.content), ['Do NOT use "export default". PostCSS config must use module.exports.']);
    const alone = await extract([user("Don't use the staging bucket for uploads. Tests must pass before a merge.")]);
    assert.equal(alone.length, 2, 'a prohibition that says where it holds stands alone');
    // blind-37: a failed attempt from the compaction summary's errors, and a step's effect under a numbered task.
    const failed = await extract([assistant('4. Errors and fixes:\n- **Docker Desktop not running**: Both pipes unavailable. Switched context to `default`, both failed. Cannot run Docker build in current environment.', 'summary')]);
    assert.deepEqual(failed, []);
    assert.deepEqual(await extract([user("We switched the registry to verdaccio, but it didn't work.")]), []);
    const steps = await extract([user('5. Run this to update the lockfile for pnpm 9:\n   - Delete pnpm-lock.yaml\n   - Run: pnpm install\n   This regenerates the lockfile compatible with pnpm 9.\n\n6. Commit everything.')]);
    assert.deepEqual(steps, []);
    assert.equal((await extract([user('We switched the registry to verdaccio because npmjs rate-limits CI.')]))[0]?.category, 'decision');
  });

  it('takes no decision from a request that only refers to one, and no rule from a clause whose "never" has its subject before it', async () => {
    const referred = await extract([user('Run it for real on the whole repository (except those files/folders we already decided to ommit)'), user('Skip the folders we agreed on.')]);
    assert.deepEqual(referred, [], 'what was decided is not in the sentence');
    const stated = await extract([user('we decided to use pnpm for installs.'), user('We agreed on trunk based development.')]);
    assert.deepEqual(stated.map((c) => c.category), ['decision', 'decision']);
    const recap =
      "   - Solved: Using an isolated git worktree + untracked config-file copy to safely preview formatting behavior on a branch/config combination that never actually coexisted in the real repo history, without disturbing the current branch's uncommitted state.";
    assert.ok(!splitSentences(recap).some((s) => /^never\b/i.test(s)), JSON.stringify(splitSentences(recap)));
    assert.deepEqual(await extract([user(recap)]), []);
  });

  it('stores no wish with a question typed after it, nothing done to "anything" or "that", and no taste bound to a case as personal', async () => {
    const asked = await extract([
      user('I just want the reviewers to have more relevant context to help them, do they need the ast'),
      user('ok lets drop anything that is duplicated.\nand lets compare to what is in main right now'),
      user('lets keep that'),
    ]);
    assert.deepEqual(asked, [], 'a question without its mark, and choices made on what is in front of the user');
    const bound = await extract([user('We add some behavior if it had crashed. I like putting recordings in recordings even if max recordings is zero.')]);
    assert.deepEqual(
      bound.map((c) => [c.category, c.space]),
      [['preference', 'project']],
      'a taste bound to a case ("even if …") is this project’s call',
    );
    const taste = await extract([user('I like short commit messages.')]);
    assert.deepEqual(taste.map((c) => c.space), ['personal'], 'a plain taste is still the user’s own');
  });

  it('resolves a terse answer against the options the assistant listed', async () => {
    const got = await extract([
      assistant('Two ways forward:\n\n**Option A:** Keep a single unified interface (vsla.h) as the only entry point and make the backends private.\n**Option B:** Keep both the direct API and the unified API public.\n\nWhich do you prefer?'),
      user('Option A for sure'),
    ]);
    assert.deepEqual(
      got.map((c) => [c.category, c.content]),
      [['decision', 'Keep a single unified interface (vsla.h) as the only entry point and make the backends private.']],
    );
  });

  it('resolves "option 2" to the option so named, not to the second step of the option before it', async () => {
    const menu =
      '## Option 1: Bridge service\n\nRun a small script that:\n1. Connects to the device stream\n2. Forwards each reading to your server\n\n' +
      '## Option 2: Post from the firmware itself\n\nAdd an http_request component that posts readings to the API every minute.\n\nWhich do you prefer?';
    const got = await extract([assistant(menu), user('I would like to do option 2 :D')]);
    assert.deepEqual(got.map((c) => c.content), ['Post from the firmware itself.']);
    assert.deepEqual((await extract([assistant('Steps:\n1. Connects to the device stream\n2. Forwards each reading to your server\n\nWhich one should we use?'), user('2')])).map((c) => c.content), ['Forwards each reading to your server.'], 'a bare number still picks a numbered line');
  });

  it('leaves a terse pick of what to do first or next to the episode', async () => {
    const menu = '### Options\n\n**Option 1: Fix the broken import first** (recommended)\n**Option 2: Implement the metrics by hand** (faster for this task)\n\nYour call - which path?';
    assert.deepEqual(await extract([assistant(menu), user('1 fix it and do it right is best')]), [], 'an option that says what comes first');
    const now = 'The staging host is not responding.\n\n1. Restart the VM from the console\n2. Open a support ticket\n\nWhat should I do right now?';
    assert.deepEqual(await extract([assistant(now), user('1')]), [], 'a question about the moment');
    const pr = 'CI on main is red.\n\n**A) Drive-by fix in this PR** - delete the dead line as a separate commit\n**B) Separate PR** - keep this one focused\n\nWhich do you prefer?';
    assert.deepEqual(await extract([assistant(pr), user('A')]), [], 'an option bound to the work at hand');
  });

  it('keeps a root cause that names what to look up, and leaves one in general words to the episode', async () => {
    const ask = user('why does the build keep failing?');
    const named = [
      'Root cause: no `outDir` in `tsconfig.json`, so the compiled files were emitted beside the sources.',
      'The root cause: OpenAPI is only enabled when is_debug=True.',
      'The 502 error was caused by model downloads taking too long on the first request.',
      'Root cause: the prompt says "OUTPUT (JSON only)" but also asks for step-by-step reasoning.',
      'Root cause: the hyphenated directory wfc-review/skills cannot be imported by name.',
    ];
    for (const text of named) assert.equal((await extract([ask, assistant(text)])).length, 1, text);
    const general = [
      'The root cause was prompt design, not the token limit.',
      'Root cause: black version mismatch between local and CI.',
      'The root cause: this branch was used as a working scratchpad.',
      'The failures were caused by a formatting tool that ran across the whole repo.',
    ];
    for (const text of general) assert.deepEqual(await extract([ask, assistant(text)]), [], text);
  });

  it('reads a titled document pasted after the user’s words as material for the task, not as the user’s statements', async () => {
    const findings = Array.from({ length: 30 }, (_, i) => `## Finding A${i}\nThe book, the README and the code disagree in at least ${i + 2} places, and the parser must never accept unsigned input.`).join('\n\n');
    const pasted = `I got this thorough review! Turn each finding into a GitHub issue. We always use the bug template for issues.\n\n# Adversarial Code Audit\n**Target:** the repo\n\n${findings}`;
    assert.deepEqual((await extract([user(pasted)])).map((c) => c.content), ['We always use the bug template for issues.'], 'the typed words are read, the audit is not');
    const rules = '# Conventions\n\n- We always use pnpm, never npm.';
    assert.equal((await extract([user(rules)])).length, 1, 'a prompt written as a titled document is the user’s own');
    const short = 'Here are our rules.\n\n# Conventions\n\nWe always use pnpm, never npm.';
    assert.equal((await extract([user(short)])).length, 1, 'a short titled section after the user’s words is typed, not pasted');
  });

  it('reads the explanatory style’s note banner as a break, not as words of the note', async () => {
    const reply = 'Fixed.\n\n`★ Insight ─────────────────────────────────────`\nThe root cause was prompt design, not token limit.\n`─────────────────────────────────────────────────`';
    assert.deepEqual(await extract([user('why?'), assistant(reply)]), [], 'the banner is no code span of the sentence');
    const named = 'Fixed.\n\n`★ Insight ─────────`\nThe failure was caused by uv caching a local install of `langlearn-types`.\n`─────────`';
    assert.deepEqual((await extract([user('why?'), assistant(named)])).map((c) => c.content), ['The failure was caused by uv caching a local install of `langlearn-types`.']);
  });

  it('leaves a pick of how the assistant is to carry out the work to the episode', async () => {
    const menu =
      'Plan landed.\n\n**Two execution options:**\n\n1. **Subagent-Driven (recommended)** — I dispatch a fresh subagent per task, review between tasks.\n' +
      '2. **Inline Execution** — tasks run one after another with checkpoints.\n\nWhich approach?';
    assert.deepEqual(await extract([assistant(menu), user('1')]), [], 'what the assistant would do');
    const design = '1. **Modern SaaS** — dark, sans-serif, blue accent, card-based; I think it suits the tool.\n2. **Classic** — light, serif.\n\nWhich style?';
    assert.deepEqual((await extract([assistant(design), user('1')])).length, 1, '"I think" is an opinion on the option, not work');
  });

  it('turns an AskUserQuestion answer into a decision', async () => {
    assert.deepEqual(await extract([user('How should the plan be executed? → Drive-by fix in this PR (fastest)', 'answer')]), [], 'bound to the work at hand');
    const scope = await extract([user('How much of the API should the branch cover? → Security writes only (declare the admin surface out of scope for this branch)', 'answer')]);
    assert.equal(scope.length, 1, 'the description may name the work at hand');
    // What the assistant is to do, the way the work at hand gets done (a real session, blind-33).
    const chore = 'How do you want to handle the bot restart + running the migration? → You do both (I restart the running node riskbot.js process onto the new code, wait for it to come up, then run the migration with --commit.)';
    assert.deepEqual(await extract([user(chore, 'answer')]), []);
    assert.equal((await extract([user('Which package manager? → pnpm (I think it is the fastest)', 'answer')])).length, 1, 'an opinion is no act');
    const got = await extract([user('Which package manager? → pnpm (fast, strict)', 'answer')]);
    assert.deepEqual(
      got.map((c) => [c.category, c.content]),
      [['decision', 'Which package manager: pnpm (fast, strict).']],
    );
    // An option picked under a question that asks no lasting choice is no statement of its own, however
    // its label and description read (a real session, blind-29: the port cue fired on the option).
    const option = 'For local development, what URL would the API see that tells it "this is local"? → localhost:3000 (Standard localhost detection - if it\'s localhost, it\'s local)';
    assert.deepEqual(await extract([user(option, 'answer')]), []);
    assert.deepEqual(await extract([user(option.replace('localhost:3000 (', 'localhost:3000 (Recommended) ('), 'answer')]), [], 'a label with a note of its own');
    const typed = await extract([user('Which package manager? → we always use pnpm here, never npm', 'answer')]);
    assert.ok(typed.some((c) => c.content === 'We always use pnpm here, never npm.'), 'what the user typed is read as prose too');
  });

  it('drops an answer the user takes back in the next prompt, and keeps one followed by a new request', async () => {
    const ask = user('How should the CI job authenticate to Claude? → GitHub App / OAuth (draws from the same usage windows)', 'answer');
    const work = assistant('Looking up the action’s OAuth input.');
    const changed = await extract([ask, work, user('actually lets go with the ANTHROPIC_API_KEY approach you recommended')]);
    assert.ok(!changed.some((c) => /GitHub App/.test(c.content)), JSON.stringify(changed));
    const terse = await extract([assistant('Which store?\nA) SQLite for everything\nB) PostgreSQL for everything'), user('A'), user('on second thought, B')]);
    assert.ok(!terse.some((c) => /SQLite/.test(c.content)), JSON.stringify(terse));
    const kept = await extract([ask, work, user('actually, also add a badge to the README')]);
    assert.deepEqual(kept.filter((c) => /GitHub App/.test(c.content)).length, 1, 'a new request is no change of mind');
    const later = await extract([ask, work, user('add the workflow file'), assistant('Added.'), user('actually lets go with the API key approach')]);
    assert.deepEqual(later.filter((c) => /GitHub App/.test(c.content)).length, 1, 'only the next prompt takes an answer back');
  });

  it('keeps AskUserQuestion answers about the moment out of the decisions', async () => {
    const got = await extract([
      user(
        [
          'Is the build server currently powered on? → Yes, should be on',
          'Do you have SSH keys set up for the staging host? → Yes, with keys',
          'What is the address of the staging host? → staging.internal',
          'The server is not responding. How should I connect to it? → Try the web UI (browser instead of SSH)',
          'What should exist by tomorrow morning for the go/no-go call? → Code + tests only (no image build, no cluster changes)',
          'The write tools need a redeploy. How do you want to sequence this? → Implement this one tool and redeploy',
          'Which test runner should we standardise on? → vitest (fast, ESM native)',
          'How should users pick the log level? → An env variable (SERVICE_LOG_LEVEL)',
          'What stack does the server run on? → TypeScript on Node (Recommended) (one language for server and browser)',
        ].join('\n'),
        'answer',
      ),
    ]);
    assert.deepEqual(
      got.map((c) => [c.category, c.content]),
      [
        ['decision', 'Which test runner should we standardise on: vitest (fast, ESM native).'],
        ['decision', 'How should users pick the log level: An env variable (SERVICE_LOG_LEVEL).'],
        ['decision', 'What stack does the server run on: TypeScript on Node (Recommended) (one language for server and browser).'],
      ],
      'state checks, requests for information, the next step, the order of the work and what to have by tomorrow are answered for now; choices about the work, asked as what, where or how something is to be, last',
    );
  });

  it('reads choices offered side by side or proposed for a yes or no as decisions, and never the assistant’s question as the user’s words', async () => {
    const got = await extract([
      user(
        [
          'Comment cleanup scope: function-only or all doc comments (types/structs/package too)? → All doc comments (Also type, struct, const/var, package doc comments — same minimal-info rule applied everywhere.)',
          'Include _test.go files in the sweep? → Yes, include tests (Test helper funcs get same treatment.)',
          'Is the staging server up or down right now? → Up',
        ].join('\n'),
        'answer',
      ),
    ]);
    assert.deepEqual(
      got.map((c) => [c.category, c.content]),
      [
        ['decision', 'Comment cleanup scope: function-only or all doc comments (types/structs/package too): All doc comments (Also type, struct, const/var, package doc comments — same minimal-info rule applied everywhere.).'],
        ['decision', 'Include _test.go files in the sweep: Yes, include tests (Test helper funcs get same treatment.).'],
      ],
    );
    assert.deepEqual(await extract([user('The e2e job must never run on forks, is that intended? → Fine by me', 'answer')]), [], 'the question’s words are no rule of the user’s');
    assert.deepEqual(await extract([user('Which part of the v0 design needs rework? Pick as many as apply → Scope / the cut list (what the first train includes)', 'answer')]), [], 'a review of the work at hand');
  });

  it('leaves the compaction summary’s change log, topics and pending work to the episodes', async () => {
    const summary = [
      'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:',
      '1. Primary Request and Intent:',
      '   - The user requires that every backend must pass the shared test suite.',
      '2. Key Technical Concepts:',
      '   - Backward-compatible API evolution (render/1 → render/2 with default opts)',
      '3. Files and Code Sections:',
      '   - Replaced inline styles with semantic CSS classes',
      '4. Errors and fixes:',
      '   - The root cause of the flaky test was a shared `TMPDIR` between the workers.',
      '   - Root cause: the branch was used as a scratchpad.',
      '6. All user messages:',
      '   - "brainstorm: - must be controlled by configuration, default to \'off\'"',
      '   - "let\'s keep it simple for now" (multi-session: most recent only)',
      '7. Pending Tasks:',
      '   - We must always update the changelog before the release.',
      '8. Current Work:',
      '   - Decided to move the renderer into its own module.',
    ].join('\n');
    const texts = (await extract([assistant(summary, 'summary')])).map((c) => c.content);
    assert.ok(texts.some((t) => /must pass the shared test suite/.test(t)), JSON.stringify(texts));
    assert.ok(texts.some((t) => /shared `TMPDIR`/.test(t)), JSON.stringify(texts));
    for (const moment of [/scratchpad/, /Backward-compatible/, /inline styles/, /changelog/, /renderer into its own module/, /controlled by configuration/, /keep it simple/]) assert.ok(!texts.some((t) => moment.test(t)), `${moment}: ${JSON.stringify(texts)}`);
  });

  it('reads "Note the App ID" in a list of steps as a step, and "Note: …" as a note', async () => {
    const steps = await extract([user('1. Click **Create GitHub App**\n2. Note the **App ID** (displayed at the top)\n3. Note down the installation id')]);
    assert.deepEqual(steps.filter((c) => /App ID|installation id/.test(c.content)), [], JSON.stringify(steps));
    const [note] = await extract([user('Note: remember to bump the schema version on every migration.')]);
    assert.equal(note?.category, 'note');
    assert.match(note?.content ?? '', /bump the schema version/);
  });

  it('leaves the assistant’s change log to the episode, reason or not, unless it says where something now lives', async () => {
    const texts = (
      await extract([
        assistant(
          '## Summary of changes\n\n- Replaced inline styles with semantic CSS classes\n- Moved all CPU modules into src/cpu to avoid circular dependencies\n' +
            '- Designed a parallel code path to avoid breaking `render/1` backward compatibility\n- Pinned prettier in package.json so formatting matches CI\n' +
            '- Decision: the renderer stays a pure function',
        ),
      ])
    ).map((c) => c.content);
    assert.ok(!texts.some((t) => /inline styles/.test(t)), JSON.stringify(texts));
    assert.ok(!texts.some((t) => /parallel code path/.test(t)), `a reason does not make a change-log line a rule: ${JSON.stringify(texts)}`);
    assert.ok(!texts.some((t) => /prettier/.test(t)), `naming a file is not saying where something lives: ${JSON.stringify(texts)}`);
    assert.ok(texts.some((t) => /circular dependencies/.test(t)), JSON.stringify(texts));
    assert.ok(texts.some((t) => /pure function/.test(t)), JSON.stringify(texts));
  });

  it('keeps a change-log line stated as the rule from now on', async () => {
    const [c] = await extract([assistant('## Summary\n- Replaced moment with date-fns, and from now on dates go through src/lib/dates.ts')]);
    assert.match(c?.content ?? '', /date-fns/);
  });

  it('stores no forecast of what a change will do from now on, and no decision the assistant asks leave to carry out', async () => {
    const forecast = await extract([assistant('Fixed both. The installer will carry the correct config going forward.')]);
    assert.deepEqual(forecast, []);
    const rule = await extract([assistant('Going forward, we will use pnpm for every package.'), assistant('Pinning it in package.json is the real fix going forward.')]);
    assert.equal(rule.length, 2, JSON.stringify(rule));
    const proposal = '## Summary\n\n**Decision:** Implement the integration by hand, following the validated plan.\n\nShould I proceed with the manual implementation?';
    assert.deepEqual(await extract([assistant(proposal)]), [], 'a proposal, until the user agrees (the episode keeps it)');
    assert.equal((await extract([assistant('**Decision:** use SQLite for the cache.')])).length, 1);
  });

  it('reads the approved plan that starts its implementation as the assistant’s words: its conclusions, not its checks', async () => {
    const plan = '# Plan: parse the stream safely\n\n## Verification\nThe test must pass to confirm the refactoring is successful.\n\n## Outcome\nDecision: parseLine skips every line that does not start with "{".';
    assert.deepEqual(
      (await extract([user(`Implement the following plan:\n\n${plan}`)])).map((c) => [c.content, c.role]),
      [['ParseLine skips every line that does not start with "{".', 'assistant']],
    );
    assert.equal((await extract([user('The test must pass to confirm the refactoring is successful.')])).length, 1, 'the user’s own words');
  });

  it('drops a statement whose value the session changed afterwards, in the same turn or a later one', async () => {
    const summary = 'This session is being continued from a previous conversation.\n\n1. Work:\n   - Discovered root cause: go.mod version mismatch (1.24.0 required but CI has 1.23.12)\n';
    assert.equal((await extract([assistant(summary, 'summary')])).length, 1, 'alone, the finding is kept');
    assert.deepEqual(await extract([assistant(`${summary}2. Fix Applied:\n   - Fixed go.mod: changed go 1.24.0 → 1.21\n`, 'summary')]), []);
    assert.deepEqual(await extract([user('we must stay on `webpack` for the build'), assistant('Done: switched the build from `webpack` to vite.')]), [], 'changed in a later turn');
    assert.equal((await extract([user('we must stay on `webpack` for the build'), assistant('The `webpack` build passes.')])).length, 1, 'named again, not changed');
  });

  it('does not take "S/I" or "I/O" for a path', async () => {
    const texts = (await extract([assistant('## Summary\n- Renamed the S/I ratio to Exploration in the report\n- Moved the I/O helpers to src/io')])).map((c) => c.content);
    assert.deepEqual(texts, ['Moved the I/O helpers to src/io.']);
  });

  it('does not read Claude Code output pasted into a prompt as the user’s words', async () => {
    const prompt =
      'one ci test keeps failing. we decided to use background agents for the fixes. Here is what the last agent said:\n\n' +
      '⏺ ✅ Fixed - all tests passing!\n\n  Agent a598 identified and fixed the root cause:\n\n  We must never skip directories.\n\n' +
      '  sessionDir/subagents/\n  ├── agent-parent.jsonl        ✅ Found\n  └── agent-parent/           ❌ Skipped (directory)\n\n' +
      'never push to main directly';
    const texts = (await extract([user(prompt)])).map((c) => c.content);
    assert.deepEqual(texts, ['We decided to use background agents for the fixes.', 'Never push to main directly.']);
  });

  it('does not read a reply copied from the terminal without its marker as the user’s words', async () => {
    const pad = ' '.repeat(40);
    const reply = [
      ` I found a more recent reading from the same sensor:${pad}`,
      `${pad}`,
      '  Location: Yokohama (35.476°N, 139.572°E)',
      `  Reading Time: February 16, 2026 at 9:52 AM${pad}`,
      '',
      '  1. note:dev:864475044253671 - 28.39 CPS (Feb 16, 2026 9:52 AM) ✅ MOST RECENT',
      '  2. note:dev:863740067201316 - 36.13 CPS (June 11, 2025 - inactive)',
      '',
      '  The sensor is actively reporting and we should always read it in CPM.',
    ].join('\n');
    const got = await extract([user(`Still reporting CPS instead of CPM?\n\n${reply}\n\nwe always report radiation in CPM, never in CPS`)]);
    assert.deepEqual(got.map((c) => c.content), ['We always report radiation in CPM, never in CPS.']);
    const marked = await extract([user(`the server replies this:\n\n● Latest reading from Yokohama\n\n  We must always cache readings for one hour.\n\nwe never cache readings`)]);
    assert.deepEqual(marked.map((c) => c.content), ['We never cache readings.']);
  });

  it('reads "we always …" and "you should always …" as a practice kept, and what always happens as no rule', async () => {
    const got = await extract([user('we always use pnpm in this repo'), user('you should always run the migrations before the tests')]);
    assert.deepEqual(got.map((c) => c.content), ['We always use pnpm in this repo.', 'You should always run the migrations before the tests.']);
    assert.deepEqual(await extract([user('we always end up fighting the linter'), user('the build always fails on CI')]), []);
  });

  it('does not read an answer copied from a chat app (its citation marks) as the user’s words', async () => {
    const copied = [
      'Yep. Your photos confirm the core problem:',
      '    •    the device still runs the original firmware \uFFFC',
      '',
      'You should always back up the original firmware before flashing. \uFFFC',
      '',
      'The docs also note that the device should expose a USB serial interface. \uFFFC',
    ].join('\n');
    const got = await extract([user(`${copied}\n\nwe never flash without a backup of the firmware`)]);
    assert.deepEqual(got.map((c) => c.content), ['We never flash without a backup of the firmware.']);
  });

  it('reads no decision in what is planned for the thing at hand, and no deployment practice in "when we are done"', async () => {
    const plans = await extract([
      user('I have a server and we can make the api for it in this project then we will deploy it.'),
      user('If we make the code I can get you up and running on the server and continue with the api deployment when we are done.'),
    ]);
    assert.deepEqual(plans, []);
    const kept = await extract([user('We will deploy it through GitHub Actions from now on.'), user('Deployments are done via the release workflow.')]);
    assert.equal(kept.length, 2, JSON.stringify(kept.map((c) => c.content)));
  });

  it('reads no decision in picking the one in front of the user, and no fact in a report that the server started', async () => {
    assert.deepEqual(await extract([user("Let's use this one instead and modify the rest accordingly.")]), []);
    assert.deepEqual(await extract([assistant('## Summary\n- Server Startup: Successfully started the server on port 8000 with debug mode enabled.')]), []);
    assert.equal((await extract([user("Let's use pnpm instead of npm.")])).length, 1, 'a named choice is still a decision');
  });

  it('stores no sentence that hands over to a list or code after it, and no verdict on a finding', async () => {
    const got = await extract([
      assistant('**Decision:** Implement AST metrics manually using TDD workflow since:\n1. Faster for a 7-task plan\n2. The orchestrator has bugs'),
      assistant('**Root cause:** the CLI passes `strategy` but the orchestrator signature is:\n```python\ndef run(tasks_file):\n```'),
      assistant('### Findings Summary\n\n1. **Large test file**\n   - Decision: DEFER - well-organized, can split if it grows\n2. **Substring matching**\n   - Decision: ACCEPT - false positives are fine for hints'),
    ]);
    assert.deepEqual(got, []);
  });

  it('does not read a program’s output pasted into a prompt as the user’s words, and keeps the words around it', async () => {
    const output = [
      '🪝 Registering PostToolUse quality hooks...',
      '    ├─ file_checker.py',
      '    ├─ tdd_enforcer.py',
      '  ✓ Quality hooks installed to ~/.wfc/scripts/hooks/',
      '',
      'Note: Updates to ~/.wfc automatically sync to all platforms',
      '',
      '🎯 Available Skills',
      '  • \\033[0;36m/wfc-review\\033[0m - Multi-agent consensus code review',
      '📚 Documentation',
    ].join('\n');
    const got = await extract([user(`the installer output looks wrong:\n\n${output}\n\nfrom now on the installer must print one summary line`)]);
    assert.deepEqual(got.map((c) => c.content), ['From now on the installer must print one summary line.']);
  });

  it('reads no drawn file tree as prose', async () => {
    assert.deepEqual(await extract([user('├── Never scanned agent-child-1.jsonl\n└── Never discovered agent-child-2.jsonl')]), []);
  });

  it('does not store the user thinking aloud at the assistant as a decision', async () => {
    assert.deepEqual(await extract([user('As a user I do not actually see why and when you decided to work under todo tracking, maybe its just an artifact of the hooks')]), []);
    assert.deepEqual(await extract([user('why did you decide to use redis for this?')]), []);
    assert.deepEqual(await extract([user('I wonder if we decided to use pnpm already')]), []);
    const [c] = await extract([user('we decided to use pnpm, i dont understand why npm keeps coming back. never use npm here')]);
    assert.ok(c, 'a stated rule beside the musing is still stored');
  });

  it('stores no taste, personal or not, from liking what is in front of the user', async () => {
    assert.deepEqual(await extract([user('I tried using it and I love it so much I want to contribute changes.'), user('ok I really like this, keep going')]), []);
    const [taste] = await extract([user('I like small, focused commits.')]);
    assert.equal(taste?.category, 'preference', 'liking a kind of thing is a taste');
  });

  it('never stores a task handed to the assistant in the imperative, unless it says it lasts', async () => {
    assert.deepEqual(
      await extract([
        user('Ok ultrathink and come up with a chain of cause and effect relationships spanning at least 20 steps that links today to the second world war.'),
        user('Build a simple timer web app using HTML, CSS, and JavaScript. It must run offline.'),
        user('now find the timeline component and explain how it works'),
      ]),
      [{ content: 'It must run offline.', category: 'constraint', space: 'project', confidence: 0.75, subject: null, role: 'user' }],
    );
    const kept = (await extract([user('From now on create a changelog entry for every release.'), user('Fix the flaky test, we must not skip it.'), user('Commit messages must follow conventional commits.'), user('Build output must go to dist.')])).map((c) => c.content);
    assert.deepEqual(kept, ['From now on create a changelog entry for every release.', 'Fix the flaky test, we must not skip it.', 'Commit messages must follow conventional commits.', 'Build output must go to dist.'], 'a durable task, a prohibition, a verb read as a noun');
  });

  it('reads typographic apostrophes as typed ones', async () => {
    const [c] = await extract([user('Don’t use any external frameworks — keep it pure HTML, CSS, and JS.')]);
    assert.deepEqual([c?.category, c?.content], ['constraint', "Don't use any external frameworks — keep it pure HTML, CSS, and JS."]);
  });

  it('does not store a request for now that starts with "let us now"', async () => {
    assert.deepEqual(await extract([user('Let us now continue to ensure the parser is fully implemented and that all the methods have at least 2-3 unit tests.')]), []);
  });

  it('reads no rule into an idiom that holds a cue word', async () => {
    assert.deepEqual(
      await extract([
        user('never mind, i pushed'),
        user('Nevermind, I fixed it myself.'),
        user('Always happy to pair on this, thanks!'),
        user('I never thought the cache would matter here.'),
        user('It must have been the stale lockfile that broke it.'),
        user('no worries, I can’t wait to try the new build'),
      ]),
      [],
    );
    const [rule] = await extract([user('Never mind that, always run the linter before committing.')]);
    assert.equal(rule?.category, 'constraint', 'a rule beside the idiom is still read');
  });

  it('takes a slash after a sentence’s end as a break between sentences', () => {
    assert.deepEqual(splitSentences("big five, separate and don't couple./ I want you to build the harness."), ["big five, separate and don't couple.", 'I want you to build the harness.']);
  });

  it('never stores a request to the assistant as a preference or a rule, unless it says it lasts', async () => {
    assert.deepEqual(
      await extract([
        user("big five, separate and don't couple./ I want you to build 1. and 2. (the recommendation) already here."),
        user('ok so I want you to go through the generated comments and remove what is not needed'),
        user('For the e2e module I want you to build the harness first.'),
        user("I'd like you to review the migration before we merge."),
      ]),
      [],
    );
    const got = await extract([user('I want you to always run the linter before you commit.')]);
    assert.deepEqual(got.map((c) => [c.category, c.content]), [['constraint', 'Always run the linter before you commit.']], 'a durable request is the rule it states');
  });

  it('stores the rule a request dictates, and a decision stated as what the user wants, not the request around them', async () => {
    const got = await extract([
      user(
        'I want to create instructions that state that it is not allowed to write elaborate comments on functions and only keep it to the minimal information that needs to be available to understand the scope and responsibility of the function.',
      ),
      user('I want the instructions to live in Agents.md, not a skill, because it needs to apply it to every code that we have in every language.'),
      user('Please add a rule to CLAUDE.md that migrations must never run by hand on the server.'),
    ]);
    assert.deepEqual(
      got.map((c) => [c.category, c.content]),
      [
        ['convention', 'It is not allowed to write elaborate comments on functions and only keep it to the minimal information that needs to be available to understand the scope and responsibility of the function.'],
        ['decision', 'The instructions should live in Agents.md, not a skill, because it needs to apply it to every code that we have in every language.'],
        ['constraint', 'Migrations must never run by hand on the server.'],
      ],
    );
    assert.ok(got.every((c) => c.space === 'project'));
    assert.deepEqual(await extract([user('I want the button to be blue'), user('I want the tests to pass again')]), [], 'without a reason, an alternative or a durability cue it is what the user wants done now');
  });

  it('reads what the user needs a thing to be as a requirement, and "any more" before an adjective as no durability cue', async () => {
    const got = await extract([user('We need the public API to stay backwards compatible because clients pin it.')]);
    assert.deepEqual(got.map((c) => [c.category, c.content]), [['constraint', 'The public API must stay backwards compatible because clients pin it.']]);
    assert.deepEqual(await extract([user('We need the GPU operations to be a single kernel when they run or its not any more efficient than CPU usage.')]), [], 'a comparative "any more" says nothing lasts');
    assert.ok(DURABLE.test("we don't use npm any more") && DURABLE.test('we dont use npm anymore, only pnpm'));
    assert.ok(!DURABLE.test('it is not any more efficient') && !DURABLE.test('do we need any more tests'));
  });

  it('keeps the assistant’s findings and the compaction summary, not its narration', async () => {
    const got = await extract([
      assistant('Let me look at the build.\n\nThe root cause is a naming conflict: two types are both named vsla_backend_t.'),
      assistant('This session is being continued from a previous conversation.\n\nSummary:\n- The project targets C17 and must stay compatible with CUDA 12.\n- Let me know if you need anything else', 'summary'),
    ]);
    const texts = got.map((c) => c.content);
    assert.ok(texts.some((t) => /root cause is a naming conflict/i.test(t)), JSON.stringify(texts));
    assert.ok(texts.some((t) => /C17/.test(t)), JSON.stringify(texts));
    assert.ok(!texts.some((t) => /let me/i.test(t)));
  });

  it('stores no guess at the state of things, and keeps what the same words state', async () => {
    // Replit's deploy error, pasted by the user in blind-41 (supercartolamanagerv5-eac385e2).
    assert.deepEqual(await extract([user('The application may not be listening on port 5000, which is required for the deployment to become ready.')]), []);
    assert.deepEqual(await extract([user('The server could have crashed on port 5000 during the restart.')]), []);
    const [stated] = await extract([user('The application listens on port 5000 in production.')]);
    assert.equal(stated?.category, 'fact');
    const [forbids] = await extract([user('You may not use the staging database for load tests.')]);
    assert.equal(forbids?.category, 'constraint', '"may not" alone still forbids');
  });

  it('reads a fence marked as text as the user’s words, and any other fence as code', async () => {
    // blind-42: another assistant's answer pasted, with the prompt it wrote for Claude in a ```txt fence.
    const pasted = [
      'Give Claude this exact prompt',
      '',
      '```txt',
      'Restore the original design.',
      'Do not use fake testimonials.',
      'Do not merge automatically.',
      '```',
      '',
      '```ts',
      '// Do not use fake testimonials in the hero.',
      'const hero = { testimonials: [] };',
      '```',
    ].join('\n');
    const got = await extract([user(pasted)]);
    assert.deepEqual(
      got.map((c) => c.content),
      ['Do not use fake testimonials.', 'Do not merge automatically.'],
    );
    const [unclosed] = await extract([user('```txt\nDo not merge automatically.')]);
    assert.equal(unclosed?.content, 'Do not merge automatically.', 'an unclosed text fence runs to the end, its last line kept');
    const log = ['```text', 'npm ERR! code ERESOLVE', 'npm ERR! Do not use --force to fix this', '```'].join('\n');
    assert.deepEqual(await extract([user(log)]), [], 'a log in a text fence still meets the line filters');
  });
  it('reads a copied Claude Code session pasted into a prompt as no words of the user: its "❯" prompts, its section titles, and replies to numbered points', async () => {
    // Real shape (blind-54, agent-plugins): the owner pasted a terminal session of another project.
    const prompt =
      'We need to further improve our plugins so specs are persisted to disk, not only kept in the context window.\n\n' +
      'Each of those is independently verifiable.\n\n---\nThe concrete workflow change going forward\n\nBefore writing any more production code, we run each track through the pipeline.\n\n' +
      '❯ I like how you through through the semantic model and that Option 3 is the proper solution. That is what I was going to suggest.\n\n' +
      'Section title above a rule\n---\n\nnever hard-wrap lines in markdown files';
    const texts = (await extract([user(prompt)])).map((c) => c.content);
    assert.ok(!texts.some((t) => /concrete workflow change|I like how you|Section title/.test(t)), JSON.stringify(texts));
    assert.ok(texts.includes('Never hard-wrap lines in markdown files.'), `the user's own rule after the paste still counts: ${JSON.stringify(texts)}`);
    assert.deepEqual(await extract([user("1, your recommendation works, 2, let's go with the separate agent, graceful degradation seems best")]), []);
    assert.deepEqual(
      (await extract([user('I like how you always run the linter first'), user('I love the way it handles retries')])).map((c) => c.content),
      ['I like how you always run the linter first.'],
      'liking what the assistant did is no taste, unless it says it lasts',
    );
  });
  it('reads text the user relays from another agent as none of their words, and an answer that hands the choice back as no decision', async () => {
    // Real shapes (blind-55, agent-plugins): "Some feedback from another agent …:" and an AskUserQuestion answered "help me decide here".
    const analysis = Array.from({ length: 12 }, (_, i) => `- **Risk:** Caller believes write ${i} succeeded; the manifest is silently in the wrong state going forward.`).join('\n');
    const relayed = await extract([user(`Some feedback from another agent regarding improvements we can make:\n\n${analysis}`)]);
    assert.deepEqual(relayed, [], JSON.stringify(relayed));
    const quoted = await extract([user('Here is what Gemini suggested:\n\nnever commit generated files\n\nfrom now on always run the linter before pushing')]);
    assert.ok(quoted.some((c) => /always run the linter/.test(c.content)), `a short quote after such a lead-in is still read: ${JSON.stringify(quoted)}`);
    const answered = (text: string) => extract([user(`How should the new agents relate to the proof plugin? → ${text}`, 'answer')]);
    assert.deepEqual(await answered('help me decide here'), []);
    assert.deepEqual(await answered('Not sure yet'), []);
    assert.equal((await answered('Merge them into proof (one plugin)')).length, 1, 'a real pick is still a decision');
  });
});
