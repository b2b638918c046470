/**
 * The wire contract between a machine's sync loop and a /v1 server (docs/api.md, "Sync"), behind
 * a small interface so the loop never sees HTTP. `HttpTransport` is the real one.
 */
import type { ExportLine } from '../engine/index.js';

/** What the server made of one pushed version. */
export interface PushResult {
  version_id: string | null;
  memory_id: string | null;
  status: 'accepted' | 'exists' | 'rejected' | 'purged';
  version?: number;
  tx?: number;
  recorded_at?: string;
  owner_id?: string | null;
  error?: { code: string; message: string };
}

/** One event of `GET /v1/events` (memory events carry the full version record as `data`). */
export interface FeedEvent {
  event_id: string;
  seq: number;
  type: string;
  memory_id?: string;
  data: unknown;
}

export interface FeedPage {
  results: FeedEvent[];
  next_after: number;
  has_more: boolean;
  last_seq: number;
}

export interface VerifyInfo {
  valid: boolean;
  key_id: string;
  org_id: string;
  project_id: string;
  member_id: string;
  scopes: string[];
}

export interface SyncTransport {
  /** `<base url>` the transport talks to (part of the cursors' identity). */
  readonly baseUrl: string;
  verify(): Promise<VerifyInfo>;
  push(versions: readonly ExportLine[]): Promise<PushResult[]>;
  events(after: number, limit: number): Promise<FeedPage>;
  /** Erase a memory on the server: `purged`, or `absent` when the key sees no such memory. */
  purge(memoryId: string): Promise<'purged' | 'absent'>;
  /** Bytes of request and response bodies so far. */
  readonly bytes: { sent: number; received: number };
  /** Abort requests in flight and drop pooled connections. */
  close(): Promise<void>;
}

/**
 * How a failed request affects the loop:
 * - `transient`: the network, a timeout, 408/429/5xx — retry the same work later, with backoff.
 * - `permanent`: the server refused this content for good (400, 403, 409, 422) — park it.
 * - `too_large`: 413 — send less at once; a single version that is too large is parked.
 * - `blocked`: nothing can work until someone acts (401: bad key; 404 for the route: an older
 *   server) — stop and say so in status, retry slowly.
 */
export type FailureKind = 'transient' | 'permanent' | 'too_large' | 'blocked';

export class SyncRequestError extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly code: string,
    message: string,
    readonly status: number | null = null,
    /** Server's Retry-After, ms. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'SyncRequestError';
  }
}

/** Classify an HTTP error status. */
export function kindOfStatus(status: number): FailureKind {
  if (status === 401) return 'blocked';
  if (status === 413) return 'too_large';
  if (status === 408 || status === 429 || status >= 500) return 'transient';
  return 'permanent';
}
