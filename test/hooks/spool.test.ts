import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CAPTURE_ID_FIELD as DAEMON_FIELD } from '../../daemon/spool.js';
import { resolvePaths } from '../../engine/index.js';
import { CAPTURE_ID_FIELD, spoolDir, spoolEvent } from '../../hooks/lib/spool.js';
import { runHook, startTestDaemon, testEnv } from '../helpers/daemon.js';
import { journalLines } from '../helpers/journal.js';
import { tempDir } from '../helpers/tmp.js';

describe('hook spool', () => {
  it('lives where the daemon looks, under the field name the daemon reads', () => {
    for (const home of ['/tmp/h', '/var/lib/x/home']) assert.equal(spoolDir(home), resolvePaths(home).spoolDir);
    assert.equal(CAPTURE_ID_FIELD, DAEMON_FIELD);
  });

  it('writes each event as one owner-only file in an owner-only dir, with a capture id', () => {
    const home = tempDir('spool-');
    const file = spoolEvent(home, { hook_event_name: 'Stop', session_id: 's' });
    assert.ok(file);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(spoolDir(home)).mode & 0o777, 0o700);
    const back = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.equal(back.session_id, 's');
    assert.match(String(back[CAPTURE_ID_FIELD]), /^[a-z0-9]+-[a-z0-9]+-[a-z0-9]+$/);
    assert.deepEqual(
      fs.readdirSync(spoolDir(home)).filter((f) => f.endsWith('.tmp')),
      [],
    );
  });

  it('closes a spool dir an older build left open (0755) before writing into it', () => {
    const home = tempDir('spool-');
    fs.mkdirSync(spoolDir(home), { recursive: true, mode: 0o755 });
    fs.chmodSync(spoolDir(home), 0o755);
    const file = spoolEvent(home, { hook_event_name: 'UserPromptSubmit', session_id: 's', prompt: 'p' });
    assert.ok(file);
    assert.equal(fs.statSync(spoolDir(home)).mode & 0o777, 0o700);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it('a capture hook that cannot reach the daemon spools the event; the daemon ingests it on start, once', async () => {
    const home = path.join(tempDir('spool-'), 'home');
    fs.mkdirSync(path.join(home, 'state'), { recursive: true });
    // A fresh spawn marker keeps the hook from starting the daemon itself: this test starts it.
    fs.writeFileSync(path.join(home, 'state', 'spawn.at'), String(Date.now() + 3_600_000));
    const env = testEnv(home);
    const prompts = ['spooled prompt one', 'spooled prompt two'];
    for (const prompt of prompts) {
      const r = await runHook('UserPromptSubmit', { session_id: 'sp', hook_event_name: 'UserPromptSubmit', prompt, cwd: '/tmp/spool-test' }, env);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '');
    }
    const stop = await runHook('Stop', { session_id: 'sp', hook_event_name: 'Stop', last_assistant_message: 'done', cwd: '/tmp/spool-test' }, env);
    assert.equal(stop.code, 0);
    const spooled = fs.readdirSync(resolvePaths(home).spoolDir).filter((f) => f.endsWith('.json'));
    assert.equal(spooled.length, 3);
    // A copy of one event (a crash between journaling it and removing its file) and a bad file.
    const first = path.join(resolvePaths(home).spoolDir, spooled[0]!);
    fs.copyFileSync(first, first.replace(/\.json$/, '-copy.json'));
    fs.writeFileSync(path.join(resolvePaths(home).spoolDir, '999999999999999-bad.json'), '{"not json');
    const d = await startTestDaemon({ home });
    try {
      const lines = journalLines(home).filter((l) => l.s === 'sp');
      const flushed = (await d.client.status<{ capture: { sessions: { session_id: string; last_flush: string | null }[] } }>()).capture.sessions.find((s) => s.session_id === 'sp');
      // Stop flushes: the prompts are in the journal or already flushed, in their order, once each.
      assert.ok(flushed, 'the spooled session is known');
      const events = lines.map((l) => `${l.e}:${String(l.p.prompt ?? l.p.message ?? '')}`);
      if (flushed.last_flush === null) assert.deepEqual(events, ['UserPromptSubmit:spooled prompt one', 'UserPromptSubmit:spooled prompt two', 'Stop:done']);
      const left = fs.readdirSync(resolvePaths(home).spoolDir);
      assert.deepEqual(left, ['999999999999999-bad.bad'], 'ingested files are removed; the unreadable one is set aside');
    } finally {
      await d.stop();
    }
  });

  it('the daemon journals an event sent twice with one capture id once', async () => {
    const d = await startTestDaemon();
    try {
      const ev = { hook_event_name: 'PostToolUse', session_id: 'dup', cwd: '/tmp/dup', tool_name: 'Bash', tool_input: { command: 'twice' }, [CAPTURE_ID_FIELD]: 'abc-1-xyz' };
      const [a, b] = await Promise.all([d.client.capture(ev), d.client.capture(ev)]);
      const c = await d.client.capture(ev);
      assert.equal(a.j, b.j);
      assert.equal(a.j, c.j);
      assert.equal(journalLines(d.home).filter((l) => l.p.input === 'twice').length, 1);
    } finally {
      await d.stop();
    }
  });

  it('a capture hook retries once when the connection is reset mid-request', async () => {
    // A listener that resets the first connection, then answers like the daemon.
    const home = path.join(tempDir('spool-'), 'home');
    const paths = resolvePaths(home);
    // Private, as the daemon keeps it: the hooks send nothing through a socket in a directory others can enter.
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    let connections = 0;
    let received = '';
    const server = net.createServer((sock) => {
      connections++;
      if (connections === 1) {
        sock.once('data', () => sock.destroy()); // the request arrived, no answer: a daemon dying mid-request
        return;
      }
      sock.on('data', (c: Buffer) => {
        received += c.toString();
        if (received.includes('"tool_name"')) sock.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"captured":true}'.replace('16', '17'));
      });
    });
    await new Promise<void>((r) => server.listen(paths.socket, r));
    try {
      const r = await runHook('PostToolUse', { session_id: 'r', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: 'ok', cwd: '/tmp/r' }, testEnv(home));
      assert.equal(r.code, 0);
      assert.equal(connections, 2, 'one retry after the reset');
      assert.ok(!fs.existsSync(paths.spoolDir) || fs.readdirSync(paths.spoolDir).length === 0, 'delivered, so nothing spooled');
    } finally {
      server.close();
    }
  });
});
