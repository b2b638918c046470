/** The help bar: the keys that work on the current screen, most useful first. */
import type { Screen } from './navigation.js';

export interface HelpItem {
  key: string;
  label: string;
}

export interface HelpContext {
  screen: Screen;
  connection: 'connecting' | 'up' | 'down';
  confirming: boolean;
  canStartDaemon: boolean;
}

export function helpItems(c: HelpContext): HelpItem[] {
  if (c.connection !== 'up') return [...(c.canStartDaemon ? [{ key: 's', label: 'start daemon' }] : []), { key: 'q', label: 'quit' }];
  if (c.screen === 'search')
    return [
      { key: 'type', label: 'search' },
      { key: '↑↓', label: 'select' },
      { key: 'enter', label: 'open' },
      { key: 'tab', label: 'scope' },
      { key: '^U', label: 'clear' },
      { key: 'esc', label: 'back' },
    ];
  if (c.screen === 'detail')
    return c.confirming
      ? [
          { key: 'y', label: 'forget it' },
          { key: 'n/esc', label: 'keep it' },
        ]
      : [
          { key: 'f', label: 'forget' },
          { key: '↑↓', label: 'history' },
          { key: 'esc', label: 'back' },
          { key: 'q', label: 'quit' },
        ];
  return [
    { key: 'p', label: 'pause/resume selected' },
    { key: 'a', label: 'all' },
    { key: '↑↓', label: 'select' },
    { key: '/', label: 'search' },
    { key: 'q', label: 'quit' },
  ];
}
