/**
 * What the dashboard keeps across redraws: the status poller, the live search and the navigation
 * state. It lives outside React, so the screen can be mounted again (after a resize) exactly where
 * the user was, and so tests can drive it directly.
 */
import type { DaemonClient } from '../daemon/client.js';
import { INITIAL_NAV, type NavState } from './navigation.js';
import { RecentMemories } from './recent-memories.js';
import { SearchController } from './search-controller.js';
import { StatusPoller } from './status-poller.js';

/** What the dashboard asks of the daemon (DaemonClient has it all; tests pass a fake). */
export type DashboardClient = Pick<DaemonClient, 'socketPath' | 'status' | 'localSearch' | 'localList' | 'get' | 'history' | 'localForget' | 'pause' | 'resume'>;

export interface DashboardStateOptions {
  client: DashboardClient;
  /** Directory whose repository and sessions the dashboard shows (scope counts, search). */
  cwd: string;
  /** Starts the daemon; offered as the "s" key and tried once by itself when nothing answers. */
  startDaemon?: () => Promise<unknown>;
  /** Status poll interval. @default 2000 */
  pollMs?: number;
  /** Search debounce. @default 200 */
  debounceMs?: number;
  clock?: () => number;
}

export interface DashboardState {
  client: DashboardClient;
  poller: StatusPoller;
  search: SearchController;
  recent: RecentMemories;
  nav: { current: NavState };
  canStartDaemon: boolean;
  clock: () => number;
  dispose(): void;
}

export function createDashboardState(o: DashboardStateOptions): DashboardState {
  const clock = o.clock ?? Date.now;
  const poller = new StatusPoller({
    client: o.client,
    cwd: o.cwd,
    clock,
    ...(o.pollMs ? { intervalMs: o.pollMs, downIntervalMs: Math.min(o.pollMs, 1000) } : {}),
    ...(o.startDaemon ? { startDaemon: o.startDaemon } : {}),
  });
  const search = new SearchController({ client: o.client, cwd: o.cwd, ...(o.debounceMs !== undefined ? { debounceMs: o.debounceMs } : {}) });
  const recent = new RecentMemories({ client: o.client, cwd: o.cwd });
  return {
    client: o.client,
    poller,
    search,
    recent,
    nav: { current: INITIAL_NAV },
    canStartDaemon: Boolean(o.startDaemon),
    clock,
    dispose: () => {
      poller.stop();
      search.dispose();
      recent.dispose();
    },
  };
}
