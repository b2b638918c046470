/**
 * While the dashboard owns the terminal, nothing else may print into it: console calls, process
 * warnings (deprecations, experimental features) and direct writes to stderr go to `sink` (the CLI
 * appends them to a log file) instead. Ink itself writes to stdout and is not affected.
 */
import { format } from 'node:util';

const ESC = String.fromCharCode(27);
/** Output made only of control sequences such as ESC[?25h (show the cursor). */
const CONTROLS_ONLY = new RegExp(`^(?:${ESC}\\[[0-9;?]*[A-Za-z])+$`);

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir'] as const;

/** Redirect; returns the function that puts everything back. */
export function quietProcess(sink: (text: string) => void, proc: NodeJS.Process = process, con: Console = console): () => void {
  const line = (text: string): void => {
    try {
      sink(text.endsWith('\n') ? text : `${text}\n`);
    } catch {
      // A failing log must not break the dashboard.
    }
  };
  const savedConsole = CONSOLE_METHODS.map((m) => [m, con[m]] as const);
  for (const m of CONSOLE_METHODS) (con as unknown as Record<string, unknown>)[m] = (...args: unknown[]) => line(`console.${m}: ${format(...args)}`);
  const savedWarnings = proc.listeners('warning');
  proc.removeAllListeners('warning');
  const onWarning = (w: Error): void => line(`warning: ${w.name}: ${w.message}`);
  proc.on('warning', onWarning);
  const stderr = proc.stderr;
  const savedWrite = stderr.write;
  stderr.write = ((chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    // Terminal controls that print nothing (showing the cursor again at exit) still reach it.
    if (CONTROLS_ONLY.test(text)) return savedWrite.call(stderr, chunk as string, encoding as BufferEncoding, cb as () => void);
    line(`stderr: ${text}`);
    const done = typeof encoding === 'function' ? encoding : cb;
    if (typeof done === 'function') (done as () => void)();
    return true;
  }) as typeof stderr.write;
  return () => {
    for (const [m, fn] of savedConsole) (con as unknown as Record<string, unknown>)[m] = fn;
    proc.off('warning', onWarning);
    for (const l of savedWarnings) proc.on('warning', l as (w: Error) => void);
    stderr.write = savedWrite;
  };
}
