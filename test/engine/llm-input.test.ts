import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readTranscript } from '../../daemon/transcript.js';
import { assembleLlmInput, TOOL_CLIP_CHARS } from '../../engine/extract/llm-input.js';
import type { ExtractTurn } from '../../engine/extract/types.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../../test/fixtures/transcripts');

function turnsOf(name: string): ExtractTurn[] {
  return readTranscript(path.join(FIXTURES, `${name}.jsonl`), 0).turns.map((t) => ({ role: t.role, text: t.text, ...(t.tool ? { tool: t.tool } : {}), ...(t.kind ? { kind: t.kind } : {}) }));
}

describe('LLM extractor input by priority', () => {
  it('puts every user request of a real session in whole, then assistant text, then clipped tool output', () => {
    const turns = turnsOf('vsla-9034225e');
    const input = assembleLlmInput(turns, 24_000);
    assert.ok(input.length <= 24_000 + 2000, `${input.length}`);
    const requests = turns.filter((t) => t.role === 'user' && t.text.length < 3000);
    assert.ok(requests.length >= 5);
    for (const r of requests) assert.ok(input.includes(r.text), `request missing: ${r.text.slice(0, 60)}`);
    const toolChars = input
      .split('\n\n')
      .filter((l) => l.startsWith('tool'))
      .reduce((n, l) => n + l.length, 0);
    assert.ok(toolChars < input.length * 0.5, `tool output is ${toolChars} of ${input.length}`);
  });

  it("ranks a parent agent's task and a subagent's report after the user's words and the assistant's, before tool output, and labels them", () => {
    const turns: ExtractTurn[] = [
      { role: 'user', text: 'Check branch protection on main and report.', kind: 'task' },
      { role: 'tool', tool: 'Task', text: `enforce_admins is false. ${'r'.repeat(500)}`, kind: 'report' },
      { role: 'tool', tool: 'Bash', text: `$ gh api repos/x/y ${'t'.repeat(500)}` },
      { role: 'user', text: 'keep admins from bypassing the checks', kind: 'prompt' },
      { role: 'assistant', text: `Admins bypass the checks because enforce_admins is off. ${'a'.repeat(300)}` },
    ];
    const tight = assembleLlmInput(turns, 500);
    assert.match(tight, /^assistant: Admins bypass/m);
    assert.doesNotMatch(tight, /^subagent/m, "the assistant's conclusion comes before the report it drew on");
    const input = assembleLlmInput(turns, 1100);
    assert.match(input, /^parent agent \(task given to a subagent\): Check branch protection/m);
    assert.match(input, /^subagent \(report to the parent agent\): enforce_admins is false/m);
    assert.match(input, /^user: keep admins from bypassing the checks/m);
    assert.doesNotMatch(input, /^user: Check branch/m, "the task is not the user's words");
    assert.doesNotMatch(input, /^tool Bash/m, 'tool output comes last and did not fit');
  });

  it('never cuts the latest request, keeps session order, clips and de-duplicates tool output', () => {
    const long = `main was clean; fix the issues ${'x'.repeat(30_000)}`;
    const turns: ExtractTurn[] = [
      { role: 'tool', tool: 'Bash', text: 'same output\n'.repeat(200) },
      { role: 'tool', tool: 'Bash', text: 'same output\n'.repeat(200) },
      { role: 'assistant', text: 'The root cause was a stale lock file.' },
      { role: 'user', text: long },
    ];
    const input = assembleLlmInput(turns, 24_000);
    assert.ok(input.includes(long));
    const small = assembleLlmInput(turns.slice(0, 3), 24_000);
    assert.equal(small.split('\n\n').filter((l) => l.startsWith('tool')).length, 1, 'duplicate tool output kept once');
    assert.ok(small.indexOf('tool') < small.indexOf('The root cause'), 'session order');
    assert.ok(small.length < TOOL_CLIP_CHARS + 200);
  });
});
