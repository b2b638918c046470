/** Live search state, following the query and scope on screen (debounced by the SearchController). */
import { useEffect, useSyncExternalStore } from 'react';
import type { SearchController, SearchState } from './search-controller.js';

export function useSearch(controller: SearchController, query: string, scope: string | null): SearchState {
  useEffect(() => controller.set(query, scope), [controller, query, scope]);
  return useSyncExternalStore(
    (onChange) => controller.subscribe(onChange),
    () => controller.get(),
  );
}
