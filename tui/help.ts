/**
 * The keys of the dashboard: the help bar (the keys of the current screen, most useful first) and
 * the help screen (`?`: every key of every screen, from KEY_REFERENCE).
 */
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
  if (c.screen === 'help') return [{ key: 'esc/?', label: 'back' }, { key: 'q', label: 'quit' }];
  if (c.screen === 'recent')
    return [
      { key: '↑↓', label: 'select' },
      { key: 'enter', label: 'open' },
      { key: '/', label: 'search' },
      { key: 'esc', label: 'back' },
      { key: '?', label: 'help' },
    ];
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
          { key: '?', label: 'help' },
          { key: 'q', label: 'quit' },
        ];
  return [
    { key: 'p', label: 'pause/resume selected' },
    { key: 'a', label: 'all' },
    { key: '↑↓', label: 'select' },
    { key: '/', label: 'search' },
    { key: 'r', label: 'recent' },
    { key: '?', label: 'help' },
    { key: 'q', label: 'quit' },
  ];
}

export interface KeySection {
  title: string;
  keys: HelpItem[];
}

/** Every key of every screen (what navigation.ts handles), for the help screen. */
export const KEY_REFERENCE: readonly KeySection[] = [
  {
    title: 'Dashboard',
    keys: [
      { key: '↑↓ j k', label: 'select a row' },
      { key: 'p', label: 'pause/resume selected' },
      { key: 'a', label: 'pause/resume all' },
      { key: '/', label: 'search memories' },
      { key: 'r', label: 'recent memories' },
      { key: '?', label: 'this help' },
      { key: 'q', label: 'quit' },
    ],
  },
  {
    title: 'Search',
    keys: [
      { key: 'type', label: 'search (prefix too)' },
      { key: '↑↓ ^P ^N', label: 'select a result' },
      { key: 'enter', label: 'open it' },
      { key: 'tab', label: 'next scope' },
      { key: '⌫ ^U', label: 'delete / clear' },
      { key: 'esc', label: 'back' },
    ],
  },
  {
    title: 'Recent memories',
    keys: [
      { key: '↑↓ j k', label: 'select' },
      { key: 'enter', label: 'open it' },
      { key: '/', label: 'search' },
      { key: 'esc r', label: 'back' },
    ],
  },
  {
    title: 'Memory details',
    keys: [
      { key: '↑↓', label: 'history' },
      { key: 'f', label: 'forget (y/n; undo)' },
      { key: 'esc ←', label: 'back to the list' },
      { key: '?', label: 'this help' },
      { key: 'q', label: 'quit' },
    ],
  },
  {
    title: 'Daemon down',
    keys: [
      { key: 's', label: 'start the daemon' },
      { key: 'q', label: 'quit' },
    ],
  },
];
