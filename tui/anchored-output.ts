/**
 * The terminal stream Ink draws on, anchored to the top-left corner of the screen.
 *
 * Ink 6.8's incremental renderer (the one that rewrites only changed lines) moves the cursor up one
 * line too few before each frame whenever the frame is shorter than the terminal, so every redraw
 * lands one row lower than the last. The dashboard owns the alternate screen and always draws
 * from its top-left corner, so each write first sends the cursor home: Ink's relative moves then
 * start from the frame's first row, as they assume. Everything else passes through untouched.
 */
const HOME = '\u001b[H';

export function anchoredOutput(out: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = (chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
    const anchored = typeof chunk === 'string' && chunk.length > 0 ? HOME + chunk : chunk;
    return (out.write as (c: unknown, e?: unknown, cb?: unknown) => boolean)(anchored, encoding, cb);
  };
  return new Proxy(out, {
    get(target, prop) {
      if (prop === 'write') return write;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
