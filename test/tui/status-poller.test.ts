import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DaemonApiError } from '../../daemon/client.js';
import { StatusPoller, type DashboardView } from '../../tui/status-poller.js';
import { FakeClient } from './fake-client.js';
import { NOW, statusFixture } from './fixtures.js';

function poller(client: FakeClient, extra: Partial<ConstructorParameters<typeof StatusPoller>[0]> = {}) {
  let now = NOW;
  const p = new StatusPoller({ client, cwd: '/work/shop', clock: () => now, intervalMs: 60_000, downIntervalMs: 60_000, ...extra });
  const views: DashboardView[] = [];
  p.subscribe((v) => views.push(v));
  return { p, views, tick: (ms: number) => (now += ms) };
}

describe('status poller', () => {
  it('starts as connecting, then shows the dashboard model, asking from the working directory', async () => {
    const client = new FakeClient();
    const { p, views } = poller(client);
    assert.equal(p.view().kind, 'connecting');
    await p.refresh();
    assert.equal(views.length, 1);
    assert.equal(views[0]!.kind, 'up');
    assert.deepEqual(client.callsOf('status'), [{ cwd: '/work/shop' }]);
    p.stop();
  });

  it('tells listeners nothing when nothing on screen changed', async () => {
    const client = new FakeClient();
    const { p, views } = poller(client);
    await p.refresh();
    await p.refresh();
    await p.refresh();
    assert.equal(views.length, 1, 'three identical polls, one render');
    (client.status_.journal as { pending_events: number }).pending_events = 9;
    await p.refresh();
    assert.equal(views.length, 2);
    p.stop();
  });

  it('says the daemon is down, how long for, and that it retries, then reconnects by itself', async () => {
    const client = new FakeClient();
    const { p, views, tick } = poller(client);
    await p.refresh();
    client.down = true;
    await p.refresh();
    const down = p.view();
    assert.equal(down.kind, 'down');
    if (down.kind !== 'down') return;
    assert.equal(down.down.reason, 'unreachable');
    assert.equal(down.down.message, 'The memory daemon is not running.');
    assert.equal(down.down.lastSeen, 'pid 4242, version 1.2.0');
    assert.equal(down.down.logFile, '/home/u/.service/logs/daemon.log');
    tick(5000);
    await p.refresh();
    const later = p.view();
    assert.equal(later.kind === 'down' && later.down.downFor, '5s');
    client.down = false;
    await p.refresh();
    const back = p.view();
    assert.equal(back.kind, 'up');
    assert.equal(back.kind === 'up' && back.notice, 'reconnected to the daemon');
    assert.ok(views.length >= 3);
    p.stop();
  });

  it('notices a restarted daemon (a new pid), and drops the notice after a while', async () => {
    const client = new FakeClient();
    const { p, tick } = poller(client);
    await p.refresh();
    client.status_ = statusFixture({ daemon: { pid: 5151, version: '1.2.1', uptime_s: 1, started_at: new Date(NOW).toISOString(), socket: 's', home: 'h' } });
    await p.refresh();
    const v = p.view();
    assert.equal(v.kind === 'up' && v.notice, 'daemon restarted (pid 4242 → 5151)');
    tick(11_000);
    await p.refresh();
    const later = p.view();
    assert.equal(later.kind === 'up' && later.notice, null);
    p.stop();
  });

  it('reports a daemon that answers with an error apart from one that is not there', async () => {
    const client = new FakeClient();
    client.status = async () => {
      throw new DaemonApiError(500, 'INTERNAL', 'store is closed');
    };
    const { p } = poller(client);
    await p.refresh();
    const v = p.view();
    assert.equal(v.kind === 'down' && v.down.reason, 'error');
    assert.equal(v.kind === 'down' && v.down.message, 'The daemon answered with an error: store is closed');
    p.stop();
  });

  it('starts the daemon once by itself when nothing answers at first', async () => {
    const client = new FakeClient();
    client.down = true;
    let starts = 0;
    let finish: () => void = () => {};
    const { p } = poller(client, {
      startDaemon: async () => {
        starts++;
        await new Promise<void>((r) => (finish = r));
        client.down = false;
      },
    });
    await p.refresh();
    assert.deepEqual(p.view(), { kind: 'connecting', socket: client.socketPath, starting: true }, 'a first start is not shown as a failure');
    finish();
    await new Promise((r) => setImmediate(r));
    await p.refresh();
    assert.equal(starts, 1);
    assert.equal(p.view().kind, 'up');
    client.down = true;
    await p.refresh();
    assert.equal(starts, 1, 'a daemon that stops later is not restarted behind the user’s back');
    assert.equal(p.view().kind, 'down');
    p.stop();
  });

  it('shows why starting the daemon failed', async () => {
    const client = new FakeClient();
    client.down = true;
    const { p } = poller(client, {
      autoStart: false,
      startDaemon: async () => {
        throw new Error('the daemon failed to start (exit 1); see daemon.out');
      },
    });
    await p.refresh();
    await p.startDaemon();
    const v = p.view();
    assert.equal(v.kind === 'down' && v.down.startError, 'the daemon failed to start (exit 1); see daemon.out');
    assert.equal(v.kind === 'down' && v.down.starting, false);
    p.stop();
  });

  it('polls once more when asked while a poll is under way (its answer may predate an action)', async () => {
    const client = new FakeClient();
    const { p } = poller(client);
    p.start();
    const refreshed = p.refresh();
    await refreshed;
    assert.equal(client.callsOf('status').length, 2, 'the poll under way, then one more');
    p.stop();
  });

  it('polls on its own interval until stopped', async () => {
    const client = new FakeClient();
    const { p } = poller(client, { intervalMs: 10 });
    p.start();
    const deadline = Date.now() + 5000;
    while (client.callsOf('status').length < 3) {
      assert.ok(Date.now() < deadline, 'polled again by itself');
      await new Promise((r) => setTimeout(r, 5));
    }
    p.stop();
    const n = client.callsOf('status').length;
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(client.callsOf('status').length, n, 'no poll after stop');
  });
});
