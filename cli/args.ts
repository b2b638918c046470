import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './command.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with usage errors that name the bad flag. */
export function parse<O extends Options>(args: string[], options: O, usage: string): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  try {
    const r = parseArgs({ args, options: { ...options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    // A usage without <arg> or [arg] takes no words: a stray one is a mistake, never ignored.
    if (r.positionals.length > 0 && !/[<[][a-z_]/i.test(usage.replace(/\[-[^\]]*\]/g, ''))) throw new Error(`unexpected "${r.positionals.join(' ')}"`);
    return { values: r.values as Record<string, string | boolean | string[] | undefined>, positionals: r.positionals };
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${usage}`);
  }
}

export function intFlag(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}
