import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { currentRows, deriveHistory, FakeEmbedder, InMemoryStore, ManualClock, MemoryEngine, rowsAsOf, type VersionRow } from '../../engine/index.js';
import { planChange, planCorrection, planDelete } from '../../engine/bitemporal.js';
import { row } from '../helpers/rows.js';

const d = (s: string): number => Date.parse(`${s}T00:00:00Z`);

describe('the Adidas/Hoka acceptance case (DESIGN §3)', () => {
  it('answers every (valid_at, known_at) combination and keeps 3 versions', async () => {
    const clock = new ManualClock(d('2026-03-01'));
    const engine = new MemoryEngine({ store: new InMemoryStore(), embedder: new FakeEmbedder(32), clock, background: false });
    await engine.open();
    const [m] = await engine.add({ content: 'I love Adidas', user_id: 'u1', space: 'personal', category: 'preference' });
    clock.set(d('2026-05-04'));
    await engine.update(m!.memory_id, { content: 'switched to Hoka', valid_from: d('2026-05-04') });
    clock.set(d('2026-11-20'));
    const now = clock.now();
    const at = async (valid: number, known: number): Promise<string> => (await engine.get(m!.memory_id, { valid_at: valid, known_at: known })).content;
    assert.equal((await engine.get(m!.memory_id)).content, 'switched to Hoka', '(now, now)');
    assert.equal(await at(now, now), 'switched to Hoka');
    assert.equal(await at(d('2026-04-01'), now), 'I love Adidas', '(2026-04-01, now)');
    assert.equal(await at(d('2026-04-01'), d('2026-04-15')), 'I love Adidas', '(2026-04-01, 2026-04-15)');
    assert.equal(await at(now, d('2026-04-15')), 'I love Adidas', '(now, 2026-04-15)');
    const history = await engine.history(m!.memory_id);
    assert.equal(history.length, 3);
    assert.deepEqual(
      history.map((v) => [v.content, v.superseded_at === null]),
      [
        ['I love Adidas', false],
        ['I love Adidas', true],
        ['switched to Hoka', true],
      ],
    );
    const search = async (valid_at: number, known_at: number): Promise<string[]> =>
      (await engine.search({ query: 'Adidas Hoka', user_id: 'u1', scope: 'user', valid_at, known_at })).results.map((r) => r.row.content);
    assert.deepEqual(await search(now, now), ['switched to Hoka']);
    assert.deepEqual(await search(d('2026-04-01'), now), ['I love Adidas']);
    assert.deepEqual(await search(d('2026-04-01'), d('2026-04-15')), ['I love Adidas']);
    assert.deepEqual(await search(now, d('2026-04-15')), ['I love Adidas']);
    await engine.close();
  });
});

describe('bitemporal rules', () => {
  const base = (over: Partial<VersionRow> = {}): VersionRow => ({ ...row({ recorded_at: d('2026-01-01'), valid_from: d('2026-01-01'), ...over }), seq: 1 });
  const ids = (): (() => string) => {
    let n = 0;
    return () => `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}`;
  };

  it('a correction replaces the content for all valid time but remembers the old belief', () => {
    const v1 = base({ content: 'port 5433' });
    const rows = planCorrection([v1], { ...v1, content: 'port 5434' }, { newId: ids(), now: d('2026-02-01'), lastVersion: 1 });
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.valid_from, v1.valid_from);
    const all = [v1, { ...rows[0]!, seq: 2 }];
    assert.deepEqual(
      rowsAsOf(all, { valid_at: d('2026-01-15'), known_at: d('2026-03-01') }).map((r) => r.content),
      ['port 5434'],
    );
    assert.deepEqual(
      rowsAsOf(all, { valid_at: d('2026-01-15'), known_at: d('2026-01-20') }).map((r) => r.content),
      ['port 5433'],
    );
  });

  it('a change clips the facts that straddle it and drops those after it', () => {
    const v1 = base({ content: 'A', valid_from: d('2026-01-01') });
    const later = planChange([v1], { ...v1, content: 'C' }, { newId: ids(), now: d('2026-03-01'), lastVersion: 1, validFrom: d('2026-03-01') });
    const tx2 = later.map((r, i) => ({ ...r, seq: i + 2 }));
    // Now a change back-dated before C's start: C is wholly replaced, A is clipped.
    const back = planChange(tx2, { ...v1, content: 'B' }, { newId: ids(), now: d('2026-04-01'), lastVersion: 3, validFrom: d('2026-02-01') });
    assert.deepEqual(
      back.map((r) => [r.content, r.valid_from, r.valid_to]),
      [
        ['A', d('2026-01-01'), d('2026-02-01')],
        ['B', d('2026-02-01'), null],
      ],
    );
    assert.ok(back.every((r) => r.tx === 4));
  });

  it('a tombstone hides the memory from current reads and later as-of reads only', () => {
    const v1 = base({ content: 'temp' });
    const t = planDelete([v1], { newId: ids(), now: d('2026-02-01'), lastVersion: 1, contentHash: 'x' });
    const all = [v1, { ...t[0]!, seq: 2 }];
    assert.deepEqual(currentRows(all), []);
    assert.equal(rowsAsOf(all, { valid_at: d('2026-01-10'), known_at: d('2026-01-20') }).length, 1);
    assert.equal(rowsAsOf(all, { valid_at: d('2026-01-10'), known_at: d('2026-02-02') }).length, 0);
    assert.deepEqual(
      deriveHistory(all).map((v) => v.event),
      ['ADD', 'DELETE'],
    );
  });
});
