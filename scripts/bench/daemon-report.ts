/** The daemon benchmark's results as the markdown section of BENCHMARKS.md. */
import { IDLE_COLLECT_MS } from '../../daemon/process-env.js';
import { SETTLED_CPU_MS_PER_S } from './daemon-process.js';
import type { RecallProfile } from './daemon-profile.js';
import type { ModelDtypeChoice } from '../../engine/index.js';
import { table } from './markdown.js';
import { modelDescription } from './model-choice.js';
import type { RssReport } from './rss-probe.js';
import { mb, ms, type Summary } from './stats.js';

export interface SizeRun {
  size: number;
  seed: { importSec: number; maintainSec: number };
  vectorIndex: boolean;
  recallHook: Summary;
  /** Recall hook runs that printed a context block. */
  withContext: number;
  captureHook: Summary;
  floor: Summary;
  /** The recall hook with no daemon to reach (Node start, script load, stdin, a failed connect). */
  hookWithoutDaemon: Summary;
  /** POST /v1/recall from this process over the socket (no hook process). */
  recallRequest: Summary;
  /** POST /v1/capture of the same prompt (the journal append a recall also waits for). */
  captureRequest: Summary;
  /** A recall the daemon answers without work (socket, HTTP, JSON, routing). */
  emptyRequest: Summary;
  profile: RecallProfile;
  /**
   * After start and warm-up (once quiet); right after the last timed request; once quiet again
   * (the daemon's idle collection done); the process's peak (VmHWM, start-up included).
   */
  rss: { started: number; atOnce: number; quiet: number; peak: number };
}

export interface DaemonResults {
  command: string;
  date: string;
  machine: string;
  load: string;
  durationSec: number;
  model: string;
  dtype: ModelDtypeChoice;
  runs: number;
  idleRss: number;
  sizes: SizeRun[];
  /** Flushes measured (on the smallest and the largest store). */
  flush: { sessions: number; events: number; memories: number; sec: number; atSize: number }[];
  rssParts: RssReport | null;
  /** When NODE_EXTRA_CA_CERTS is set: `node -e 0` as is, and Node started as the hook commands start it. */
  caCerts: { plain: Summary; hookStart: Summary } | null;
}

export const TARGETS = { recallP95Ms: 60, captureP95Ms: 40, rssBytes: 300 * 1024 * 1024, size: 100_000 };

const n = (x: number): string => (x >= 1000 ? `${x / 1000}k` : String(x));
const p3 = (s: Summary): [string, string, string] => [ms(s.p50), ms(s.p95), ms(s.p99)];
const verdict = (ok: boolean | null): string => (ok === null ? 'not measured' : ok ? '**met**' : '**missed**');

export function renderDaemon(r: DaemonResults): string {
  const big = r.sizes.find((s) => s.size === TARGETS.size) ?? null;
  const last = r.sizes[r.sizes.length - 1]!;
  const worstCapture = Math.max(...r.sizes.map((s) => s.captureHook.p95));
  // The target is the idle daemon's RSS: on an empty data dir, and with each store size after its
  // start and after the timed runs, once quiet. Right after a burst and the peak are shown beside it.
  const idleRss = Math.max(r.idleRss, ...r.sizes.map((s) => Math.max(s.rss.started, s.rss.quiet)));
  const burstRss = Math.max(...r.sizes.map((s) => s.rss.atOnce));
  const peakRss = Math.max(...r.sizes.map((s) => s.rss.peak));
  const hooks = table(
    ['memories', 'recall hook p50 / p95 / p99 ms', 'with context', 'capture hook p50 / p95 / p99 ms', '`node -e 0` as a command hook p50 / p95 / p99 ms'],
    r.sizes.map((s) => [n(s.size), p3(s.recallHook).join(' / '), `${s.withContext}/${r.runs}`, p3(s.captureHook).join(' / '), p3(s.floor).join(' / ')]),
  );
  const breakdown = table(
    ['memories', '`node -e 0`', 'hook, daemon unreachable', 'recall hook', 'recall request (no hook process)', 'empty request', 'capture request (journal fsync)', 'query embedding', 'hybrid search', 'of which store: both / vector / text', 'assembly'],
    r.sizes.map((s) => [
      n(s.size),
      ms(s.floor.p50),
      ms(s.hookWithoutDaemon.p50),
      ms(s.recallHook.p50),
      ms(s.recallRequest.p50),
      ms(s.emptyRequest.p50),
      ms(s.captureRequest.p50),
      ms(s.profile.embed.p50),
      ms(s.profile.search.p50),
      `${ms(s.profile.store.p50)} / ${ms(s.profile.storeVector.p50)} / ${ms(s.profile.storeText.p50)}`,
      ms(s.profile.assemble.p50),
    ]),
  );
  const p = r.rssParts;
  const memory = table(
    ['state', 'RSS'],
    [
      ['daemon idle: started on an empty data dir, model loaded, one recall served', mb(r.idleRss)],
      ...r.sizes.flatMap((s) => [
        [`daemon with ${n(s.size)} memories, after start and warm-up`, mb(s.rss.started)],
        [`daemon with ${n(s.size)} memories, right after the last timed request`, mb(s.rss.atOnce)],
        [`daemon with ${n(s.size)} memories, after the timed runs, once quiet`, mb(s.rss.quiet)],
        [`daemon with ${n(s.size)} memories, peak of the process (VmHWM, start-up included)`, mb(s.rss.peak)],
      ]),
      ...(p
        ? [
            ['a fresh process started like the daemon, step by step (rss-probe.ts on the same data dir): Node alone', mb(p.start)],
            ['… the store opened', mb(p.opened)],
            ['… the model loaded', mb(p.modelReady)],
            [`… after ${p.searches} searches`, `${mb(p.afterSearches)} (JS heap ${mb(p.heapUsed)})`],
          ]
        : []),
    ],
  );
  const seeding = table(
    ['memories', 'import (pooled vectors)', 'maintenance (compaction, indexes)', 'vector index'],
    r.sizes.map((s) => [n(s.size), `${s.seed.importSec.toFixed(1)} s`, `${s.seed.maintainSec.toFixed(1)} s`, s.vectorIndex ? 'IVF_RQ (rows since its build are searched flat)' : 'none (searched in memory, or flat)']),
  );
  const f = r.flush;
  return [
    '## Daemon: hooks end to end (`scripts/bench/daemon.ts`)',
    '',
    `- Command: \`${r.command}\` (${r.durationSec.toFixed(0)} s), ${r.date}; load average at start ${r.load}`,
    `- Machine: ${r.machine}`,
    `- Daemon: \`service daemon run\` as a child process on its own SERVICE_HOME, model ${modelDescription(r.model, r.dtype)}, default recall deadline and context budget. Every memory is in scope of the recall (90% project memories of the hooks' repository, 10% the user's personal ones). Timing starts once the daemon is idle (under ${SETTLED_CPU_MS_PER_S} ms of CPU in a second) after its start and two warm-up recalls, as hooks meet a daemon that has been running.`,
    `- Hooks: UserPromptSubmit and PostToolUse as the built plugin's \`hooks/hooks.json\` declares them, mcp_tool hooks: each a call to the plugin's own MCP server (started once for the session, as Claude Code starts it), timed from call to answer with the event filled into the hook's templated input as Claude Code fills it; ${r.runs} runs each per size, every prompt distinct, interleaved with \`node -e 0\` started as the command hooks start Node, in the foreground (\`-e 0\` in place of the script: what any command hook costs before it does anything, which these hooks no longer pay).`,
    ...(r.caCerts
      ? [
          `- NODE_EXTRA_CA_CERTS is set in this environment (as Claude Code documents for corporate proxies). Node 20 reads that file at every start: plain \`node -e 0\` takes ${ms(r.caCerts.plain.p50)} ms p50 here, Node started as the hook commands start it (with the variable emptied, and handed back to a daemon a hook starts) ${ms(r.caCerts.hookStart.p50)} ms.`,
        ]
      : []),
    '',
    table(
      ['target', 'measured', 'verdict'],
      [
        [`recall hook p95 ≤ ${TARGETS.recallP95Ms} ms at 100k memories`, big ? `${ms(big.recallHook.p95)} ms (\`node -e 0\` as a command hook: ${ms(big.floor.p95)} ms)` : 'not run', verdict(big ? big.recallHook.p95 <= TARGETS.recallP95Ms : null)],
        [`capture hook p95 ≤ ${TARGETS.captureP95Ms} ms`, `${ms(worstCapture)} ms at worst`, verdict(worstCapture <= TARGETS.captureP95Ms)],
        [`daemon RSS ≤ ${mb(TARGETS.rssBytes)} (idle)`, `${mb(idleRss)} at most when idle (${n(last.size)} memories, after the timed runs: ${mb(last.rss.quiet)}); right after a burst of hooks ${mb(burstRss)} at most, process peak ${mb(peakRss)}`, verdict(idleRss <= TARGETS.rssBytes)],
      ],
    ),
    '',
    '### Hook wall time, as Claude Code sees it',
    '',
    hooks,
    '',
    '### Where the recall hook spends its time (p50, ms)',
    '',
    'Measured in the same run: `node -e 0`; the recall hook with no daemon to reach (the MCP round trip, spooling the prompt and a failed connect); the recall hook; the same recall request, and a capture request, sent from this process over the socket (no hook process); a recall from inside the data dir, which the daemon answers without capturing or searching (socket, HTTP and routing cost). Measured in this process on the same data dir with the daemon stopped (same engine, model, filter and options): embedding the prompt, the hybrid search, assembling the block. The daemon answers a recall once both its capture (journal append with fsync) and its search are done; they run concurrently.',
    '',
    breakdown,
    '',
    '### Flush throughput',
    '',
    f.length === 0
      ? 'not measured'
      : table(
          ['memories in the store', 'sessions', 'events flushed', 'memories stored', 'time', 'events/s', 'memories/s'],
          f.map((x) => [n(x.atSize), x.sessions, x.events, x.memories, `${x.sec.toFixed(1)} s`, (x.events / x.sec).toFixed(1), (x.memories / x.sec).toFixed(1)]),
        ),
    '',
    `Each session: 3 prompts stating decisions, 6 tool runs, 3 agent conclusions, captured through \`/v1/capture\`, then one \`/v1/flush\` for all: extraction, consolidation against existing memories (a search per candidate) and embedding with \`${r.model}\` included.`,
    '',
    '### Memory',
    '',
    memory,
    '',
    '### Seeding (not part of any number above)',
    '',
    seeding,
    '',
    '### What these numbers mean and do not mean',
    '',
    '- These hooks are calls to the session\'s MCP server, which is already running: no Node start per event (the `node -e 0` column is what a command hook would pay first). The time includes the JSON-RPC round trip over the server\'s stdio, as Claude Code waits for it.',
    '- A recall that is not answered within the daemon\'s deadline returns nothing: the "with context" column counts the runs that did print context, so a fast empty answer is not counted as success.',
    '- The model has random weights: its timings stand for all-MiniLM-L6-v2 at the same precision; what it retrieves is not meaningful.',
    '- This is a shared 2-core machine: other processes add noise, most visible at p99; compare runs on the same machine.',
    `- RSS: the target is read as the idle daemon's size (the issue asks for RSS idle and with 100k memories). The daemon collects its garbage after ${IDLE_COLLECT_MS / 1000} s without requests; during a burst of hooks, ONNX Runtime's per-query output buffers wait for that (or for V8's own collection), which the "right after" and peak rows show. RSS counts the pages of Node, LanceDB and ONNX Runtime code the process has touched (~125 MB, shared with other processes using the same files).`,
  ].join('\n');
}
