/** Helpers for rendering the dashboard into ink-testing-library's fake streams. */
import assert from 'node:assert/strict';

/** Poll until `check` holds (frames update asynchronously), or fail with the last frame. */
export async function waitFor(check: () => boolean, frame: () => string | undefined, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last frame:\n${frame() ?? '(none)'}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Frame lines without colour codes. */
export function lines(frame: string | undefined): string[] {
  // eslint-disable-next-line no-control-regex
  return (frame ?? '').replace(/\u001b\[[0-9;]*m/g, '').split('\n');
}

/** Fails when a frame is wider or taller than the terminal allows (the frame is one row shorter than it). */
export function assertFits(frame: string | undefined, columns: number, rows: number): void {
  const ls = lines(frame);
  assert.ok(ls.length <= rows - 1, `frame has ${ls.length} lines for a ${rows}-row terminal`);
  for (const l of ls) assert.ok([...l].length <= columns, `line wider than ${columns}: "${l}" (${[...l].length})`);
}
