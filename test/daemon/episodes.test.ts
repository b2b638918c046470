import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { episodeText } from '../../daemon/episodes.js';

describe('episode text', () => {
  it('keeps the prose of the final message and leaves its code blocks out of the clipped outcome', () => {
    const json = `\`\`\`json\n${JSON.stringify({ success: true, data: { rows: Array.from({ length: 40 }, (_, i) => `row ${i}`) } }, null, 2)}\n\`\`\``;
    const outcome = `Here is the result:\n\n${json}\n\n## Summary\n\n- Tracking: updated in worktree-tracking.md`;
    const text = episodeText({ request: 'create the worktree', qa: [], outcome, files: [] });
    assert.match(text, /worktree-tracking\.md/);
    assert.doesNotMatch(text, /row 3/);
  });

  it('keeps an outcome that is nothing but a code block', () => {
    const text = episodeText({ request: 'print the config', qa: [], outcome: '```\nport: 8080\n```', files: [] });
    assert.match(text, /port: 8080/);
  });
});
