import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detailModel } from '../../tui/detail-model.js';
import { hit, NOW } from './fixtures.js';

describe('memory details', () => {
  it('show where a memory holds, when it was recorded and its versions', () => {
    const m = hit('01a1fb41-8725-7000-9e1f-e7d06ed1fb7d', 'Use PostgreSQL', { dir: 'src/api', version: 2, source: { kind: 'capture', session_id: 'a1b2c3d4-0000', tool: 'Bash' } });
    const d = detailModel(
      m,
      [
        { ...m, version: 1, event: 'ADD', recorded_at: '2026-05-01T09:00:00.000Z', superseded_at: '2026-05-02T09:30:00.000Z', content: 'Use MySQL' },
        { ...m, version: 2, event: 'UPDATE', recorded_at: '2026-05-02T09:30:00.000Z', superseded_at: '2026-05-03T10:00:00.000Z' },
        { ...m, version: 3, event: 'DELETE', recorded_at: '2026-05-03T10:00:00.000Z', superseded_at: null, deleted: true },
      ],
      NOW,
    );
    assert.equal(d.title, 'decision · project · acme/shop · v2');
    assert.deepEqual(
      d.fields.map((f) => `${f.label}: ${f.value}`),
      [
        'id: 01a1fb41-8725-7000-9e1f-e7d06ed1fb7d',
        'where: github.com/acme/shop · src/api',
        'recorded: 2026-05-04 10:00 (2h ago) · created 2026-05-04 10:00',
        'valid: 2026-05-04 10:00 → open',
        'source: capture · session a1b2c3d4 · tool Bash',
      ],
    );
    assert.deepEqual(d.history, [
      { version: 'v1', event: 'ADD', when: '2026-05-01 09:00', state: 'until 2026-05-02 09:30', content: 'Use MySQL' },
      { version: 'v2', event: 'UPDATE', when: '2026-05-02 09:30', state: 'until 2026-05-03 10:00', content: 'Use PostgreSQL' },
      { version: 'v3', event: 'DELETE', when: '2026-05-03 10:00', state: 'current', content: '(forgotten)' },
    ]);
  });

  it('says a personal memory holds in every repository', () => {
    const d = detailModel(hit('m', 'Prefer tabs', { space: 'personal', repo: null, dir: null }), [], NOW);
    assert.equal(d.fields[1]!.value, 'every repository');
  });
});
