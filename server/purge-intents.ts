/**
 * Purges in flight, recorded before the store erases anything so that a purge a crash cut off is
 * completed (store, job stores, feed) the next time someone looks. Embedded: a file in the
 * project's `events/` directory, read when the project opens. PostgreSQL: rows shared by every
 * replica (PgPurgeIntents), so a purge one replica left half done is completed by another.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readJson, writeAtomic } from './atomic-file.js';

export interface PurgeIntents {
  /** Record that these memories are being purged; call before the store erases any of them. */
  add(memoryIds: readonly string[]): Promise<void>;
  /** Their purge is complete: store, job stores and feed. */
  done(memoryIds: readonly string[]): Promise<void>;
  /** Memories whose purge was begun and not completed (by this process or, shared, any other), begun at least `olderThanMs` ago. */
  pending(olderThanMs?: number): Promise<string[]>;
  /** Seen by every replica (true), or by this process only. */
  readonly shared: boolean;
}

/** The embedded intents: `purge-intent.json`, replaced atomically on every change. */
export class FilePurgeIntents implements PurgeIntents {
  readonly shared = false;
  private readonly file: string;
  private readonly inflight: Set<string>;

  constructor(dir: string) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = path.join(dir, 'purge-intent.json');
    this.inflight = new Set(readJson<{ memory_ids?: string[] }>(this.file, {}).memory_ids ?? []);
  }

  async add(memoryIds: readonly string[]): Promise<void> {
    for (const id of memoryIds) this.inflight.add(id);
    writeAtomic(this.file, JSON.stringify({ memory_ids: [...this.inflight] }));
  }

  async done(memoryIds: readonly string[]): Promise<void> {
    for (const id of memoryIds) this.inflight.delete(id);
    if (this.inflight.size === 0) fs.rmSync(this.file, { force: true });
    else writeAtomic(this.file, JSON.stringify({ memory_ids: [...this.inflight] }));
  }

  async pending(): Promise<string[]> {
    return [...this.inflight];
  }
}
