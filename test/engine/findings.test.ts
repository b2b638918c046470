/**
 * Findings: the answers a report (or an assistant's reply) gives to the question list of the task
 * or prompt it answers, one per item, headed by the section that answers it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findings, questionItems } from '../../engine/extract/findings.js';

const TASK = [
  'In the app/client/src directory, find the timeline component and any related replay functionality. I need to understand:',
  '1. What the timeline component renders and how it works',
  '2. Whether there is any rewind or scrub functionality',
  '3. How events are displayed in the list',
  '',
  'Report what you find.',
].join('\n');

const REPORT = [
  "Perfect! I have a comprehensive understanding now. Let me create a summary report of my findings.",
  '',
  '## Summary Report: Timeline Component',
  '',
  '### 1. Timeline Component (`activity-timeline.tsx`)',
  '',
  '**What it renders:**',
  '- A horizontal timeline bar (150px high by default, resizable) showing agent activity over recent time periods',
  '  - nested detail that is not the answer',
  '- Displays agent lanes beneath a header with time range selector buttons',
  '',
  '### 2. Rewind and Scrub',
  '',
  'The timeline is a read-only live view, not a replay system. There is:',
  '- no rewind',
  '- no scrub',
  '',
  '### 3. Event List Display (`event-stream.tsx`)',
  '',
  '- Location: `app/client/src/components/event-stream/event-stream.tsx` (lines 10-80)',
  '',
  '### 4. Recommendations for the list',
  '',
  'Add a rewind button to the list header so events can be replayed.',
].join('\n');

describe('findings', () => {
  it('reads the items of a question list: under a line that asks to know something, or questions by themselves', () => {
    assert.deepEqual(questionItems(TASK), ['What the timeline component renders and how it works', 'Whether there is any rewind or scrub functionality', 'How events are displayed in the list']);
    assert.deepEqual(questionItems('I need to understand:\n- The router: `lib/web/router.ex`\n- The supervision tree'), ['The router: `lib/web/router.ex`', 'The supervision tree']);
    assert.deepEqual(questionItems('Requirements:\n- Branch name: feature/x\n- Base branch: develop'), [], 'a list of requirements asks nothing');
    assert.deepEqual(questionItems('I need to understand:\n1. How the router works'), [], 'one item is no list');
    assert.deepEqual(
      questionItems('Search the codebase for the ads. Find:\n1. All components that render ads\n2. Any configuration related to the ads\n3. Any CSS that might affect ad visibility'),
      [],
      '"Any X that …" without a question mark asks to find things: an inventory, not questions',
    );
    assert.deepEqual(questionItems('Check:\n- Any tests for the router?\n- Any CI job that runs them?'), ['Any tests for the router?', 'Any CI job that runs them?']);
  });

  it('takes, for each item, the opening of the section that answers it, headed by the section', () => {
    assert.deepEqual(
      findings(TASK, REPORT).map((f) => f.content),
      [
        'Timeline Component (`activity-timeline.tsx`): A horizontal timeline bar (150px high by default, resizable) showing agent activity over recent time periods.',
        'Rewind and Scrub: The timeline is a read-only live view, not a replay system.',
      ],
      'item 3 is answered by a pointer (a path and lines), no statement; the recommendation answers nothing',
    );
  });

  it('finds nothing in a report whose task asked no list, nor in a report without sections', () => {
    assert.deepEqual(findings('Create a git worktree for Sprint 10i\n\nRequirements:\n- Base branch: develop', REPORT), []);
    assert.deepEqual(findings(TASK, 'The timeline is a read-only live view. There is no rewind and no scrub.'), []);
  });

  it('gives no item more than one finding, and no more findings than items', () => {
    const many = `${REPORT}\n\n### 5. Timeline Rendering Details\n\nThe timeline renders one lane per agent with dots for its events.\n\n### 6. Timeline Height\n\nThe timeline height is kept in the UI store and is resizable by dragging.`;
    const got = findings(TASK, many);
    assert.ok(got.length <= 3, JSON.stringify(got));
  });

  it('skips advice, conditions, stale pointers and label lines at the opening of a section', () => {
    const task = 'I need to understand:\n1. How transcripts are saved\n2. How the push bypassed branch protection';
    const report = [
      '### Transcript Saving',
      'If no `session_id` is given, the most recent session is used.',
      '### Branch Protection Bypass',
      'Edit `.github/workflows/test.yml` and remove the push trigger.',
    ].join('\n');
    assert.deepEqual(findings(task, report), []);
    const pointers = '### Transcript Saving\nIn GET handler (`sessions.ts:90-101`): payload is parsed from a JSON string.\n### Branch Protection Bypass\nAll tests are in `/tmp/tmpqwh7888i/tests/` with full coverage.';
    assert.deepEqual(findings(task, pointers), [], 'a file:line and a temporary directory go stale');
    const labelled = '### Transcript Saving\n**How it works:**\n`save_transcript()` writes the transcript into `.slopometry/` and adds it to git.';
    assert.deepEqual(findings(task, labelled).map((f) => f.content), ['Transcript Saving: `save_transcript()` writes the transcript into `.slopometry/` and adds it to git.']);
  });

  it('keys a finding by its question and its section, so the same question answered again has the same subject', () => {
    const [a] = findings(TASK, REPORT);
    const [b] = findings(TASK, REPORT.replace('150px', '160px'));
    assert.equal(a!.subject, b!.subject);
    assert.match(a!.subject, /^finding:/);
    const other = 'I need to understand:\n1. The key files of the timeline component\n2. Where the time range is kept';
    const [c] = findings(other, REPORT);
    assert.ok(c, 'the other question is answered too');
    assert.notEqual(c.subject, a!.subject, 'another question, another finding');
  });
});
