import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConcurrencyGate } from '../../engine/concurrency-gate.js';
import { LanceStore, ResidentBudget } from '../../engine/index.js';
import { tempDir } from '../helpers/tmp.js';
import { row } from '../helpers/rows.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('ConcurrencyGate', () => {
  it('runs at most `limit` tasks at once, the rest in arrival order, and a failed task frees its slot', async () => {
    const gate = new ConcurrencyGate(2);
    const started: number[] = [];
    const finish = new Map<number, () => void>();
    let running = 0;
    let most = 0;
    const task = (i: number, fail = false) =>
      gate.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => finish.set(i, r));
        running--;
        if (fail) throw new Error(`task ${i} failed`);
        return i;
      });
    const results = [task(0), task(1, true), task(2), task(3), task(4)].map((p) => p.then((v) => ({ ok: v }), (e: Error) => ({ err: e.message })));
    await tick();
    assert.deepEqual(started, [0, 1], 'two run, three wait');
    assert.equal(gate.queued, 3);
    finish.get(1)!();
    await tick();
    await tick();
    assert.deepEqual(started, [0, 1, 2], 'the failed task freed its slot for the next in line');
    // A newcomer arriving now waits behind those already queued.
    const late = task(5).then((v) => ({ ok: v }));
    finish.get(0)!();
    await tick();
    await tick();
    assert.deepEqual(started, [0, 1, 2, 3]);
    for (const i of [2, 3, 4, 5]) {
      for (let k = 0; k < 5 && !finish.has(i); k++) await tick();
      finish.get(i)!();
    }
    assert.deepEqual(await Promise.all([...results, late]), [{ ok: 0 }, { err: 'task 1 failed' }, { ok: 2 }, { ok: 3 }, { ok: 4 }, { ok: 5 }]);
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
    assert.equal(most, 2);
    assert.equal(gate.peak, 2);
    assert.equal(gate.queued, 0);
  });

  it('drops a waiting task whose signal aborts (it never runs and its place goes to the next), and refuses one aborted already', async () => {
    const gate = new ConcurrencyGate(1);
    const ran: string[] = [];
    let release!: () => void;
    const first = gate.run(async () => {
      ran.push('first');
      await new Promise<void>((r) => (release = r));
    });
    const gone = new AbortController();
    const dropped = gate.run(async () => void ran.push('dropped'), gone.signal);
    const next = gate.run(async () => void ran.push('next'));
    await tick();
    assert.equal(gate.queued, 2);
    gone.abort();
    await assert.rejects(dropped, (err: Error & { code?: string }) => err.code === 'CANCELLED');
    assert.equal(gate.queued, 1, 'the aborted task left the queue at once');
    release();
    await first;
    await next;
    assert.deepEqual(ran, ['first', 'next']);
    await assert.rejects(
      gate.run(async () => void ran.push('late'), AbortSignal.abort()),
      (err: Error & { code?: string }) => err.code === 'CANCELLED',
    );
    assert.deepEqual(ran, ['first', 'next']);
    // A signal that aborts once its task runs changes nothing (the task decides).
    const during = new AbortController();
    assert.equal(await gate.run(async () => (during.abort(), 'done'), during.signal), 'done');
  });

  it('passes the slot on when a task aborts just as its turn comes, and lets the event loop turn between tasks', async () => {
    const gate = new ConcurrencyGate(1);
    let release!: () => void;
    const first = gate.run(() => new Promise<void>((r) => (release = r)));
    const gone = new AbortController();
    const late = gate.run(async () => 'ran', gone.signal);
    const third = gate.run(async () => 'third');
    await tick();
    release();
    await first;
    gone.abort(); // the slot is on its way to `late`
    await assert.rejects(late, (err: Error & { code?: string }) => err.code === 'CANCELLED');
    assert.equal(await third, 'third', 'the slot was not lost');
    // Tasks that never wait (all their work in promise callbacks) still let timers and I/O in.
    const order: string[] = [];
    const timer = new Promise<void>((r) => setTimeout(() => (order.push('timer'), r()), 0));
    const busy = (ms: number): void => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    await Promise.all(Array.from({ length: 50 }, (_, i) => gate.run(async () => (busy(2), void order.push(`task ${i}`)))));
    await timer;
    assert.ok(order.indexOf('timer') < order.indexOf('task 49'), 'a timer ran before the last task');
  });

  it('refuses a limit below 1', () => {
    assert.throws(() => new ConcurrencyGate(0), /at least 1/);
  });

  it('LanceStore answers many concurrent searches correctly with at most its limit running', async () => {
    const store = new LanceStore({ dir: path.join(tempDir('gate-store-'), 'db'), dim: 8, maxConcurrentSearches: 2, residentBudget: new ResidentBudget(0) });
    await store.open();
    try {
      const rows = Array.from({ length: 20 }, (_, i) => row({ content: `gate probe heron ${i} word${i}` }));
      await store.append(rows);
      const now = Date.now() + 1000;
      const hits = await Promise.all(rows.map((_, i) => store.search({ text: `word${i}`, vector: null, model: null, filter: {}, validAt: now, limit: 3 })));
      hits.forEach((h, i) => assert.equal(h[0]?.row.content, `gate probe heron ${i} word${i}`, `search ${i} found its own row`));
      assert.equal(store.searches.peak, 2, 'two at a time, never more');
    } finally {
      await store.close();
    }
  });
});
