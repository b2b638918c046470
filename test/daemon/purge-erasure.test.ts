/**
 * A purge through the real daemon (the CLI's `forget --purge`, `DELETE /v1/memories/:id?purge=true`
 * over the socket) leaves no copy of the memory under SERVICE_HOME: not in the store, not in a
 * finished export (rewritten without it), not in the journal segment that a still-unflushed
 * session keeps alive, not in the forget log. And the hook spool: every spooled event is ingested
 * through capture redaction and its file removed; what cannot be ingested is kept redacted only.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { resolvePaths } from '../../engine/index.js';
import { spoolDir, spoolEvent } from '../../hooks/lib/spool.js';
import { cli, makeRepo, runHook, startTestDaemon } from '../helpers/daemon.js';
import { plantedSecrets } from '../helpers/secrets.js';
import { filesUnder, tempDir } from '../helpers/tmp.js';

const marker = (name: string): string => `${name}${randomBytes(6).toString('hex').toUpperCase()}`;

function holding(dir: string, text: string): string[] {
  return filesUnder(dir)
    .filter((f) => !f.endsWith('.sock') && fs.readFileSync(f).includes(text))
    .map((f) => path.relative(dir, f));
}

describe('purge erasure (daemon)', () => {
  it('erases a captured memory from the store, exports, journal and forget log (CLI forget --purge, DELETE ?purge=true)', async () => {
    const d = await startTestDaemon();
    try {
      const repo = makeRepo();
      const captured = marker('CAPTUREDPURGE');
      const remembered = marker('REMEMBEREDPURGE');
      const other = marker('OTHERSESSION');
      const a = { session_id: 'aaaaaaaa-1111-4222-8333-444444444444', cwd: repo };
      const b = { session_id: 'bbbbbbbb-1111-4222-8333-444444444444', cwd: repo };
      await runHook('SessionStart', { ...a, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
      await runHook('UserPromptSubmit', { ...a, hook_event_name: 'UserPromptSubmit', prompt: `We decided to always sign release builds with the key named ${captured}.` }, d.env, repo);
      // Another session, not flushed: it keeps the journal segment (and so session A's lines) alive.
      await runHook('UserPromptSubmit', { ...b, hook_event_name: 'UserPromptSubmit', prompt: `Let's look at the flaky checkout test next, ticket ${other}.` }, d.env, repo);
      await d.client.flush({ session_id: a.session_id });
      await d.client.remember({ text: `Remember that the on-call rota lives in ${remembered}`, cwd: repo, session_id: a.session_id });
      const list = await d.client.request<{ results: { memory_id: string; content: string }[] }>('GET', '/v1/memories?limit=100');
      const capturedId = list.results.find((m) => m.content.includes(captured))?.memory_id;
      const rememberedId = list.results.find((m) => m.content.includes(remembered))?.memory_id;
      assert.ok(capturedId && rememberedId, `both memories were stored: ${JSON.stringify(list.results.map((m) => m.content))}`);
      const exported = await d.client.exportAll();
      assert.ok(exported.includes(captured) && exported.includes(remembered));
      assert.ok(holding(d.home, captured).some((f) => f.startsWith('journal/')), `the flushed prompt is still in the journal: ${holding(d.home, captured).join(', ')}`);
      assert.ok(holding(d.home, captured).some((f) => f.startsWith('exports/')));

      const r = await cli(['forget', capturedId, '--purge', '--yes'], d.env, repo);
      assert.equal(r.code, 0, r.stderr);
      await d.client.forget(rememberedId, true);
      const log = fs.readFileSync(path.join(resolvePaths(d.home).stateDir, 'forgets.json'), 'utf8');
      assert.ok(log.includes(capturedId), 'the purge is recorded (as erased) in the forget log');

      const again = await d.client.exportAll();
      assert.ok(!again.includes(captured) && !again.includes(remembered));
      assert.equal(await d.stop(), 0);
      for (const m of [captured, remembered]) assert.deepEqual(holding(d.home, m), [], `no file under the home holds ${m}`);
      // Chosen: the other session's events are not flushed yet, so they stay (no memory came from them).
      assert.ok(holding(d.home, other).some((f) => f.startsWith('journal/')), 'unflushed events of other sessions are kept');
    } finally {
      await d.stop();
    }
  });

  it('ingests the hook spool through capture redaction, removes each file, and keeps only redacted copies of what it refuses', async (t) => {
    const home = path.join(tempDir('spool-purge-'), 'home');
    const planted = plantedSecrets(1);
    const sid = 'cccccccc-1111-4222-8333-444444444444';
    const repo = makeRepo();
    for (const p of planted) spoolEvent(home, { hook_event_name: 'UserPromptSubmit', session_id: sid, cwd: repo, prompt: p.text });
    for (const p of planted.slice(0, 10)) spoolEvent(home, { hook_event_name: 'PostToolUse', session_id: sid, cwd: repo, tool_name: 'Bash', tool_input: { command: 'cat .env' }, tool_response: { stdout: p.text, stderr: '' } });
    // Not an event (torn by hand) and an event the daemon refuses: both hold secrets too.
    const bad = planted.slice(0, 3);
    fs.writeFileSync(path.join(spoolDir(home), '000000000000001-bad.json'), `{"prompt": "${bad.map((p) => p.text).join(' ')}`, { mode: 0o600 });
    spoolEvent(home, { hook_event_name: 'NotAHookEvent', session_id: 'not a session id', prompt: planted.slice(3, 6).map((p) => p.text).join('\n') });
    assert.ok(planted.every((p) => holding(home, p.secret).length > 0), 'every secret is in the spool before ingest');

    const d = await startTestDaemon({ home });
    try {
      const left = fs.readdirSync(spoolDir(home));
      assert.deepEqual(left.filter((f) => f.endsWith('.json')), [], 'every spooled event was ingested and its file removed');
      await d.client.flush({ session_id: sid });
      assert.equal(await d.stop(), 0);
      const survivors = planted.filter((p) => holding(home, p.secret).length > 0);
      const where = survivors.map((p) => `${p.kind}: ${holding(home, p.secret).join(', ')}`);
      t.diagnostic(`spool: ${survivors.length}/${planted.length} planted secrets survived under the home${where.length > 0 ? `: ${where.join('; ')}` : ''}`);
      assert.deepEqual(
        survivors.filter((p) => holding(home, p.secret).some((f) => f.startsWith('spool/'))).map((p) => p.kind),
        [],
        `nothing in the spool keeps a secret:\n${where.join('\n')}`,
      );
      assert.ok(survivors.length <= planted.length * 0.02, `${survivors.length}/${planted.length} survived:\n${where.join('\n')}`);
      for (const f of fs.readdirSync(spoolDir(home))) assert.equal(fs.statSync(path.join(spoolDir(home), f)).mode & 0o777, 0o600);
    } finally {
      await d.stop();
    }
  });
});
