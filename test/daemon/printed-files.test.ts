/**
 * Files a command printed one after another (`cat a && echo "---" && cat b`), through the real hooks,
 * CLI and daemon: each small configuration file at the top of the session's folder, and each project
 * document among them, is kept as a document read, with its secrets redacted; code printed the same way
 * is not kept.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, runHook, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

const line = (o: object): string => `${JSON.stringify(o)}\n`;

describe('files one command printed', () => {
  let d: TestDaemon;
  let repo: string;
  before(async () => {
    d = await startTestDaemon();
    repo = makeRepo('git@github.com:acme/forge.git');
  });
  after(async () => {
    await d.stop();
  });

  it('keeps each configuration file and document a compound cat printed as a document read, secrets redacted; not code', async () => {
    const secret = `sess_${randomBytes(18).toString('base64url')}`;
    // Real shapes (blind-48, blind-42): the workspace file has no last newline, so the marker runs into it.
    const workspace = 'packages:\n  - artifacts/*\n  - lib/*\n# supply-chain defence: keep it on\nminimumReleaseAge: 1440';
    const replit = `modules = ["nodejs-24", "postgresql-16"]\n\n[deployment]\ndeploymentTarget = "autoscale"\n\n[userenv.shared]\nSESSION_SECRET = "${secret}"`;
    const notes = '# Forge\n\nDeploys go through Replit autoscale; never run the seed script against production.';
    const code = 'export const handler = () => "forbidden words go here";';
    const calls = [
      { id: 't1', command: 'cat pnpm-workspace.yaml && echo "---" && cat .replit && echo "---" && ls artifacts', output: `${workspace}---\n${replit}\n---\napi-server\nforge` },
      { id: 't2', command: 'cat replit.md | head -80 && echo "===" && cat src/routes/a.ts', output: `${notes}\n===\n${code}` },
    ];
    const transcript = path.join(tempDir('cc-'), 'p1.jsonl');
    const base = { session_id: 'p1', cwd: repo, transcript_path: transcript };
    fs.writeFileSync(transcript, '');
    const prompt = 'read the workspace setup and tell me how it deploys';
    await runHook('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
    await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt }, d.env, repo);
    const at = (s: number): string => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`;
    let text = line({ type: 'user', uuid: 'u1', parentUuid: null, cwd: repo, timestamp: at(0), message: { role: 'user', content: prompt } });
    let parent = 'u1';
    for (const [i, c] of calls.entries()) {
      text += line({ type: 'assistant', uuid: `a${i}`, parentUuid: parent, cwd: repo, timestamp: at(2 * i + 1), message: { id: `m${i}`, role: 'assistant', content: [{ type: 'tool_use', id: c.id, name: 'Bash', input: { command: c.command } }] } });
      text += line({ type: 'user', uuid: `r${i}`, parentUuid: `a${i}`, cwd: repo, timestamp: at(2 * i + 2), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: c.id, content: c.output }] } });
      parent = `r${i}`;
    }
    text += line({ type: 'assistant', uuid: 'end', parentUuid: parent, cwd: repo, timestamp: at(9), message: { id: 'm9', role: 'assistant', content: [{ type: 'text', text: 'It is a pnpm workspace deployed on Replit.' }] } });
    fs.appendFileSync(transcript, text);
    await runHook('Stop', { ...base, hook_event_name: 'Stop', stop_hook_active: false }, d.env, repo);
    await runHook('SessionEnd', { ...base, hook_event_name: 'SessionEnd', reason: 'other' }, d.env, repo);
    await d.client.flush();

    const list = await cli(['list', '--json', '--limit', '50'], d.env, repo);
    assert.equal(list.code, 0, list.stderr);
    const rows = (JSON.parse(list.stdout) as { results: { content: string }[] }).results.map((r) => r.content);
    const docs = rows.filter((c) => c.startsWith('Read: ')).map((c) => c.split('\n')[0]).sort();
    assert.deepEqual(docs, ['Read: .replit', 'Read: pnpm-workspace.yaml', 'Read: replit.md'], JSON.stringify(rows));
    assert.ok(!rows.some((c) => c.includes(secret)), 'the printed file’s secret is redacted');
    assert.match(rows.find((c) => c.startsWith('Read: pnpm-workspace.yaml')) ?? '', /minimumReleaseAge: 1440$/, 'the file ends where the marker began');
    assert.ok(!rows.some((c) => c.startsWith('Read: ') && c.includes('forbidden words')), 'code printed beside a document is not kept');

    const found = await cli(['search', 'minimum release age for packages', '--json', '--top-k', '3'], d.env, repo);
    assert.equal(found.code, 0, found.stderr);
    const top = (JSON.parse(found.stdout) as { results: { content: string }[] }).results[0]?.content ?? '';
    assert.match(top, /^Read: pnpm-workspace\.yaml\n/, 'search answers from the printed file');
  });
});
