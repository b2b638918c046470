/** The dashboard's status view, kept current by a StatusPoller for as long as the component is mounted. */
import { useEffect, useSyncExternalStore } from 'react';
import type { DashboardView, StatusPoller } from './status-poller.js';

export function useDashboard(poller: StatusPoller): DashboardView {
  useEffect(() => {
    poller.start();
    return () => poller.stop();
  }, [poller]);
  return useSyncExternalStore(
    (onChange) => poller.subscribe(onChange),
    () => poller.view(),
  );
}
