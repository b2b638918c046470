/**
 * The environment the daemon's Node process starts with, wherever it is started from (`service
 * daemon start`, every CLI command and the TUI that start one, the hooks). The daemon is long-lived
 * and mostly idle; these trade a little allocation speed for resident memory:
 * - `--max-semi-space-size=2` (NODE_OPTIONS): V8's young generation grows to 2 MB per semi-space
 *   instead of 16, so the heap keeps no large nursery it rarely needs;
 * - `--expose-gc`, so the daemon can collect once after its start-up work (`collectAfterStartup`):
 *   opening 100k memories and loading the model leave ~80 MB of garbage that V8 would otherwise
 *   hold until its memory reducer runs;
 * - glibc malloc: two arenas instead of one per thread (LanceDB and ONNX Runtime run thread pools),
 *   and large blocks are mmap'd and freed ones trimmed, so memory LanceDB frees goes back to the OS.
 * Measured with 100k memories after 60 recalls: 338 → 253 MB RSS (BENCHMARKS.md, daemon section).
 * Values the user already set win. hooks/lib/run.ts repeats these (hooks import nothing of ours);
 * a test keeps the two in agreement.
 */
export const DAEMON_NODE_OPTIONS = '--max-semi-space-size=2 --expose-gc';
export const DAEMON_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_TRIM_THRESHOLD_: '65536',
  MALLOC_MMAP_THRESHOLD_: '65536',
};

export function daemonProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [k, v] of Object.entries(DAEMON_MALLOC_ENV)) if (out[k] === undefined) out[k] = v;
  const opts = out.NODE_OPTIONS ?? '';
  const add = DAEMON_NODE_OPTIONS.split(' ').filter((flag) => !opts.includes(flag.split('=')[0]!));
  if (add.length > 0) out.NODE_OPTIONS = [opts, ...add].join(' ').trim();
  return out;
}

/** A full garbage collection, when the process was started with `--expose-gc` (else nothing). */
export function collectAfterStartup(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === 'function') setImmediate(gc);
}
