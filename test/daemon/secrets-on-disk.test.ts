/**
 * Planted secrets through the real capture path, then a grep of everything under the data dir.
 * A real daemon; real hook scripts as child processes (prompts, Bash commands, decoded tool
 * output objects, assistant messages); `remember`, `POST`/`PATCH /v1/memories` and an NDJSON import
 * over the daemon socket. At least 150 secrets of at least 50 kinds, generated at run time: at
 * most 2% may survive anywhere on disk. The false-positive corpus is stored byte for byte.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeRepo, runHook, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { filesUnder } from '../helpers/tmp.js';
import { benignCorpus, plantedSecrets, SECRET_KINDS, type PlantedSecret } from '../helpers/secrets.js';

let d: TestDaemon;
let repo: string;
before(async () => {
  d = await startTestDaemon();
  repo = makeRepo();
});
after(async () => {
  await d.stop();
});

/** Several texts per hook event, as a busy session produces them. */
function groups<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

function versionLine(content: string, metadata: Record<string, unknown>): string {
  const now = new Date().toISOString();
  return JSON.stringify({
    kind: 'version', version_id: crypto.randomUUID(), memory_id: crypto.randomUUID(), version: 1, tx: 1, content, user_id: 'tester', agent_id: null, app_id: null, run_id: null,
    space: 'project', repo: null, dir: null, category: 'note', metadata, source: { kind: 'import' }, valid_from: now, valid_to: null, recorded_at: now, created_at: now, deleted: false, block: null,
  });
}

describe('planted secrets through a real capture', () => {
  it('leaves at most 2% of 150+ secrets of 50+ kinds anywhere under the data dir', async (t) => {
    const planted = plantedSecrets(3);
    assert.ok(planted.length >= 150 && SECRET_KINDS.length >= 50);
    const sid = 'eeeeeeee-1111-4222-8333-444444444444';
    const base = { session_id: sid, cwd: repo };
    const by = (c: PlantedSecret['channel']): PlantedSecret[] => planted.filter((p) => p.channel === c);

    await runHook('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
    for (const g of groups(by('prompt'), 3)) {
      await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: g.map((p) => p.text).join('\n\n') }, d.env, repo);
    }
    for (const g of groups(by('command'), 3)) {
      await runHook('PostToolUse', { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: g.map((p) => p.text).join(' && \\\n  '), description: 'set up the environment' }, tool_response: { stdout: 'done\n', stderr: '', interrupted: false, isImage: false } }, d.env, repo);
    }
    for (const g of groups(by('output'), 4)) {
      // Tool output reaches the hook as a decoded object: redaction must see each field's own text.
      await runHook('PostToolUse', { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'cat .env config/*.yml ~/.netrc' }, tool_response: { stdout: `${g.map((p) => p.text).join('\n\n')}\n`, stderr: '', interrupted: false, isImage: false } }, d.env, repo);
    }
    await runHook('PostToolUseFailure', { ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'npm publish' }, error: by('output').slice(0, 3).map((p) => p.text).join('\n') }, d.env, repo);
    for (const g of groups(by('stop'), 3)) {
      await runHook('Stop', { ...base, hook_event_name: 'Stop', last_assistant_message: `Done. ${g.map((p) => p.text).join('\n')}` }, d.env, repo);
    }
    for (const p of by('remember')) await d.client.remember({ text: p.text, cwd: repo, session_id: sid });
    for (const p of by('rest')) {
      const m = await d.client.request<{ memory_id: string }>('POST', '/v1/memories', { content: p.text, metadata: { note: p.text } });
      await d.client.request('PATCH', `/v1/memories/${m.memory_id}`, { content: `updated: ${p.text}` });
    }
    await d.client.importNdjson(planted.slice(0, 20).map((p) => versionLine(`imported: ${p.text}`, { raw: p.text })).join('\n'));
    await d.client.flush({ session_id: sid });
    await runHook('SessionEnd', { ...base, hook_event_name: 'SessionEnd', reason: 'exit' }, d.env, repo);
    await d.client.flush({ session_id: sid });
    await d.client.exportAll();
    await d.stop();

    const all = filesUnder(d.home).filter((f) => !f.endsWith('.sock'));
    const contents = all.map((f) => ({ f, bytes: fs.readFileSync(f) }));
    const survivors = planted.filter((p) => contents.some((c) => c.bytes.includes(p.secret)));
    const where = survivors.map((p) => `${p.kind} (${p.channel}) in ${contents.filter((c) => c.bytes.includes(p.secret)).map((c) => path.relative(d.home, c.f)).join(', ')}`);
    t.diagnostic(`${survivors.length}/${planted.length} planted secrets (${SECRET_KINDS.length} kinds) survived on disk (${((100 * survivors.length) / planted.length).toFixed(1)}%)${where.length > 0 ? `: ${where.join('; ')}` : ''}`);
    assert.ok(survivors.length <= planted.length * 0.02, `${survivors.length}/${planted.length} survived:\n${where.join('\n')}`);
    // The capture did happen: memories and journal hold the redacted placeholders.
    assert.ok(contents.some((c) => c.bytes.includes('[REDACTED:')), 'placeholders were written');
    d = await startTestDaemon({ home: d.home });
  });

  it('stores the false-positive corpus byte for byte', async (t) => {
    t.diagnostic(`${benignCorpus().length} benign snippets stored and read back`);
    for (const text of benignCorpus()) {
      const m = await d.client.request<{ memory_id: string; content: string }>('POST', '/v1/memories', { content: text });
      assert.equal((await d.client.get(m.memory_id)).content, text.trim());
    }
  });
});
