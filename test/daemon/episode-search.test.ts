/**
 * A long turn through the real hooks and daemon: its final report is stored whole (several
 * blocks), `service search` shows each episode record once and still fills top_k, and the recall
 * hook injects a short snippet holding the fact that sits deep in the report.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, runHook, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

const line = (o: object): string => `${JSON.stringify(o)}\n`;

describe('a long turn, searched and recalled', () => {
  let d: TestDaemon;
  let repo: string;
  before(async () => {
    d = await startTestDaemon();
    repo = makeRepo('git@github.com:acme/report.git');
  });
  after(async () => {
    await d.stop();
  });

  it('finds a fact deep in a long final report, shows each episode once, and injects a snippet around it', async () => {
    const transcript = path.join(tempDir('cc-'), 'long.jsonl');
    const filler = Array.from({ length: 60 }, (_, i) => `- Widget module ${i} renders its rows and forwards clicks to the parent panel.`).join('\n');
    const report = `Here is the overview of the widget modules.\n${filler}\n- The nightly export job writes its archive to s3://acme-exports/nightly.\n${filler}`;
    const session = 'long-1';
    const base = { session_id: session, cwd: repo, transcript_path: transcript };
    fs.writeFileSync(transcript, '');
    await runHook('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
    await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'walk me through the widget modules and the export job' }, d.env, repo);
    fs.appendFileSync(
      transcript,
      line({ type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'walk me through the widget modules and the export job' } }) +
        line({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', timestamp: '2026-01-01T00:00:01Z', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: report }] } }),
    );
    await runHook('Stop', { ...base, hook_event_name: 'Stop', stop_hook_active: false }, d.env, repo);
    await runHook('SessionEnd', { ...base, hook_event_name: 'SessionEnd', reason: 'other' }, d.env, repo);
    await d.client.flush();
    // Weaker matches than every block of the episode (each headed by the request).
    for (const content of ['Widget colours follow the design tokens.', 'The export bucket is versioned.']) {
      assert.equal((await cli(['remember', content], d.env, repo)).code, 0);
    }
    const searchFor = async (query: string): Promise<string[]> => {
      const out = await cli(['search', query, '--json', '--top-k', '3'], d.env, repo);
      assert.equal(out.code, 0, out.stderr);
      return (JSON.parse(out.stdout) as { results: { content: string }[] }).results.map((r) => r.content);
    };
    const broad = await searchFor('walk me through the widget modules and the export job');
    assert.equal(broad.filter((c) => c.startsWith('Asked')).length, 1, `one block per episode: ${JSON.stringify(broad.map((c) => c.slice(0, 60)))}`);
    assert.equal(broad.length, 3, 'top_k is still filled');
    const deep = (await searchFor('where does the nightly export job write its archive')).filter((c) => c.startsWith('Asked'));
    assert.equal(deep.length, 1);
    assert.match(deep[0]!, /s3:\/\/acme-exports\/nightly/, 'the block that holds the fact');

    const hook = await runHook('UserPromptSubmit', { session_id: 'long-2', cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: 'where does the nightly export job write its archive?' }, d.env, repo);
    const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    const item = context.split('\n').find((l) => l.startsWith('- [note] Asked'));
    assert.ok(item, context);
    assert.match(item, /s3:\/\/acme-exports\/nightly/);
    assert.ok(item.length < 1000, `a snippet, not the block: ${item.length}`);
  });
});
