import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dashboardLayout, detailLayout, frameSize, searchResultSlots, windowStart } from '../../tui/layout.js';

describe('layout', () => {
  it('leaves the terminal’s last row free, so Ink redraws in place', () => {
    assert.deepEqual(frameSize({ columns: 80, rows: 24 }), { width: 80, height: 23 });
  });

  it('divides 80×24 into panels that add up to the frame', () => {
    const l = dashboardLayout({ columns: 80, rows: 24 }, { sessionRows: 3, pipelineLines: 3 });
    assert.deepEqual(l, { leftWidth: 36, rightWidth: 44, topLines: 4, pipelineLines: 3, feedLines: 7 });
    // header + message + help, and each panel's content plus its two border rows.
    assert.equal(3 + (l.topLines + 2) + (l.pipelineLines + 2) + (l.feedLines + 2), 23);
  });

  it('gives more sessions and feed rows to a taller terminal', () => {
    const l = dashboardLayout({ columns: 120, rows: 50 }, { sessionRows: 9, pipelineLines: 4 });
    assert.equal(l.topLines, 9);
    assert.equal(3 + (l.topLines + 2) + (l.pipelineLines + 2) + (l.feedLines + 2), 49);
  });

  it('drops the feed, then pipeline rows, before overflowing a short terminal', () => {
    const l = dashboardLayout({ columns: 80, rows: 18 }, { sessionRows: 2, pipelineLines: 7 });
    assert.equal(l.feedLines, 0);
    assert.ok(3 + (l.topLines + 2) + (l.pipelineLines + 2) <= 17);
  });

  it('shows eight search results at 80×24', () => {
    assert.equal(searchResultSlots({ columns: 80, rows: 24 }), 8);
  });

  it('keeps three history rows (room for the confirmation) under a long memory', () => {
    const l = detailLayout({ columns: 80, rows: 24 }, 40, 5);
    assert.ok(l.historyLines >= 3);
    assert.equal(3 + (l.contentLines + 5 + 2) + (l.historyLines + 2), 23);
  });

  it('scrolls a window so the selection stays in view', () => {
    assert.equal(windowStart(0, 20, 5), 0);
    assert.equal(windowStart(10, 20, 5), 8);
    assert.equal(windowStart(19, 20, 5), 15);
    assert.equal(windowStart(3, 4, 5), 0);
  });
});
