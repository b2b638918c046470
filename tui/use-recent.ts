/** The recent memories list's state; loaded when `active` turns on, and every `everyMs` while it stays on. */
import { useEffect, useSyncExternalStore } from 'react';
import type { RecentMemories, RecentState } from './recent-memories.js';

export function useRecent(recent: RecentMemories, active: boolean, everyMs = 2000): RecentState {
  useEffect(() => {
    if (!active) return undefined;
    void recent.refresh();
    const timer = setInterval(() => void recent.refresh(), everyMs);
    return () => clearInterval(timer);
  }, [recent, active, everyMs]);
  return useSyncExternalStore(
    (onChange) => recent.subscribe(onChange),
    () => recent.get(),
  );
}
