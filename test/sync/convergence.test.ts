/**
 * Convergence under random interleavings: three in-process machines make random writes (adds,
 * corrections, changes in the world, tombstones, purges) and sync at random moments, so edits of
 * one memory race in every order. After a final full sync every machine and the server hold the
 * same history, every write is in it exactly once, and purged memories are gone everywhere.
 * Seeded, so a failure replays.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { EngineError, transactions, type VersionRow } from '../../engine/index.js';
import { seeded } from '../helpers/fault-proxy.js';
import { assertNoDuplicates, engineHistory, serverHistory } from '../helpers/histories.js';
import { startMachine, syncAll, type Machine } from '../helpers/machines.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const STEPS = 160;
let s: TestServer;
const machines: Machine[] = [];

before(async () => {
  s = await startTestServer({ embedder: null });
  for (let i = 0; i < 3; i++) machines.push(await startMachine({ url: s.url, key: s.key }));
});
after(async () => {
  for (const m of machines) await m.close();
  await s.close();
});

for (const seed of [1]) {
  it(`converges after ${STEPS} random writes and syncs on three machines (seed ${seed})`, async () => {
    const random = seeded(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const writes = new Map<string, number>(); // transactions written per memory
    const purged = new Set<string>();
    const wrote = (id: string): void => void writes.set(id, (writes.get(id) ?? 0) + 1);
    const known = async (m: Machine): Promise<string[]> => [...new Set((await m.engine.store.changes(0, 1_000_000)).map((r) => r.memory_id))].filter((id) => writes.has(id));
    const tolerate = async (p: Promise<unknown>): Promise<boolean> =>
      p.then(
        () => true,
        (e: unknown) => {
          if (e instanceof EngineError && e.code === 'NOT_FOUND') return false; // deleted or purged here meanwhile
          throw e;
        },
      );
    for (let step = 0; step < STEPS; step++) {
      const m = pick(machines);
      const x = random();
      const ids = await known(m);
      if (x < 0.2 || ids.length === 0) {
        const [r] = await m.engine.add({ content: `seed ${seed} step ${step}: a new decision`, user_id: 'dev' });
        wrote(r!.memory_id);
      } else if (x < 0.45) {
        const id = pick(ids);
        if (await tolerate(m.engine.update(id, { content: `seed ${seed} step ${step}: corrected` }))) wrote(id);
      } else if (x < 0.55) {
        const id = pick(ids);
        if (await tolerate(m.engine.update(id, { content: `seed ${seed} step ${step}: changed in the world`, valid_from: Date.now() - Math.floor(random() * 5000) }))) wrote(id);
      } else if (x < 0.62) {
        const id = pick(ids);
        if (await tolerate(m.engine.delete(id))) wrote(id);
      } else if (x < 0.64) {
        const id = pick(ids);
        await m.engine.purge([id]);
        purged.add(id);
      } else if (x < 0.85) {
        const r = await m.sync.now();
        assert.ok(r.ok, r.error?.message);
      } else {
        const r = await m.sync.now({ pull: false });
        assert.ok(r.ok, r.error?.message);
      }
    }
    await syncAll(machines, 3);

    const histories = await Promise.all(machines.map((m) => engineHistory(m.engine)));
    const server = await serverHistory(s.url, s.key);
    const mine = (h: string[]): string[] => h.filter((l) => writes.has(JSON.parse(l).memory_id));
    for (const h of histories) assert.deepEqual(mine(h), mine(server), 'every machine holds the server’s history');
    assertNoDuplicates(server, 'server');
    const byMemory = new Map<string, VersionRow[]>();
    for (const l of mine(server)) {
      const r = JSON.parse(l) as VersionRow;
      byMemory.set(r.memory_id, [...(byMemory.get(r.memory_id) ?? []), r]);
    }
    for (const [id, n] of writes) {
      if (purged.has(id)) {
        assert.equal(byMemory.has(id), false, `purged memory ${id} is gone everywhere`);
        continue;
      }
      const rows = byMemory.get(id) ?? [];
      assert.equal(transactions(rows).length, n, `memory ${id}: ${n} writes, each exactly once in history`);
      assert.deepEqual(
        rows.map((r) => r.version),
        rows.map((_, i) => i + 1),
        `memory ${id} is numbered 1…n`,
      );
      for (let i = 1; i < rows.length; i++) assert.ok(rows[i]!.recorded_at >= rows[i - 1]!.recorded_at, `memory ${id}: transaction time never goes back`);
    }
    for (const m of machines) {
      const current = await Promise.all([...byMemory.keys()].map((id) => m.engine.get(id).then((r) => r.version_id, () => null)));
      const other = await Promise.all([...byMemory.keys()].map((id) => machines[0]!.engine.get(id).then((r) => r.version_id, () => null)));
      assert.deepEqual(current, other, 'the same current state everywhere');
    }
  });
}
