/**
 * Polls the daemon's status and turns it into what the dashboard shows: connecting, up (with the
 * view model), or down (with what to do about it). Listeners hear only real changes (the view's
 * JSON differs), so an idle dashboard does not re-render. While the daemon is down it retries by
 * itself, faster; when it answers again it says whether it restarted.
 */
import { DaemonApiError, DaemonUnreachableError, type DaemonClient } from '../daemon/client.js';
import { dashboardModel, type DashboardModel } from './dashboard-model.js';
import { formatDuration } from './format.js';
import { readStatus } from './status-shape.js';

export interface DownModel {
  /** unreachable: nothing answers on the socket; error: it answered with an error or too late. */
  reason: 'unreachable' | 'error';
  message: string;
  socket: string;
  downFor: string;
  lastSeen: string | null;
  /** The daemon's log file, when it was seen (its status names its home). */
  logFile: string | null;
  retryEvery: string;
  /** A start of the daemon from here is under way. */
  starting: boolean;
  startError: string | null;
}

export type DashboardView =
  | { kind: 'connecting'; socket: string; starting: boolean }
  | { kind: 'up'; model: DashboardModel; notice: string | null }
  | { kind: 'down'; down: DownModel };

export interface PollerOptions {
  client: Pick<DaemonClient, 'status' | 'socketPath'>;
  /** Sent with each status request, so scope counts are those of this directory. */
  cwd: string;
  /** @default 2000 */
  intervalMs?: number;
  /** Retry interval while the daemon is down. @default 1000 */
  downIntervalMs?: number;
  clock?: () => number;
  /** Starts the daemon (the CLI passes one; without it the dashboard only explains how). */
  startDaemon?: () => Promise<unknown>;
  /** Start the daemon once by itself when nothing answers at first. @default true when startDaemon is given */
  autoStart?: boolean;
}

/** How long "daemon restarted" and "reconnected" stay on screen. */
const NOTICE_MS = 10_000;

export class StatusPoller {
  private current: DashboardView;
  private key = '';
  private readonly listeners = new Set<(v: DashboardView) => void>();
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private identity: { id: string; pid: number; version: string; home: string } | null = null;
  private downSince: number | null = null;
  private lastDown: { reason: DownModel['reason']; message: string } | null = null;
  private notice: { text: string; until: number } | null = null;
  private embedPeak = 0;
  private starting = false;
  private startError: string | null = null;
  private autoStarted = false;
  private readonly clock: () => number;

  constructor(private readonly opts: PollerOptions) {
    this.clock = opts.clock ?? Date.now;
    this.current = { kind: 'connecting', socket: opts.client.socketPath, starting: false };
    this.key = JSON.stringify(this.current);
  }

  view(): DashboardView {
    return this.current;
  }

  subscribe(listener: (v: DashboardView) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.refresh();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Poll now (after an action, so its effect shows at once); resolves when the view is updated.
   * A poll already under way may have been answered before the action: one more follows it.
   */
  refresh(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      do {
        this.again = false;
        await this.poll();
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.inFlight = null;
      this.schedule();
    });
    return this.inFlight;
  }

  /** Start the daemon from here (the "s" key, or once by itself); the view says how it went. */
  async startDaemon(): Promise<void> {
    if (!this.opts.startDaemon || this.starting) return;
    this.starting = true;
    this.startError = null;
    this.publish(this.downView());
    try {
      await this.opts.startDaemon();
    } catch (err) {
      this.startError = err instanceof Error ? err.message : String(err);
    } finally {
      this.starting = false;
    }
    await this.refresh();
  }

  private schedule(): void {
    if (this.stopped) return;
    const ms = this.current.kind === 'up' ? (this.opts.intervalMs ?? 2000) : (this.opts.downIntervalMs ?? 1000);
    this.timer = setTimeout(() => void this.refresh(), ms);
    this.timer.unref?.();
  }

  private async poll(): Promise<void> {
    let raw: unknown;
    try {
      raw = await this.opts.client.status({ cwd: this.opts.cwd });
    } catch (err) {
      this.onDown(err);
      return;
    }
    const s = readStatus(raw);
    const now = this.clock();
    const id = `${s.daemon.pid}@${s.daemon.started_at}`;
    if (this.identity && this.identity.id !== id) this.notice = { text: `daemon restarted (pid ${this.identity.pid} → ${s.daemon.pid})`, until: now + NOTICE_MS };
    else if (this.downSince !== null && this.identity) this.notice = { text: 'reconnected to the daemon', until: now + NOTICE_MS };
    this.identity = { id, pid: s.daemon.pid, version: s.daemon.version, home: s.daemon.home };
    this.downSince = null;
    this.lastDown = null;
    this.startError = null;
    this.embedPeak = s.model.backlog > 0 ? Math.max(this.embedPeak, s.model.backlog) : 0;
    if (this.notice && this.notice.until <= now) this.notice = null;
    this.publish({ kind: 'up', model: dashboardModel(s, now, this.embedPeak), notice: this.notice?.text ?? null });
  }

  private onDown(err: unknown): void {
    const unreachable = err instanceof DaemonUnreachableError || (err as { code?: string } | null)?.code === 'DAEMON_UNREACHABLE';
    const message = unreachable
      ? 'The memory daemon is not running.'
      : err instanceof DaemonApiError
        ? `The daemon answered with an error: ${err.message}`
        : `The daemon is not answering: ${err instanceof Error ? err.message : String(err)}`;
    this.downSince ??= this.clock();
    this.lastDown = { reason: unreachable ? 'unreachable' : 'error', message };
    if (unreachable && this.identity === null && !this.autoStarted && this.opts.startDaemon && (this.opts.autoStart ?? true)) {
      this.autoStarted = true;
      void this.startDaemon();
      return;
    }
    this.publish(this.downView());
  }

  private downView(): DashboardView {
    // Starting a daemon that was never seen is how a first run begins, not a failure.
    if (!this.lastDown || (this.starting && !this.identity)) return { kind: 'connecting', socket: this.opts.client.socketPath, starting: this.starting };
    const now = this.clock();
    return {
      kind: 'down',
      down: {
        reason: this.lastDown.reason,
        message: this.lastDown.message,
        socket: this.opts.client.socketPath,
        downFor: formatDuration(((now - (this.downSince ?? now)) / 1000)),
        lastSeen: this.identity ? `pid ${this.identity.pid}, version ${this.identity.version}` : null,
        logFile: this.identity?.home ? `${this.identity.home}/logs/daemon.log` : null,
        retryEvery: formatDuration((this.opts.downIntervalMs ?? 1000) / 1000),
        starting: this.starting,
        startError: this.startError,
      },
    };
  }

  private publish(view: DashboardView): void {
    const key = JSON.stringify(view);
    if (key === this.key) return;
    this.key = key;
    this.current = view;
    for (const l of this.listeners) l(view);
  }
}
