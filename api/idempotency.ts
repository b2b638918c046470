/**
 * `Idempotency-Key` on writes: the first response for a key is kept (24 h) and replayed for
 * retries with the same body; the same key with a different body is a 409. A retry that arrives
 * while the first request is still running waits for its result instead of writing twice.
 */
import { createHash } from 'node:crypto';
import { httpError } from './http-error.js';

export interface StoredResponse {
  status: number;
  body: unknown;
}

interface Entry {
  fingerprint: string;
  expires: number;
  result: Promise<StoredResponse>;
  /** The response as JSON once it is known (what `erase` looks into). */
  text?: string;
}

/** Idempotency keys longer than this are refused. */
export const MAX_IDEMPOTENCY_KEY = 255;
const TTL_MS = 24 * 3600_000;

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly maxEntries = 10_000) {}

  /**
   * Run `fn` once per (scope, key). Returns the response and whether it was replayed.
   * A failed `fn` is not remembered, so the client may retry it.
   */
  async run(scope: string, key: string, body: unknown, fn: () => Promise<StoredResponse>): Promise<StoredResponse & { replayed: boolean }> {
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
      throw httpError('INVALID_REQUEST', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`, { header: 'Idempotency-Key' });
    }
    const now = Date.now();
    const id = `${scope}\u0000${key}`;
    const fingerprint = createHash('sha256').update(JSON.stringify(body ?? null)).digest('hex');
    const existing = this.entries.get(id);
    if (existing && existing.expires > now) {
      if (existing.fingerprint !== fingerprint) {
        throw httpError('CONFLICT', 'this Idempotency-Key was already used with a different request body; use a new key', { header: 'Idempotency-Key' });
      }
      return { ...(await existing.result), replayed: true };
    }
    const result = fn();
    const entry: Entry = { fingerprint, expires: now + TTL_MS, result };
    this.entries.set(id, entry);
    result.then(
      (r) => (entry.text = JSON.stringify(r.body ?? null)),
      () => this.entries.delete(id),
    );
    this.evict(now);
    return { ...(await result), replayed: false };
  }

  /**
   * Forget every kept response that names one of these (purged) memories, so a retry can never
   * replay erased content. Returns how many were dropped. Each store's one erasure method.
   */
  async erase(memoryIds: readonly string[]): Promise<number> {
    let n = 0;
    for (const [k, e] of this.entries) {
      if (e.text !== undefined && memoryIds.some((id) => e.text!.includes(id))) {
        this.entries.delete(k);
        n++;
      }
    }
    return n;
  }

  private evict(now: number): void {
    if (this.entries.size <= this.maxEntries) return;
    for (const [k, e] of this.entries) {
      if (e.expires <= now || this.entries.size > this.maxEntries) this.entries.delete(k);
      if (this.entries.size <= this.maxEntries) break;
    }
  }
}
