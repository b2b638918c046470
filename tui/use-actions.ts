/**
 * Carries out what a key asked for (navigation.ts's effects) through the daemon client, and says
 * what happened on the message line. Failures never escape: they become messages.
 */
import { useCallback } from 'react';
import type { DaemonClient } from '../daemon/client.js';
import { oneLine, shortId } from './format.js';
import type { Effect, NavState, PauseTarget } from './navigation.js';
import type { RecentMemories } from './recent-memories.js';
import type { SearchController } from './search-controller.js';
import type { StatusPoller } from './status-poller.js';
import type { Tone } from './theme.js';

export interface ActionDeps {
  client: Pick<DaemonClient, 'pause' | 'resume' | 'localForget'>;
  poller: StatusPoller;
  search: SearchController;
  recent: RecentMemories;
  /** Content of the memory being forgotten, for the message. */
  describe: (id: string) => string | null;
  setNav: (update: (s: NavState) => NavState) => void;
  flash: (text: string, tone?: Tone) => void;
  quit: () => void;
}

function targetText(t: PauseTarget): string {
  return 'all' in t ? 'all sessions' : `session ${shortId(t.session_id)}`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function useActions(d: ActionDeps): (e: Effect) => void {
  const { client, poller, search, recent, describe, setNav, flash, quit } = d;
  return useCallback(
    (e: Effect) => {
      switch (e.type) {
        case 'quit':
          quit();
          return;
        case 'notice':
          flash(e.text, 'warn');
          return;
        case 'start-daemon':
          void poller.startDaemon();
          return;
        case 'pause':
        case 'resume': {
          const paused = e.type === 'pause';
          (paused ? client.pause(e.target) : client.resume(e.target)).then(
            () => {
              flash(`capture ${paused ? 'paused' : 'resumed'} for ${targetText(e.target)}`, paused ? 'warn' : 'ok');
              void poller.refresh();
            },
            (err: unknown) => flash(`could not ${e.type}: ${messageOf(err)}`, 'error'),
          );
          return;
        }
        case 'forget': {
          const what = describe(e.id);
          client.localForget({ memory_ids: [e.id] }).then(
            () => {
              flash(`forgot ${what ? `"${oneLine(what, 50)}"` : shortId(e.id)} (undo: service undo)`, 'ok');
              setNav((s) => ({ ...s, screen: s.detailId === e.id ? s.detailFrom : s.screen, detailId: s.detailId === e.id ? null : s.detailId }));
              void search.refresh();
              void recent.refresh();
              void poller.refresh();
            },
            (err: unknown) => flash(`could not forget: ${messageOf(err)}`, 'error'),
          );
          return;
        }
      }
    },
    [client, poller, search, recent, describe, setNav, flash, quit],
  );
}
