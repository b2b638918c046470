/**
 * Namespaced developer logger. Library code logs only through this interface; the daemon gives
 * it a file sink, tests and the CLI usually a silent one. Never used for what users must see.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(namespace: string): Logger;
}

export interface LogRecord {
  time: string;
  level: LogLevel;
  ns: string;
  msg: string;
  [key: string]: unknown;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Stack frames an error record keeps: enough to find where a failure nobody expected was thrown. */
const ERROR_FRAMES = 6;

/** An error as log fields: its name and message, and for an error record where it was thrown. */
function errorFields(err: Error, where: boolean): Record<string, unknown> {
  const at = where ? (err.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).slice(0, ERROR_FRAMES).map((l) => l.trim().slice(3)) : [];
  return { name: err.name, message: err.message, ...(at.length > 0 ? { at } : {}) };
}

/** A logger that hands JSON records at or above `level` to `sink`. */
export function createLogger(sink: (record: LogRecord) => void, level: LogLevel = 'info', ns = 'service'): Logger {
  const emit = (l: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (ORDER[l] < ORDER[level]) return;
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields ?? {})) extra[k] = v instanceof Error ? errorFields(v, l === 'error') : v;
    sink({ time: new Date().toISOString(), level: l, ns, msg, ...extra });
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (sub) => createLogger(sink, level, `${ns}:${sub}`),
  };
}

export const silentLogger: Logger = createLogger(() => {}, 'error');
