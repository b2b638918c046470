import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helpItems } from '../../tui/help.js';
import { handleKey, INITIAL_NAV, keystrokes, type KeyContext, type KeyPress, type NavState } from '../../tui/navigation.js';

const ctx: KeyContext = {
  connection: 'up',
  sessions: [
    { sessionId: null, ownPause: false },
    { sessionId: 's1', ownPause: false },
    { sessionId: 's2', ownPause: true },
  ],
  globalPaused: false,
  resultIds: ['m1', 'm2', 'm3'],
  recentIds: ['r1', 'r2'],
  searchedScope: 'repo',
  historyLength: 2,
  canStartDaemon: true,
};

/** Press keys in order: strings are typed text, objects are special keys. */
function press(keys: (string | KeyPress)[], start: NavState = INITIAL_NAV, c: KeyContext = ctx) {
  let state = start;
  const effects = [];
  for (const k of keys) {
    const r = typeof k === 'string' ? handleKey(state, k, {}, c) : handleKey(state, '', k, c);
    state = r.state;
    if (r.effect) effects.push(r.effect);
  }
  return { state, effects };
}

describe('keys on the dashboard', () => {
  it('pauses and resumes everything from the "all sessions" row, or with a', () => {
    assert.deepEqual(press(['p']).effects, [{ type: 'pause', target: { all: true } }]);
    assert.deepEqual(press(['a']).effects, [{ type: 'pause', target: { all: true } }]);
    assert.deepEqual(press(['p'], INITIAL_NAV, { ...ctx, globalPaused: true }).effects, [{ type: 'resume', target: { all: true } }]);
  });

  it('pauses or resumes the selected session', () => {
    assert.deepEqual(press([{ downArrow: true }, 'p']).effects, [{ type: 'pause', target: { session_id: 's1' } }]);
    assert.deepEqual(press(['j', 'j', 'p']).effects, [{ type: 'resume', target: { session_id: 's2' } }]);
  });

  it('keeps the selection inside the list', () => {
    assert.equal(press([{ downArrow: true }, { downArrow: true }, { downArrow: true }, { downArrow: true }]).state.sessionIndex, 2);
    assert.equal(press([{ upArrow: true }, 'k']).state.sessionIndex, 0);
  });

  it('explains instead of pausing one session while all are paused', () => {
    const r = press(['j', 'p'], INITIAL_NAV, { ...ctx, globalPaused: true });
    assert.equal(r.effects[0]!.type, 'notice');
  });

  it('opens search with / and quits with q', () => {
    assert.equal(press(['/']).state.screen, 'search');
    assert.deepEqual(press(['q']).effects, [{ type: 'quit' }]);
  });
});

describe('keys while searching', () => {
  const searching: NavState = { ...INITIAL_NAV, screen: 'search' };

  it('types into the query (q and p included), deletes, and clears', () => {
    assert.equal(press(['p', 'o', 's', 't', 'q'], searching).state.query, 'postq');
    assert.equal(press(['pasted text'], searching).state.query, 'pasted text');
    assert.equal(press(['abc', { backspace: true }], searching).state.query, 'ab');
    assert.equal(press(['abc', { delete: true }], searching).state.query, 'ab', 'the Backspace key of most terminals arrives as delete');
    assert.equal(press(['abc', { ctrl: true } as KeyPress], searching).state.query, 'abc');
    assert.equal(handleKey({ ...searching, query: 'abc' }, 'u', { ctrl: true }, ctx).state.query, '');
    assert.deepEqual(press(['x'], searching).effects, [], 'typing never quits or pauses');
  });

  it('moves through results and opens the selected one', () => {
    const r = press([{ downArrow: true }, { downArrow: true }, { downArrow: true }, { upArrow: true }, { return: true }], searching);
    assert.equal(r.state.screen, 'detail');
    assert.equal(r.state.detailId, 'm2');
    assert.equal(press([{ return: true }], searching, { ...ctx, resultIds: [] }).state.screen, 'search', 'enter without results stays');
  });

  it('cycles the scope with tab, starting after the one searched', () => {
    assert.equal(press([{ tab: true }], searching).state.scope, 'dir');
    assert.equal(press([{ tab: true }, { tab: true }, { tab: true }, { tab: true }], searching).state.scope, 'repo');
  });

  it('goes back to the dashboard with esc, keeping the query', () => {
    const r = press(['abc', { escape: true }], searching);
    assert.equal(r.state.screen, 'dashboard');
    assert.equal(r.state.query, 'abc');
  });
});

describe('keys on a memory', () => {
  const open: NavState = { ...INITIAL_NAV, screen: 'detail', detailId: 'm2' };

  it('forgets only after y in the confirmation', () => {
    const asked = press(['f'], open);
    assert.equal(asked.state.confirmForget, true);
    assert.deepEqual(asked.effects, []);
    assert.deepEqual(press(['f', 'x', 'y'], open).effects, [{ type: 'forget', id: 'm2' }]);
    assert.deepEqual(press(['f', 'n', 'y'], open).effects, [], 'n cancels, and y alone does nothing');
    const esc = press(['f', { escape: true }], open);
    assert.equal(esc.state.confirmForget, false);
    assert.equal(esc.state.screen, 'detail', 'esc in the dialog only closes the dialog');
  });

  it('scrolls the history and goes back with esc or backspace', () => {
    assert.equal(press([{ downArrow: true }, { downArrow: true }, { downArrow: true }], open).state.historyOffset, 1);
    assert.equal(press([{ escape: true }], open).state.screen, 'search');
    assert.equal(press([{ delete: true }], open).state.screen, 'search');
  });
});

describe('keys while the daemon is down', () => {
  const down = { ...ctx, connection: 'down' as const };

  it('offers start and quit only', () => {
    assert.deepEqual(press(['s'], INITIAL_NAV, down).effects, [{ type: 'start-daemon' }]);
    assert.deepEqual(press(['s'], INITIAL_NAV, { ...down, canStartDaemon: false }).effects, []);
    assert.deepEqual(press(['p', '/', 'q'], INITIAL_NAV, down).effects, [{ type: 'quit' }]);
    assert.equal(press(['/'], INITIAL_NAV, down).state.screen, 'dashboard');
  });
});

describe('keys that arrive together', () => {
  it('are separate commands outside the search field, and text inside it', () => {
    assert.deepEqual(keystrokes(INITIAL_NAV, 'jp', {}), ['j', 'p']);
    assert.deepEqual(keystrokes({ ...INITIAL_NAV, screen: 'detail' }, 'fy', {}), ['f', 'y']);
    assert.deepEqual(keystrokes({ ...INITIAL_NAV, screen: 'search' }, 'postgres', {}), ['postgres']);
    assert.deepEqual(keystrokes(INITIAL_NAV, 'p', {}), ['p']);
  });
});

describe('help bar', () => {
  it('names the keys of each screen', () => {
    const keys = (c: Parameters<typeof helpItems>[0]) => helpItems(c).map((i) => i.key);
    assert.deepEqual(keys({ screen: 'dashboard', connection: 'up', confirming: false, canStartDaemon: true }), ['p', 'a', '↑↓', '/', 'r', '?', 'q']);
    assert.deepEqual(keys({ screen: 'recent', connection: 'up', confirming: false, canStartDaemon: true }), ['↑↓', 'enter', '/', 'esc', '?']);
    assert.deepEqual(keys({ screen: 'help', connection: 'up', confirming: false, canStartDaemon: true }), ['esc/?', 'q']);
    assert.deepEqual(keys({ screen: 'search', connection: 'up', confirming: false, canStartDaemon: true }), ['type', '↑↓', 'enter', 'tab', '^U', 'esc']);
    assert.deepEqual(keys({ screen: 'detail', connection: 'up', confirming: false, canStartDaemon: true }), ['f', '↑↓', 'esc', '?', 'q']);
    assert.deepEqual(keys({ screen: 'detail', connection: 'up', confirming: true, canStartDaemon: true }), ['y', 'n/esc']);
    assert.deepEqual(keys({ screen: 'search', connection: 'down', confirming: false, canStartDaemon: true }), ['s', 'q']);
  });
});

describe('help screen and recent memories', () => {
  it('opens help with ? from the dashboard, a list and the details, and goes back where it was', () => {
    const fromDash = press(['?']);
    assert.equal(fromDash.state.screen, 'help');
    assert.equal(press([{ escape: true }], fromDash.state).state.screen, 'dashboard');
    assert.equal(press(['?'], fromDash.state).state.screen, 'dashboard', '? closes it too');
    assert.deepEqual(press(['q'], fromDash.state).effects, [{ type: 'quit' }]);
    const recent = press(['r']).state;
    assert.equal(press(['?', '?'], recent).state.screen, 'recent');
    const detail = press(['/', 'x', { return: true }]).state;
    assert.equal(detail.screen, 'detail');
    assert.equal(press(['?', { escape: true }], detail).state.screen, 'detail');
    assert.equal(press(['?'], press(['/']).state).state.query, '?', 'in the search field ? is text');
  });

  it('lists recent memories with r: select, open, and back to the list, then the dashboard', () => {
    const r = press(['r', 'j', { downArrow: true }, { return: true }]);
    assert.equal(r.state.screen, 'detail');
    assert.equal(r.state.detailId, 'r2', 'the selection stops at the last memory');
    const back = press([{ escape: true }], r.state).state;
    assert.equal(back.screen, 'recent', 'details go back to the list they came from');
    assert.equal(press([{ escape: true }], back).state.screen, 'dashboard');
    assert.equal(press(['/'], back).state.screen, 'search');
    assert.equal(press(['r', { return: true }], INITIAL_NAV, { ...ctx, recentIds: [] }).state.screen, 'recent', 'enter on an empty list stays');
    const fromSearch = press(['/', { return: true }, { escape: true }]).state;
    assert.equal(fromSearch.screen, 'search', 'details opened from search go back to search');
  });

  it('tells how to lift a repository pause instead of pausing the session again', () => {
    const c: KeyContext = { ...ctx, sessions: [{ sessionId: null, ownPause: false }, { sessionId: 's1', ownPause: false, repoPause: true }] };
    const r = press([{ downArrow: true }, 'p'], INITIAL_NAV, c);
    assert.equal(r.effects.length, 1);
    assert.equal(r.effects[0]!.type, 'notice');
    assert.match((r.effects[0] as { text: string }).text, /whole repository: run service resume/);
  });
});
