/**
 * Anonymous usage telemetry (SPEC §6.4). The daemon is the only recorder: it times its own routes
 * (hooks, recall, search, remember) and takes the CLI's command outcomes over its socket, keeps the
 * events in a small bounded spool (`<home>/telemetry/spool.json`), and sends them in batches of
 * at most 100 to `${SERVICE_BASE_URL}/v1/telemetry`: every minute, when 100 are waiting, and when
 * it stops.
 *
 * Nothing is recorded, written or sent unless telemetry is on (SERVICE_TELEMETRY, DO_NOT_TRACK)
 * and a server is configured: `createTelemetry` returns null and no file is created.
 *
 * What one event holds, exactly the server's intake schema (server/telemetry-routes.ts): `event`
 * (a dotted name such as search.repo), `plugin_version`, `runtime` {node, os, arch},
 * `duration_ms`, `error_class` (an error class or HTTP status such as HTTP_422), and `install_id`
 * (a random UUID made once, in `<home>/telemetry/install-id`). Never content, queries, paths,
 * repository names, session ids or user ids.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Agent } from 'undici';
import { loadUndici, type Config, type Logger } from '../engine/index.js';
import { readState, writeState } from './state-file.js';

export interface TelemetryEvent {
  event: string;
  plugin_version: string;
  runtime: { node: string; os: string; arch: string };
  duration_ms?: number;
  error_class?: string;
  install_id: string;
}

export interface TelemetryState {
  pending: TelemetryEvent[];
  sent_total: number;
  dropped_total: number;
  last_sent_at: string | null;
  last_error: { at: string; message: string } | null;
}

export const EVENT_NAME = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;
export const ERROR_CLASS = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Events kept while the server cannot be reached; past it the oldest are dropped (and counted). */
const SPOOL_MAX = 1000;
/** The server's batch limit (TELEMETRY_BATCH_MAX). */
const BATCH_MAX = 100;
const SEND_EVERY_MS = 60_000;
/** Per phase (connect, headers, body) of one send. */
const SEND_TIMEOUT_MS = 5000;
/** How long a stopping daemon waits for its last send. */
const CLOSE_WAIT_MS = 3000;

/** Where telemetry keeps its files. */
function telemetryFiles(home: string): { dir: string; spool: string; installId: string } {
  const dir = path.join(home, 'telemetry');
  return { dir, spool: path.join(dir, 'spool.json'), installId: path.join(dir, 'install-id') };
}

export function readTelemetryState(home: string): TelemetryState | null {
  const file = telemetryFiles(home).spool;
  return fs.existsSync(file) ? readState<TelemetryState | null>(file, null) : null;
}

export interface TelemetryOptions {
  home: string;
  baseUrl: string;
  apiKey: string;
  version: string;
  logger: Logger;
}

export class Telemetry {
  private readonly files: ReturnType<typeof telemetryFiles>;
  private readonly state: TelemetryState;
  private readonly installId: string;
  private readonly timer: NodeJS.Timeout;
  private agentInstance: Agent | null = null;

  /** The HTTP agent, made (and undici loaded) on the first send. */
  private agent(): Agent {
    this.agentInstance ??= new (loadUndici().Agent)({ connect: { timeout: SEND_TIMEOUT_MS } });
    return this.agentInstance;
  }
  private sending: Promise<void> | null = null;

  constructor(private readonly opts: TelemetryOptions) {
    this.files = telemetryFiles(opts.home);
    this.state = readState<TelemetryState>(this.files.spool, { pending: [], sent_total: 0, dropped_total: 0, last_sent_at: null, last_error: null });
    this.installId = this.loadInstallId();
    this.timer = setInterval(() => void this.send(), SEND_EVERY_MS);
    this.timer.unref();
  }

  private loadInstallId(): string {
    try {
      const id = fs.readFileSync(this.files.installId, 'utf8').trim();
      if (/^[0-9a-f-]{36}$/i.test(id)) return id;
    } catch {
      // first event on this machine
    }
    const id = randomUUID();
    fs.mkdirSync(this.files.dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(this.files.installId, id, { mode: 0o600 });
    return id;
  }

  /** Record one event. Names and error classes the intake would refuse are dropped here. */
  record(event: string, fields: { duration_ms?: number | undefined; error_class?: string | undefined } = {}): void {
    if (event.length > 64 || !EVENT_NAME.test(event)) return;
    const e: TelemetryEvent = { event, plugin_version: this.opts.version, runtime: { node: process.version, os: process.platform, arch: process.arch }, install_id: this.installId };
    if (fields.duration_ms !== undefined) e.duration_ms = Math.min(86_400_000, Math.max(0, Math.round(fields.duration_ms * 10) / 10));
    if (fields.error_class !== undefined && ERROR_CLASS.test(fields.error_class)) e.error_class = fields.error_class;
    this.state.pending.push(e);
    if (this.state.pending.length > SPOOL_MAX) this.state.dropped_total += this.state.pending.splice(0, this.state.pending.length - SPOOL_MAX).length;
    if (this.state.pending.length >= BATCH_MAX) void this.send();
  }

  /** Send what is waiting, batch by batch; what fails stays spooled for the next attempt. */
  send(): Promise<void> {
    this.sending ??= this.sendAll().finally(() => {
      this.sending = null;
      this.persist();
    });
    return this.sending;
  }

  private async sendAll(): Promise<void> {
    while (this.state.pending.length > 0) {
      const batch = this.state.pending.slice(0, BATCH_MAX);
      const status = await this.post(batch);
      if (status >= 200 && status < 300) {
        this.state.pending.splice(0, batch.length);
        this.state.sent_total += batch.length;
        this.state.last_sent_at = new Date().toISOString();
        this.state.last_error = null;
        continue;
      }
      // A batch the server refuses as invalid will never pass: drop it rather than retry forever.
      if (status === 400 || status === 413 || status === 422) this.state.dropped_total += this.state.pending.splice(0, batch.length).length;
      const hint = status === 401 || status === 403 ? ': check SERVICE_API_KEY with GET /api/v1/verify (service plugin status does)' : '';
      this.state.last_error = { at: new Date().toISOString(), message: status === 0 ? 'the server could not be reached' : `the server answered ${status}${hint}` };
      this.opts.logger.warn('telemetry not sent', { status });
      return;
    }
  }

  /** POST one batch; the HTTP status, or 0 when there was no answer. */
  private async post(events: TelemetryEvent[]): Promise<number> {
    try {
      const res = await loadUndici().request(`${this.opts.baseUrl}/v1/telemetry`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}) },
        body: JSON.stringify({ events }),
        dispatcher: this.agent(),
        headersTimeout: SEND_TIMEOUT_MS,
        bodyTimeout: SEND_TIMEOUT_MS,
      });
      await res.body.dump();
      return res.statusCode;
    } catch {
      return 0;
    }
  }

  private persist(): void {
    try {
      writeState(this.files.spool, this.state);
    } catch (err) {
      this.opts.logger.warn('telemetry spool not written', { err });
    }
  }

  /** Stop the timer and make a last, bounded attempt to send; what is not sent stays spooled. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.send(), new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    this.persist();
    await this.agentInstance?.destroy().catch(() => {});
  }
}

/** A recorder when telemetry is on and a server is configured; otherwise null (nothing happens). */
export function createTelemetry(config: Config, version: string, logger: Logger): Telemetry | null {
  if (!config.telemetry || !config.baseUrl) return null;
  return new Telemetry({ home: config.home, baseUrl: config.baseUrl, apiKey: config.apiKey, version, logger: logger.child('telemetry') });
}
