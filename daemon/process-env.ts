/**
 * The environment the daemon's Node process starts with, wherever it is started from (`service
 * daemon start`, every CLI command and the TUI that start one, the hooks). The daemon is long-lived
 * and mostly idle; these trade a little allocation speed for resident memory:
 * - `--max-semi-space-size=2` (NODE_OPTIONS): V8's young generation grows to 2 MB per semi-space
 *   instead of 16, so the heap keeps no large nursery it rarely needs;
 * - `--expose-gc`, so the daemon can collect once after its start-up work (`collectAfterStartup`):
 *   opening 100k memories and loading the model leave ~80 MB of garbage that V8 would otherwise
 *   hold until its memory reducer runs; and once it is quiet after serving requests
 *   (`IdleCollector`);
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

/**
 * The environment Claude Code gave a hook or the plugin's MCP server. Both start Node with
 * NODE_EXTRA_CA_CERTS emptied (Node 18-22 read that file at every start, ~30 ms, and they only talk
 * to a local socket) and its value saved in SERVICE_HOOK_CA_CERTS; a daemon they start gets it back
 * (it syncs and downloads over TLS). hooks/lib/run.ts `callerEnv` repeats this (hooks import
 * nothing of ours); test/hooks/paths.test.ts keeps the two in agreement.
 */
export function callerCaEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!('SERVICE_HOOK_CA_CERTS' in env)) return env;
  const out: NodeJS.ProcessEnv = { ...env };
  const saved = out.SERVICE_HOOK_CA_CERTS;
  delete out.SERVICE_HOOK_CA_CERTS;
  if (saved) out.NODE_EXTRA_CA_CERTS = saved;
  else delete out.NODE_EXTRA_CA_CERTS;
  return out;
}

/** V8's full collection, when the process was started with `--expose-gc`. */
function exposedGc(): (() => void) | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  return typeof gc === 'function' ? gc : null;
}

/** A full garbage collection, when the process was started with `--expose-gc` (else nothing). */
export function collectAfterStartup(): void {
  const gc = exposedGc();
  if (gc) setImmediate(gc);
}

/**
 * One full collection once the daemon has been quiet for `quietMs` after serving requests.
 *
 * Each query embedding leaves ~100-200 KB of ONNX Runtime output buffers that only a full
 * collection frees, and V8 runs one only once its heap or that external memory has grown a lot:
 * after bursts of 100 recalls at 100k memories the daemon held 320-345 MB, 270-290 MB once
 * collected. A collection takes ~25 ms, so it waits for a quiet moment rather than running
 * between requests.
 */
/** Quiet time after the last request before the daemon collects its garbage (`IdleCollector`). */
export const IDLE_COLLECT_MS = 1000;

export class IdleCollector {
  private active = 0;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  /** Collections run so far. */
  collections = 0;

  constructor(
    private readonly quietMs: number,
    private readonly gc: (() => void) | null = exposedGc(),
    private readonly onCollect: (info: { ms: number; rssBefore: number; rssAfter: number }) => void = () => {},
  ) {}

  /** A request started. */
  begin(): void {
    this.active++;
    this.dirty = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  /** A request ended (answered or abandoned). */
  end(): void {
    this.active = Math.max(0, this.active - 1);
    if (this.active > 0 || !this.dirty || !this.gc || this.timer) return;
    this.timer = setTimeout(() => this.collect(), this.quietMs);
    this.timer.unref();
  }

  private collect(): void {
    this.timer = null;
    if (this.active > 0 || !this.gc) return;
    this.dirty = false;
    const rssBefore = process.memoryUsage.rss();
    const t0 = performance.now();
    this.gc();
    this.collections++;
    this.onCollect({ ms: performance.now() - t0, rssBefore, rssAfter: process.memoryUsage.rss() });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
