/**
 * The dashboard: shows the status poller's view, the live search and memory details, and sends
 * every key through navigation.ts. Holds no logic of its own beyond choosing what to show.
 */
import { Box, useApp, useInput } from 'ink';
import { useCallback, useMemo, useState } from 'react';
import { DashboardScreen } from './dashboard-screen.js';
import type { DashboardState } from './dashboard-state.js';
import { ConnectingScreen, DaemonDownScreen } from './daemon-down-screen.js';
import { detailModel } from './detail-model.js';
import { DetailScreen } from './detail-screen.js';
import { Header } from './header.js';
import { HelpBar, MessageLine } from './help-bar.js';
import { helpItems } from './help.js';
import { HelpScreen } from './help-screen.js';
import { frameSize, type Size } from './layout.js';
import { clampIndex, handleKey, keystrokes, type KeyContext, type NavState } from './navigation.js';
import { resultRow } from './search-model.js';
import { RecentScreen } from './recent-screen.js';
import { SearchScreen } from './search-screen.js';
import { useActions } from './use-actions.js';
import { useDashboard } from './use-dashboard.js';
import { useFlash } from './use-flash.js';
import { useMemoryDetail } from './use-memory-detail.js';
import { useRecent } from './use-recent.js';
import { useSearch } from './use-search.js';

export interface AppProps {
  state: DashboardState;
  /** The terminal's size (run.tsx mounts the app again when it changes). */
  size: Size;
}

export function App({ state, size }: AppProps) {
  const { client, poller, search: searchCtl, recent: recentCtl, clock, canStartDaemon } = state;
  const { exit } = useApp();
  const frame = frameSize(size);
  const view = useDashboard(poller);
  const [nav, setNavState] = useState<NavState>(state.nav.current);
  const setNav = useCallback(
    (update: (s: NavState) => NavState) => {
      state.nav.current = update(state.nav.current);
      setNavState(state.nav.current);
    },
    [state],
  );
  const search = useSearch(searchCtl, nav.query, nav.scope);
  const recent = useRecent(recentCtl, nav.screen === 'recent');
  const detail = useMemoryDetail(client, nav.screen === 'detail' ? nav.detailId : null);
  const [flash, showFlash] = useFlash();

  const hits = search.hits;
  const now = clock();
  const rows = useMemo(() => hits.map((h) => resultRow(h, now)), [hits, now]);
  const recentRows = useMemo(() => recent.items.map((m) => resultRow(m, now)), [recent.items, now]);
  const describe = useCallback((id: string) => (hits.find((h) => h.memory_id === id) ?? recent.items.find((m) => m.memory_id === id))?.content ?? null, [hits, recent.items]);
  const run = useActions({ client, poller, search: searchCtl, recent: recentCtl, describe, setNav, flash: showFlash, quit: exit });

  const sessions = view.kind === 'up' ? view.model.capture.rows : [];
  const ctx: KeyContext = {
    connection: view.kind,
    sessions,
    globalPaused: view.kind === 'up' && view.model.capture.globalPaused,
    resultIds: hits.map((h) => h.memory_id),
    recentIds: recent.items.map((m) => m.memory_id),
    searchedScope: search.searchedScope,
    historyLength: detail.versions.length,
    canStartDaemon,
  };
  useInput((input, key) => {
    // The handler may run several times before React renders again (a paste, fast typing):
    // it reads and writes the navigation state through the store, never a stale copy.
    for (const k of keystrokes(state.nav.current, input, key)) {
      const r = handleKey(state.nav.current, k, key, ctx);
      if (r.state !== state.nav.current) setNav(() => r.state);
      if (r.effect) run(r.effect);
    }
  });

  const body = (() => {
    if (view.kind === 'connecting') return <ConnectingScreen socket={view.socket} starting={view.starting} width={frame.width} />;
    if (view.kind === 'down') return <DaemonDownScreen down={view.down} width={frame.width} canStart={canStartDaemon} />;
    if (nav.screen === 'help') return <HelpScreen size={size} />;
    if (nav.screen === 'recent') return <RecentScreen recent={recent} rows={recentRows} selected={clampIndex(nav.recentIndex, recentRows.length)} size={size} />;
    if (nav.screen === 'search') return <SearchScreen search={search} rows={rows} selected={clampIndex(nav.resultIndex, rows.length)} size={size} />;
    if (nav.screen === 'detail') {
      const model = detail.memory ? detailModel(detail.memory, detail.versions, now) : null;
      return <DetailScreen model={model} loading={detail.loading} error={detail.error} confirming={nav.confirmForget} historyOffset={nav.historyOffset} size={size} />;
    }
    return <DashboardScreen model={view.model} selected={clampIndex(nav.sessionIndex, sessions.length)} size={size} />;
  })();

  return (
    <Box flexDirection="column" width={frame.width} height={frame.height} overflow="hidden">
      <Header view={view} width={frame.width} />
      <Box flexDirection="column" flexGrow={1} overflow="hidden">
        {body}
      </Box>
      <MessageLine flash={flash} width={frame.width} />
      <HelpBar items={helpItems({ screen: nav.screen, connection: view.kind, confirming: nav.confirmForget, canStartDaemon })} width={frame.width} />
    </Box>
  );
}
