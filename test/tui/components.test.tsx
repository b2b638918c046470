/**
 * The dashboard rendered into fake streams (ink-testing-library), asserted on its frames: the
 * status panels, search results, the forget confirmation and the daemon-down screen, at 80×24.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../tui/app.js';
import { ConfirmDialog } from '../../tui/confirm-dialog.js';
import { DaemonDownScreen } from '../../tui/daemon-down-screen.js';
import { dashboardModel } from '../../tui/dashboard-model.js';
import { DashboardScreen } from '../../tui/dashboard-screen.js';
import { helpItems, KEY_REFERENCE } from '../../tui/help.js';
import { createDashboardState, type DashboardState } from '../../tui/dashboard-state.js';
import { SearchResults } from '../../tui/search-screen.js';
import { resultRow } from '../../tui/search-model.js';
import { readStatus } from '../../tui/status-shape.js';
import { FakeClient } from './fake-client.js';
import { hit, NOW, statusFixture } from './fixtures.js';
import { assertFits, lines, waitFor } from './ink.js';

const SMALL = { columns: 80, rows: 24 };
const ESC = '\u001b';

let states: DashboardState[] = [];
afterEach(() => {
  cleanup();
  for (const s of states) s.dispose();
  states = [];
});

function app(client: FakeClient, opts: { startDaemon?: () => Promise<unknown>; size?: { columns: number; rows: number } } = {}) {
  const state = createDashboardState({ client, cwd: '/work/shop', pollMs: 40, debounceMs: 60, clock: () => NOW, ...(opts.startDaemon ? { startDaemon: opts.startDaemon } : {}) });
  states.push(state);
  const r = render(<App state={state} size={opts.size ?? SMALL} />);
  const has = (text: string) => (r.lastFrame() ?? '').includes(text);
  const until = (text: string) => waitFor(() => has(text), r.lastFrame, `"${text}"`);
  const type = async (...keys: string[]) => {
    for (const k of keys) {
      r.stdin.write(k);
      await new Promise((res) => setTimeout(res, 15));
    }
  };
  return { ...r, has, until, type, state };
}

describe('status panels', () => {
  it('show health, capture per session, counts, backlog, model, sync and recent captures at 80×24', () => {
    const model = dashboardModel(readStatus(statusFixture()), NOW);
    const { lastFrame } = render(<DashboardScreen model={model} selected={1} size={SMALL} />);
    const f = lastFrame()!;
    for (const text of ['Capture', 'all sessions', '› a1b2c3d4 acme/shop', 'b2c3d4e5 acme/api', 'paused', 'Memories 12', 'repo 8 · dir 2 · user 4 · session -', 'project 8 · personal 4', 'decision 3 · note 3', 'journal', '3 events to flush in 1 session', 'ready · Xenova/all-MiniLM-L6-v2 · hybrid search', 'off (local only)', 'Recent captures', 'PostToolUse', 'move the checkout to Stripe']) {
      assert.ok(f.includes(text), `frame shows "${text}":\n${f}`);
    }
    assertFits(f, 80, 24 + 3);
  });

  it('draw progress bars for a model download, re-embedding, an export and an import', () => {
    const model = dashboardModel(
      readStatus(
        statusFixture({
          model: { id: 'Xenova/all-MiniLM-L6-v2', state: 'downloading', mode: 'text', backlog: 50, detail: { progress: 50 } },
          jobs: { exports: [{ export_id: 'e', status: 'RUNNING', count: 10, total: 40, started_at: null }], imports: [{ started_at: '2026-05-04T11:59:00Z', total: 8, processed: 8 }] },
        }),
      ),
      NOW,
    );
    const f = render(<DashboardScreen model={model} selected={0} size={{ columns: 100, rows: 30 }} />).lastFrame()!;
    assert.match(f, /model {4}█+░+ downloading Xenova\/all-MiniLM-L6-v2 50%/);
    assert.match(f, /export {3}█+░+ 10\/40 versions written/);
    assert.match(f, /import {3}█+ 8\/8 versions/);
    assert.match(f, /embed {4}50 memories wait for the model/);
  });

  it('fit the terminal exactly at 80×24 and grow with larger terminals', async () => {
    const small = app(new FakeClient());
    await small.until('Recent captures');
    assertFits(small.lastFrame(), 80, 24);
    assert.equal(lines(small.lastFrame()).length, 23, 'the frame fills all but the last row');
    cleanup();
    const big = app(new FakeClient(), { size: { columns: 140, rows: 45 } });
    await big.until('Recent captures');
    assertFits(big.lastFrame(), 140, 45);
    assert.equal(lines(big.lastFrame()).length, 44);
    assert.ok(big.has('3 waiting · 30s ago'), 'a wide capture panel shows each session’s backlog and activity');
  });
});

describe('dashboard keys', () => {
  it('pauses the selected session with p and shows it paused', async () => {
    const client = new FakeClient();
    const a = app(client);
    await a.until('Recent captures');
    await a.type('j', 'p');
    await waitFor(() => client.callsOf('pause').length === 1, a.lastFrame, 'pause');
    assert.deepEqual(client.callsOf('pause'), [{ session_id: 'a1b2c3d4-0000-4000-8000-000000000001' }]);
    await a.until('capture paused for session a1b2c3d4');
    await a.type('a');
    await a.until('Capture · paused');
    assert.deepEqual(client.callsOf('pause')[1], { all: true });
  });
});

describe('search results', () => {
  it('render each hit with score, category, scope, age and content, the selection marked', () => {
    const rows = [hit('m1', 'Use PostgreSQL for the session store'), hit('m2', 'Prefer pnpm over npm', { category: 'preference', space: 'personal', repo: null, score: 0.41 })].map((h) => resultRow(h, NOW));
    const f = lines(render(<SearchResults rows={rows} selected={1} width={80} slots={8} />).lastFrame());
    assert.match(f[0]!, /^ {2}0\.82 {2}decision {3}project · acme\/shop +2h ago$/);
    assert.equal(f[1]!.trim(), 'Use PostgreSQL for the session store');
    assert.match(f[2]!, /^› 0\.41 {2}preference personal +2h ago$/);
  });

  it('appear as you type, open into details and history, and forget after confirming', async () => {
    const client = new FakeClient();
    client.memories = [hit('01a1fb41-8725-7000-9e1f-e7d06ed1fb7d', 'Use PostgreSQL for the session store because Redis lost data twice')];
    client.histories['01a1fb41-8725-7000-9e1f-e7d06ed1fb7d'] = [
      { ...client.memories[0]!, version: 1, event: 'ADD', recorded_at: '2026-05-01T09:00:00.000Z', superseded_at: '2026-05-02T09:00:00.000Z', content: 'Use MySQL for the session store' },
      { ...client.memories[0]!, version: 2, event: 'UPDATE', recorded_at: '2026-05-02T09:00:00.000Z', superseded_at: null },
    ];
    const a = app(client);
    await a.until('Recent captures');
    await a.type('/');
    // Two reads of the terminal with no pause between them: one search, after the debounce.
    a.stdin.write('postgres');
    a.stdin.write(' sess');
    await a.until('1 result · hybrid search · scope repo');
    assert.ok(a.has('Use PostgreSQL for the session store because Redis lost data twice'));
    assert.deepEqual(
      client.callsOf('localSearch').map((c) => (c as { query: string }).query),
      ['postgres sess'],
      'one search for what was typed, not one per key',
    );
    assertFits(a.lastFrame(), 80, 24);

    await a.type('\r');
    await a.until('History · 2 versions');
    assert.ok(a.has('decision · project · acme/shop · v1'));
    assert.match(a.lastFrame()!, /v1 +ADD +2026-05-01 09:00 +until 2026-05-02 09:00 +Use MySQL/);
    assert.match(a.lastFrame()!, /v2 +UPDATE 2026-05-02 09:00 +current/);
    assertFits(a.lastFrame(), 80, 24);

    await a.type('f');
    await a.until('Forget this memory?');
    assert.equal(client.callsOf('forget').length, 0, 'nothing forgotten before the answer');
    assertFits(a.lastFrame(), 80, 24);
    await a.type('y');
    await a.until('No matches in scope repo');
    assert.deepEqual(client.callsOf('forget'), ['01a1fb41-8725-7000-9e1f-e7d06ed1fb7d']);
    assert.ok(a.has('forgot "Use PostgreSQL'));
  });
});

describe('help screen', () => {
  it('opens with ?, lists every key of every screen within 80×24, and closes with esc', async () => {
    const a = app(new FakeClient());
    await a.until('Recent captures');
    assert.ok(a.has('? help'), 'the help bar offers it');
    await a.type('?');
    await a.until('Keys (esc or ? closes)');
    const f = a.lastFrame()!;
    for (const section of KEY_REFERENCE) {
      assert.ok(f.includes(section.title), `section ${section.title}:\n${f}`);
      for (const k of section.keys) assert.ok(f.includes(`${k.key}`) && f.includes(k.label), `${section.title}: ${k.key} ${k.label}\n${f}`);
    }
    // Every key a help bar names is on the help screen.
    for (const screen of ['dashboard', 'search', 'detail', 'recent'] as const) {
      for (const item of helpItems({ screen, connection: 'up', confirming: false, canStartDaemon: true })) {
        if (item.key === 'type') continue;
        for (const k of item.key.length > 1 ? item.key.split('/') : [item.key]) assert.ok(KEY_REFERENCE.some((s) => s.keys.some((x) => x.key.split(' ').includes(k) || x.key === k)), `${screen}: ${k}`);
      }
    }
    assertFits(f, 80, 24);
    await a.type(ESC);
    await a.until('Recent captures');
  });
});

describe('recent memories', () => {
  it('lists the newest memories first with r, opens one with enter, and goes back to the list with esc', async () => {
    const client = new FakeClient();
    client.memories = [
      hit('m-old', 'Older: the API uses REST, not GraphQL', { updated_at: '2026-04-01T09:00:00.000Z' }),
      hit('m-new', 'Newest: deploys go out on Tuesdays', { updated_at: '2026-05-01T09:00:00.000Z', category: 'convention' }),
    ];
    const a = app(client);
    await a.until('Recent captures');
    await a.type('r');
    await a.until('Recent memories · 2 newest first');
    const f = lines(a.lastFrame());
    const newest = f.findIndex((l) => l.includes('Newest: deploys'));
    const older = f.findIndex((l) => l.includes('Older: the API'));
    assert.ok(newest > 0 && older > newest, a.lastFrame()!);
    assert.ok(f[newest - 1]!.startsWith('›'), 'the newest is selected');
    assertFits(a.lastFrame(), 80, 24);
    await a.type('j', '\r');
    await a.until('History · 0 versions');
    assert.ok(a.has('Older: the API uses REST'));
    await a.type(ESC);
    await a.until('Recent memories · 2 newest first');
    await a.type(ESC);
    await a.until('Recent captures');
  });
});

describe('confirm dialog', () => {
  it('quotes the memory and names the keys that answer', () => {
    const f = lines(render(<ConfirmDialog content={'Deploy on Fridays\nis forbidden'} width={60} />).lastFrame());
    assert.match(f[0]!, /^╭─ Forget this memory\? ─+╮$/);
    assert.equal(f[1], '│ "Deploy on Fridays is forbidden"                         │');
    assert.match(f[3]!, /y forget it {3}n or esc keep it/);
    assert.match(f[4]!, /^╰─+╯$/);
    assertFits(f.join('\n'), 60, 10);
  });
});

describe('daemon-down screen', () => {
  it('says the daemon is down, how to start it, and that it reconnects', () => {
    const down = { reason: 'unreachable' as const, message: 'The memory daemon is not running.', socket: '/home/u/.service/daemon.sock', downFor: '12s', lastSeen: 'pid 4242, version 1.2.0', logFile: '/home/u/.service/logs/daemon.log', retryEvery: '1s', starting: false, startError: null };
    const f = render(<DaemonDownScreen down={down} width={80} canStart={true} />).lastFrame()!;
    for (const text of ['The memory daemon is down', 'The memory daemon is not running.', 'Nothing answers on /home/u/.service/daemon.sock.', 'Start it with: service daemon start', 'press s to start it from here', 'Reconnecting by itself (every 1s) · down for 12s', 'Last seen: pid 4242, version 1.2.0.', 'Its log: /home/u/.service/logs/daemon.log']) {
      assert.ok(f.includes(text), `shows "${text}":\n${f}`);
    }
    assertFits(f, 80, 24);
    const noStart = render(<DaemonDownScreen down={{ ...down, startError: 'the daemon failed to start (exit 1)' }} width={80} canStart={false} />).lastFrame()!;
    assert.ok(!noStart.includes('press s'));
    assert.ok(noStart.includes('Could not start it: the daemon failed to start (exit 1)'));
  });

  it('replaces the dashboard while the daemon is down and goes back by itself when it returns', async () => {
    const client = new FakeClient();
    const a = app(client);
    await a.until('Recent captures');
    client.down = true;
    await a.until('The memory daemon is down');
    assert.ok(a.has('memory daemon down'));
    assert.ok(a.has('s start daemon') === false, 'no start key without a way to start it');
    assertFits(a.lastFrame(), 80, 24);
    client.down = false;
    await a.until('reconnected to the daemon');
    assert.ok(a.has('Recent captures'));
  });

  it('starts the daemon with s', async () => {
    const client = new FakeClient();
    client.down = true;
    let starts = 0;
    const a = app(client, {
      startDaemon: async () => {
        starts++;
        if (starts > 1) client.down = false;
      },
    });
    await a.until('press s to start it from here');
    await a.until('s start daemon');
    assert.equal(starts, 1, 'one start by itself at first');
    await a.type('s');
    await a.until('Recent captures');
    assert.equal(starts, 2);
  });
});

describe('colour', () => {
  it('uses no escape codes in the frames of a non-terminal stream', () => {
    const model = dashboardModel(readStatus(statusFixture()), NOW);
    assert.ok(!render(<DashboardScreen model={model} selected={0} size={SMALL} />).lastFrame()!.includes(ESC));
  });
});
