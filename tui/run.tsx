/**
 * Runs the dashboard in a terminal until the user quits: on the alternate screen (the shell's
 * screen comes back untouched on exit), with Ink's incremental rendering (only changed lines are
 * rewritten, so nothing flickers) anchored to the screen's corner (see anchored-output.ts), and
 * with console patching off (nothing else prints into it). A resize draws the screen afresh once.
 */
import { render, type Instance } from 'ink';
import { anchoredOutput } from './anchored-output.js';
import { App } from './app.js';
import { createDashboardState, type DashboardStateOptions } from './dashboard-state.js';
import type { Size } from './layout.js';
import { ThemeContext, themeFor } from './theme.js';

export interface DashboardOptions extends DashboardStateOptions {
  env: Record<string, string | undefined>;
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  stderr: NodeJS.WriteStream;
}

const ALT_SCREEN_ON = '\u001b[?1049h';
const ALT_SCREEN_OFF = '\u001b[?1049l';
const CLEAR_SCREEN = '\u001b[H\u001b[2J';
/** Resizes arrive in bursts while a window is dragged; redraw once it settles. */
const RESIZE_SETTLE_MS = 60;

function sizeOf(out: NodeJS.WriteStream): Size {
  return { columns: out.columns || 80, rows: out.rows || 24 };
}

export async function runDashboard(o: DashboardOptions): Promise<void> {
  const theme = themeFor(o.env);
  const state = createDashboardState(o);
  const stdout = anchoredOutput(o.stdout);
  let current: Instance | null = null;
  let remount = false;
  let size = sizeOf(o.stdout);
  let settle: NodeJS.Timeout | null = null;
  const onResize = (): void => {
    if (settle) clearTimeout(settle);
    settle = setTimeout(() => {
      const next = sizeOf(o.stdout);
      if (next.columns === size.columns && next.rows === size.rows) return;
      size = next;
      remount = true;
      current?.unmount();
    }, RESIZE_SETTLE_MS);
  };
  // A terminal closing or a kill ends the dashboard cleanly (raw mode off, screen restored).
  const stop = (): void => current?.unmount();
  const signals = ['SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, stop);
  o.stdout.on('resize', onResize);
  o.stdout.write(ALT_SCREEN_ON);
  try {
    for (;;) {
      o.stdout.write(CLEAR_SCREEN);
      current = render(
        <ThemeContext.Provider value={theme}>
          <App state={state} size={size} />
        </ThemeContext.Provider>,
        { stdout, stdin: o.stdin, stderr: o.stderr, exitOnCtrlC: true, patchConsole: false, incrementalRendering: true },
      );
      await current.waitUntilExit();
      current.cleanup();
      if (!remount) break;
      remount = false;
    }
  } finally {
    if (settle) clearTimeout(settle);
    o.stdout.off('resize', onResize);
    for (const s of signals) process.off(s, stop);
    state.dispose();
    o.stdout.write(ALT_SCREEN_OFF);
  }
}
