/**
 * Files a session read, through the real hooks, CLI and daemon: the files a command printed one after
 * another (`cat a && echo "---" && cat b`) are each kept as a document read when they are small
 * configuration files at the top of the session's folder or project documents, with their secrets
 * redacted; of source code only the header comment it opens with is kept; search shows the two best
 * sections of a long document read.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, runHook, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

const line = (o: object): string => `${JSON.stringify(o)}\n`;

describe('files a session read', () => {
  let d: TestDaemon;
  let repo: string;
  before(async () => {
    d = await startTestDaemon();
    repo = makeRepo();
  });
  after(async () => {
    await d.stop();
  });

  const at = (s: number): string => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`;
  /** One turn of a session through the real hooks: the prompt, each tool call and its result, a last reply; flushed. */
  const session = async (id: string, prompt: string, calls: readonly { id: string; name: string; input: object; output: string }[]): Promise<void> => {
    const transcript = path.join(tempDir('cc-'), `${id}.jsonl`);
    const base = { session_id: id, cwd: repo, transcript_path: transcript };
    fs.writeFileSync(transcript, '');
    await runHook('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
    await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt }, d.env, repo);
    let text = line({ type: 'user', uuid: `${id}-u`, parentUuid: null, cwd: repo, timestamp: at(0), message: { role: 'user', content: prompt } });
    let parent = `${id}-u`;
    for (const [i, c] of calls.entries()) {
      text += line({ type: 'assistant', uuid: `${id}-a${i}`, parentUuid: parent, cwd: repo, timestamp: at(2 * i + 1), message: { id: `${id}-m${i}`, role: 'assistant', content: [{ type: 'tool_use', id: c.id, name: c.name, input: c.input }] } });
      text += line({ type: 'user', uuid: `${id}-r${i}`, parentUuid: `${id}-a${i}`, cwd: repo, timestamp: at(2 * i + 2), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: c.id, content: c.output }] } });
      parent = `${id}-r${i}`;
    }
    text += line({ type: 'assistant', uuid: `${id}-end`, parentUuid: parent, cwd: repo, timestamp: at(59), message: { id: `${id}-m-end`, role: 'assistant', content: [{ type: 'text', text: 'Done reading.' }] } });
    fs.appendFileSync(transcript, text);
    await runHook('Stop', { ...base, hook_event_name: 'Stop', stop_hook_active: false }, d.env, repo);
    await runHook('SessionEnd', { ...base, hook_event_name: 'SessionEnd', reason: 'other' }, d.env, repo);
    await d.client.flush();
  };
  const listed = async (): Promise<string[]> => {
    const list = await cli(['list', '--json', '--limit', '50'], d.env, repo);
    assert.equal(list.code, 0, list.stderr);
    return (JSON.parse(list.stdout) as { results: { content: string }[] }).results.map((r) => r.content);
  };
  const hits = async (query: string, k = 3): Promise<string[]> => {
    const found = await cli(['search', query, '--json', '--top-k', String(k)], d.env, repo);
    assert.equal(found.code, 0, found.stderr);
    return (JSON.parse(found.stdout) as { results: { content: string }[] }).results.map((r) => r.content);
  };
  const topHit = async (query: string): Promise<string> => (await hits(query))[0] ?? '';

  it('keeps each configuration file and document a compound cat printed as a document read, secrets redacted; not code', async () => {
    const secret = `sess_${randomBytes(18).toString('base64url')}`;
    // Real shapes (blind-48, blind-42): the workspace file has no last newline, so the marker runs into it.
    const workspace = 'packages:\n  - artifacts/*\n  - lib/*\n# supply-chain defence: keep it on\nminimumReleaseAge: 1440';
    const replit = `modules = ["nodejs-24", "postgresql-16"]\n\n[deployment]\ndeploymentTarget = "autoscale"\n\n[userenv.shared]\nSESSION_SECRET = "${secret}"`;
    const notes = '# Forge\n\nDeploys go through Replit autoscale; never run the seed script against production.';
    const code = 'export const handler = () => "forbidden words go here";';
    await session('p1', 'read the workspace setup and tell me how it deploys', [
      { id: 't1', name: 'Bash', input: { command: 'cat pnpm-workspace.yaml && echo "---" && cat .replit && echo "---" && ls artifacts' }, output: `${workspace}---\n${replit}\n---\napi-server\nforge` },
      { id: 't2', name: 'Bash', input: { command: 'cat replit.md | head -80 && echo "===" && cat src/routes/a.ts' }, output: `${notes}\n===\n${code}` },
    ]);
    const rows = await listed();
    const docs = rows.filter((c) => c.startsWith('Read: ')).map((c) => c.split('\n')[0]).sort();
    assert.deepEqual(docs, ['Read: .replit', 'Read: pnpm-workspace.yaml', 'Read: replit.md'], JSON.stringify(rows));
    assert.ok(!rows.some((c) => c.includes(secret)), 'the printed file’s secret is redacted');
    assert.match(rows.find((c) => c.startsWith('Read: pnpm-workspace.yaml')) ?? '', /minimumReleaseAge: 1440$/, 'the file ends where the marker began');
    assert.ok(!rows.some((c) => c.startsWith('Read: ') && c.includes('forbidden words')), 'code printed beside a document is not kept');
    assert.match(await topHit('minimum release age for packages'), /^Read: pnpm-workspace\.yaml\n/, 'search answers from the printed file');
  });

  it('keeps the header comment of a source file read from its top, and search answers from it; not its code', async () => {
    // A real shape (blind-52): the rule for the file is in its module docstring, nowhere in the conversation.
    const contracts = ['#!/usr/bin/env python3', '"""FROZEN CONTRACTS. Do not change without telling all four owners.', '', 'The Report / Check JSON schema and the validator signatures are frozen.', '"""', 'import json', 'SECRET_SAUCE = "the code itself"'];
    const numbered = contracts.map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join('\n');
    await session('p2', 'look at the contracts module', [{ id: 't3', name: 'Read', input: { file_path: path.join(repo, 'autoimplants', 'contracts.py') }, output: numbered }]);
    const doc = (await listed()).find((c) => c.startsWith('Read: autoimplants/contracts.py'));
    assert.equal(doc, 'Read: autoimplants/contracts.py\nText: FROZEN CONTRACTS. Do not change without telling all four owners.\nThe Report / Check JSON schema and the validator signatures are frozen.');
    assert.match(await topHit('can I change the Report format in contracts.py?'), /^Read: autoimplants\/contracts\.py\n/);
  });

  it('shows a second section of a long document when it answers, though another section shares more of the question’s words', async () => {
    // Real shape (blind-25): docs/release.md talks about versions and review throughout; the step to
    // run before submitting sits in a later section whose words the question mostly does not use.
    const talk = (n: number): string => Array.from({ length: n }, (_, i) => `- A version goes to review once its build is processed (note ${i}); review of a version takes a day, and a version in review cannot be edited.`).join('\n');
    const release = ['# Releasing', '', '## Versions and review', talk(14), '', '## Store metadata', 'The listing text lives in ./metadata. Before you submit, run `mise run asc -- metadata validate --dir ./metadata`; it fails on a missing locale.', talk(1), '', '## Signing', talk(14)].join('\n');
    const numbered = release.split('\n').map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join('\n');
    await session('p3', 'read the release notes', [{ id: 't4', name: 'Read', input: { file_path: path.join(repo, 'docs', 'release.md') }, output: numbered }]);
    const shown = await hits('what should I run before submitting a version for review', 5);
    const sections = shown.filter((c) => /^Read(?: \(continued\))?: docs\/release\.md/.test(c));
    assert.equal(sections.length, 2, JSON.stringify(shown.map((c) => c.slice(0, 80))));
    assert.ok(sections.some((c) => c.includes('metadata validate')), 'the answering section is shown beside the best one');
  });
});
