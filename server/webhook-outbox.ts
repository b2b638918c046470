/**
 * The durable outbox of webhook deliveries for one project: an append-only journal
 * (`webhooks/deliveries.ndjson`) of delivery snapshots, replayed at open (the last snapshot of
 * each delivery wins), group-committed with fdatasync, and compacted when it holds many stale
 * snapshots. `fanout.json` remembers the last event seq whose deliveries are durable, so events
 * recorded but not yet fanned out before a crash get their deliveries at the next start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readJson, syncDir, writeAtomic } from './atomic-file.js';
import { ndjsonLines } from './ndjson-lines.js';

export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  /** HTTP status of the answer, or null when there was none (timeout, refused, reset). */
  status_code: number | null;
  error: string | null;
}

export interface Delivery {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  /** Seq of the event delivered; null for test deliveries. */
  event_seq: number | null;
  type: string;
  status: DeliveryStatus;
  attempts: Attempt[];
  /** When the next attempt is due (PENDING only). */
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
  test: boolean;
}

/** Finished deliveries kept per webhook (older ones are dropped at compaction). */
export const KEPT_PER_WEBHOOK = 1000;

export class DeliveryOutbox {
  private readonly byId = new Map<string, Delivery>();
  private readonly pendingIds = new Set<string>();
  private readonly keys = new Set<string>();
  private queue: string[] = [];
  private journalLines = 0;
  private fh: fs.promises.FileHandle | null = null;
  private writing: Promise<void> | null = null;
  private cursor: number;
  private readonly journal: string;
  private readonly cursorFile: string;

  private constructor(dir: string) {
    this.journal = path.join(dir, 'deliveries.ndjson');
    this.cursorFile = path.join(dir, 'fanout.json');
    this.cursor = readJson<{ seq: number }>(this.cursorFile, { seq: 0 }).seq;
  }

  static async open(dir: string): Promise<DeliveryOutbox> {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const o = new DeliveryOutbox(dir);
    let end = 0;
    for await (const l of ndjsonLines(o.journal)) {
      if (!l.complete) break;
      o.remember(JSON.parse(l.text) as Delivery);
      o.journalLines++;
      end = l.offset + l.length + 1;
    }
    o.fh = await fs.promises.open(o.journal, 'a+', 0o600);
    if ((await o.fh.stat()).size > end) await o.fh.truncate(end);
    return o;
  }

  private remember(d: Delivery): void {
    this.byId.set(d.delivery_id, d);
    this.keys.add(`${d.webhook_id}:${d.event_id}`);
    if (d.status === 'PENDING') this.pendingIds.add(d.delivery_id);
    else this.pendingIds.delete(d.delivery_id);
  }

  /** Last event seq whose deliveries are durable. */
  get fannedOut(): number {
    return this.cursor;
  }

  /** Record that deliveries of events up to `seq` are durable (call after `flush`). */
  setFannedOut(seq: number): void {
    if (seq <= this.cursor) return;
    this.cursor = seq;
    writeAtomic(this.cursorFile, JSON.stringify({ seq }));
  }

  has(webhookId: string, eventId: string): boolean {
    return this.keys.has(`${webhookId}:${eventId}`);
  }

  get(id: string): Delivery | undefined {
    return this.byId.get(id);
  }

  pending(): Delivery[] {
    return [...this.pendingIds].map((id) => this.byId.get(id)!);
  }

  /** Deliveries of one webhook, newest first. */
  forWebhook(webhookId: string): Delivery[] {
    return [...this.byId.values()].filter((d) => d.webhook_id === webhookId).sort((a, b) => (a.delivery_id < b.delivery_id ? 1 : -1));
  }

  /** Store a new or changed delivery; durable after the next group commit (see `flush`). */
  put(d: Delivery): void {
    this.remember(d);
    this.queue.push(JSON.stringify(d));
    void this.write().catch(() => {});
  }

  /** Webhooks that have deliveries here. */
  webhookIds(): Set<string> {
    return new Set([...this.byId.values()].map((d) => d.webhook_id));
  }

  /** Forget a deleted webhook's deliveries (pending ones stop; compaction drops them from disk). */
  removeWebhook(webhookId: string): void {
    for (const d of this.forWebhook(webhookId)) {
      this.byId.delete(d.delivery_id);
      this.pendingIds.delete(d.delivery_id);
      this.keys.delete(`${d.webhook_id}:${d.event_id}`);
    }
  }

  /** Resolves once every `put` so far is on disk. */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.writing) await this.write();
  }

  private write(): Promise<void> {
    this.writing ??= (async () => {
      await new Promise((r) => setImmediate(r));
      try {
        while (this.queue.length > 0) {
          const lines = this.queue.splice(0);
          const fh = this.fh;
          if (!fh) throw new Error('the delivery outbox is closed');
          try {
            await fh.write(lines.join('\n') + '\n');
            await fh.datasync();
          } catch (err) {
            this.queue.unshift(...lines);
            throw err;
          }
          this.journalLines += lines.length;
        }
        if (this.journalLines > 2 * this.byId.size + 1000) await this.compact();
      } finally {
        this.writing = null;
      }
    })();
    return this.writing;
  }

  /** Rewrite the journal with one snapshot per kept delivery, dropping the oldest finished ones. */
  private async compact(): Promise<void> {
    const perHook = new Map<string, Delivery[]>();
    for (const d of this.byId.values()) perHook.set(d.webhook_id, [...(perHook.get(d.webhook_id) ?? []), d]);
    for (const list of perHook.values()) {
      const finished = list.filter((d) => d.status !== 'PENDING').sort((a, b) => (a.delivery_id < b.delivery_id ? 1 : -1));
      for (const d of finished.slice(KEPT_PER_WEBHOOK)) this.byId.delete(d.delivery_id);
    }
    const tmp = `${this.journal}.compact`;
    const text = [...this.byId.values()].map((d) => JSON.stringify(d) + '\n').join('');
    const out = await fs.promises.open(tmp, 'w', 0o600);
    try {
      await out.write(text);
      await out.sync();
    } finally {
      await out.close();
    }
    await fs.promises.rename(tmp, this.journal);
    syncDir(path.dirname(this.journal));
    const old = this.fh;
    this.fh = await fs.promises.open(this.journal, 'a+', 0o600);
    await old?.close();
    this.journalLines = this.byId.size;
  }

  async close(): Promise<void> {
    await this.flush().catch(() => {});
    await this.fh?.close();
    this.fh = null;
  }
}
