import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dashboardModel } from '../../tui/dashboard-model.js';
import { readStatus } from '../../tui/status-shape.js';
import { syncLine } from '../../tui/sync-view.js';
import { ago, NOW, statusFixture } from './fixtures.js';

function model(patch: Record<string, unknown> = {}, embedPeak = 0) {
  return dashboardModel(readStatus(statusFixture(patch)), NOW, embedPeak);
}

function line(m: ReturnType<typeof model>, label: string) {
  return m.pipeline.find((l) => l.label === label);
}

describe('dashboard view model', () => {
  it('shows daemon health with a coarse uptime and the repository', () => {
    assert.deepEqual(model().daemon, { pid: 4242, version: '1.2.0', uptime: '1h02m', repo: 'acme/shop' });
  });

  it('lists all sessions first, then sessions by last activity, with their own pause apart from the global one', () => {
    const rows = model().capture.rows;
    assert.deepEqual(
      rows.map((r) => [r.sessionId?.slice(0, 8) ?? null, r.label, r.state, r.ownPause]),
      [
        [null, 'all sessions', 'capturing', false],
        ['a1b2c3d4', 'a1b2c3d4 acme/shop', 'capturing', false],
        ['b2c3d4e5', 'b2c3d4e5 acme/api', 'paused', true],
      ],
    );
    assert.equal(rows[1]!.detail, '3 waiting · 30s ago');
    const all = model({ capture: { ...(statusFixture().capture as object), paused_all: true, state: 'paused' } }).capture;
    assert.equal(all.globalPaused, true);
    assert.deepEqual(
      all.rows.map((r) => r.state),
      ['paused', 'all paused', 'paused'],
    );
    assert.equal(all.pause, 'paused: all sessions');
    assert.equal(model().capture.pause, 'paused: 1 session');
  });

  it('says when a session is paused because its repository is, and names this repository in the title', () => {
    const base = statusFixture().capture as { sessions: Record<string, unknown>[] };
    const capture = {
      ...base,
      paused_sessions: [],
      paused_repos: ['github.com/acme/shop'],
      sessions: base.sessions.map((s, i) => (i === 0 ? { ...s, state: 'paused', paused_by: 'repo' } : { ...s, state: 'capturing', paused_by: null })),
    };
    const c = model({ capture }).capture;
    assert.deepEqual(
      c.rows.map((r) => [r.state, r.repoPause]),
      [
        ['capturing', false],
        ['repo paused', true],
        ['capturing', false],
      ],
    );
    assert.equal(c.rows[0]!.detail, '2 active · 1 repo paused');
    assert.equal(c.pause, 'paused: this repo');
    const elsewhere = model({ capture, context: { cwd: '/work/api', repo: 'github.com/acme/api', dir: '.', session_id: null } }).capture;
    assert.equal(elsewhere.pause, 'paused: acme/shop');
  });

  it('counts memories per scope (a dash where the scope does not apply), space and non-empty category', () => {
    const m = model().memories;
    assert.equal(m.total, '12');
    assert.deepEqual(m.scopes, ['repo 8', 'dir 2', 'user 4', 'session -']);
    assert.deepEqual(m.spaces, ['project 8', 'personal 4']);
    assert.deepEqual(m.categories, ['decision 3', 'note 3', 'fact 2', 'preference 2', 'constraint 1', 'context 1']);
    assert.deepEqual(model({ memories: { total: 0, versions: 0, by_space: {}, by_scope: {}, by_category: { decision: 0 } } }).memories.categories, ['none yet']);
  });

  it('shows the journal and flush backlog', () => {
    assert.equal(line(model(), 'journal')!.text, '3 events to flush in 1 session · last flush 10m ago, 4 new');
    assert.equal(line(model({ journal: { pending_events: 0, segments: 0, bytes: 0 }, flush: { backlog_sessions: 0, last: null } }), 'journal')!.text, 'nothing waiting · no flush yet');
  });

  it('shows the model ready, downloading with progress, or lexical only', () => {
    assert.deepEqual(line(model(), 'model'), { label: 'model', text: 'ready · Xenova/all-MiniLM-L6-v2 · hybrid search', tone: 'ok' });
    const dl = line(model({ model: { id: 'Xenova/all-MiniLM-L6-v2', state: 'downloading', mode: 'text', backlog: 0, detail: { file: 'onnx/model.onnx', loaded: 9_000_000, total: 22_000_000, progress: 40.9 } } }), 'model')!;
    assert.equal(dl.progress, 0.409);
    assert.equal(dl.text, 'downloading Xenova/all-MiniLM-L6-v2 40% of 21 MB · lexical search meanwhile');
    const none = line(model({ model: { id: null, state: 'unavailable', mode: 'text', backlog: 0, detail: { reason: 'no embedding model configured' } } }), 'model')!;
    assert.equal(none.text, 'lexical only (full-text search) · no embedding model configured');
    assert.equal(none.tone, 'warn');
  });

  it('shows re-embedding progress against the largest backlog seen', () => {
    const e = line(model({ model: { id: 'm', state: 'ready', mode: 'hybrid', backlog: 30 } }, 120), 'embed')!;
    assert.equal(e.text, 're-embedding 90/120 · 30 waiting');
    assert.equal(e.progress, 0.75);
    const waiting = line(model({ model: { id: 'm', state: 'downloading', mode: 'text', backlog: 30, detail: { progress: 5 } } }), 'embed')!;
    assert.equal(waiting.progress, undefined, 'no progress while nothing embeds');
    assert.equal(line(model(), 'embed'), undefined, 'no line without a backlog');
  });

  it('shows running exports and imports as progress', () => {
    const m = model({ jobs: { exports: [{ export_id: 'e1', status: 'RUNNING', count: 250, total: 1000, started_at: ago(5) }], imports: [{ started_at: ago(2), total: 400, processed: 100 }] } });
    assert.deepEqual(line(m, 'export'), { label: 'export', text: '250/1,000 versions written', tone: 'accent', progress: 0.25 });
    assert.deepEqual(line(m, 'import'), { label: 'import', text: '100/400 versions', tone: 'accent', progress: 0.25 });
  });

  it('reads a status without jobs or sync (an older daemon) as none and off', () => {
    const raw = statusFixture();
    delete raw.jobs;
    const m = dashboardModel(readStatus(raw), NOW);
    assert.equal(line(m, 'export'), undefined);
    assert.equal(line(m, 'sync')!.text, 'off (local only)');
  });

  it('shows the last error with its age', () => {
    assert.deepEqual(line(model({ last_error: { at: ago(120), message: 'flush failed: disk full' } }), 'error'), { label: 'error', text: '2m ago: flush failed: disk full', tone: 'error' });
  });

  it('lists recent captures newest first', () => {
    assert.deepEqual(model().recent, [
      { age: '20s ago', session: 'a1b2c3d4', event: 'PostToolUse', summary: 'Bash' },
      { age: '5m ago', session: 'a1b2c3d4', event: 'UserPromptSubmit', summary: 'move the checkout to Stripe' },
    ]);
  });

  it('is equal for two polls that would look the same', () => {
    assert.equal(JSON.stringify(model()), JSON.stringify(model()));
    assert.notEqual(JSON.stringify(model()), JSON.stringify(model({ journal: { pending_events: 4, segments: 1, bytes: 2048 } })));
  });
});

describe('sync line', () => {
  it('is off when the daemon has no sync section, or sync is disabled', () => {
    assert.equal(syncLine(undefined, NOW).state, 'off');
    assert.equal(syncLine(null, NOW).state, 'off');
    assert.equal(syncLine({ enabled: false, state: 'off', reason: 'SERVICE_BASE_URL is not set' }, NOW).text, 'off (local only)');
  });

  it('is in sync, with the server and the last sync', () => {
    assert.deepEqual(syncLine({ enabled: true, state: 'idle', server: 'https://mem.acme.dev', backlog: { versions: 0, purges: 0 }, parked: { versions: 0 }, last_ok_at: ago(120) }, NOW), {
      state: 'in sync',
      text: 'in sync with mem.acme.dev · last sync 2m ago',
      tone: 'ok',
    });
  });

  it('shows a backlog waiting to be pushed, and parked versions', () => {
    const l = syncLine({ enabled: true, state: 'idle', backlog: { versions: 12, purges: 2 }, parked: { versions: 1 }, last_ok_at: ago(3600) }, NOW);
    assert.equal(l.state, 'backlog');
    assert.equal(l.text, 'backlog · 14 waiting · 1 parked · last sync 1h ago');
  });

  it('shows why it is retrying or stopped', () => {
    assert.deepEqual(syncLine({ enabled: true, state: 'blocked', backlog: { versions: 3, purges: 0 }, last_error: { at: ago(60), message: 'the server refused the key (401)' } }, NOW), {
      state: 'error',
      text: 'stopped: the server refused the key (401) · 3 waiting',
      tone: 'error',
    });
    assert.equal(syncLine({ enabled: true, state: 'backoff', reachable: false, backlog: { versions: 2, purges: 0 } }, NOW).text, 'offline, will retry · 2 waiting');
    assert.equal(syncLine({ enabled: true, state: 'backoff', reachable: true, last_error: { at: ago(5), message: 'server answered 500' } }, NOW).text, 'error: server answered 500, will retry');
  });
});
