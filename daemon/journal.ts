/**
 * The capture journal: an append-only log of (already redacted) hook events, fsync'd before the
 * capture request is answered, so nothing acknowledged is lost even on `kill -9`.
 *
 * Appends arriving while a write is in flight are group-committed: one write and one fsync for
 * the whole group. Segments roll over at `segmentBytes`; a segment whose entries are all flushed
 * is deleted. On start the journal is scanned, a torn last line (crash mid-write) is dropped, and
 * entries are replayed to whoever was not done with them.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface JournalEntry {
  /** Journal sequence number: increasing, never reused. */
  j: number;
  /** Received at (epoch ms). */
  t: number;
  /** Session id. */
  s: string;
  /** Hook event name. */
  e: string;
  /** Redacted payload. */
  p: Record<string, unknown>;
}

export interface JournalOptions {
  dir: string;
  /** @default 4 MiB */
  segmentBytes?: number;
}

interface Pending {
  line: string;
  resolve: () => void;
  reject: (e: unknown) => void;
}

const SEGMENT_RE = /^(\d{12})\.jnl$/;

export class Journal {
  private fd: number | null = null;
  private segment = '';
  private segmentSize = 0;
  private nextJ = 1;
  private queue: Pending[] = [];
  private writing = false;
  private readonly segmentBytes: number;

  constructor(private readonly opts: JournalOptions) {
    this.segmentBytes = opts.segmentBytes ?? 4 * 1024 * 1024;
  }

  /** Open for appending and return every entry still on disk, oldest first. */
  open(): JournalEntry[] {
    fs.mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    const entries: JournalEntry[] = [];
    for (const file of this.segments()) {
      const full = path.join(this.opts.dir, file);
      const text = fs.readFileSync(full, 'utf8');
      const lines = text.split('\n');
      let goodBytes = 0;
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        const isLast = i === lines.length - 1;
        if (line === '') {
          if (!isLast) goodBytes += 1;
          continue;
        }
        try {
          const e = JSON.parse(line) as JournalEntry;
          if (isLast) break; // no newline yet: a write torn by a crash; it was never acknowledged
          entries.push(e);
          this.nextJ = Math.max(this.nextJ, e.j + 1);
          goodBytes += Buffer.byteLength(line) + 1;
        } catch {
          break;
        }
      }
      if (goodBytes < Buffer.byteLength(text)) fs.truncateSync(full, goodBytes);
    }
    this.roll();
    return entries;
  }

  private segments(): string[] {
    return fs
      .readdirSync(this.opts.dir)
      .filter((f) => SEGMENT_RE.test(f))
      .sort();
  }

  private roll(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.segment = `${String(this.nextJ).padStart(12, '0')}.jnl`;
    const full = path.join(this.opts.dir, this.segment);
    this.fd = fs.openSync(full, 'a', 0o600);
    this.segmentSize = fs.fstatSync(this.fd).size;
    const dirFd = fs.openSync(this.opts.dir, 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  }

  /** Append an event; resolves once it is on disk (fsync'd). */
  append(entry: Omit<JournalEntry, 'j'>): Promise<JournalEntry> {
    const full: JournalEntry = { j: this.nextJ++, ...entry };
    const line = JSON.stringify(full) + '\n';
    return new Promise<JournalEntry>((resolve, reject) => {
      this.queue.push({ line, resolve: () => resolve(full), reject });
      if (!this.writing) this.drain();
    });
  }

  private drain(): void {
    this.writing = true;
    setImmediate(() => {
      const batch = this.queue;
      this.queue = [];
      try {
        if (this.fd === null) throw new Error('journal is closed');
        if (this.segmentSize > this.segmentBytes) this.roll();
        const text = batch.map((p) => p.line).join('');
        fs.writeSync(this.fd!, text);
        fs.fsyncSync(this.fd!);
        this.segmentSize += Buffer.byteLength(text);
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
      if (this.queue.length > 0) this.drain();
      else this.writing = false;
    });
  }

  /**
   * Delete closed segments whose every entry satisfies `done` (flushed). The active segment is
   * kept. Returns the number of segments removed.
   */
  compact(done: (e: JournalEntry) => boolean): number {
    let removed = 0;
    for (const file of this.segments()) {
      if (file === this.segment) continue;
      const full = path.join(this.opts.dir, file);
      const entries = fs
        .readFileSync(full, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => {
          try {
            return JSON.parse(l) as JournalEntry;
          } catch {
            return null;
          }
        });
      if (entries.every((e) => e === null || done(e))) {
        fs.rmSync(full, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Bytes and segment count on disk. */
  stats(): { segments: number; bytes: number; next: number } {
    let bytes = 0;
    const segs = this.segments();
    for (const f of segs) bytes += fs.statSync(path.join(this.opts.dir, f)).size;
    return { segments: segs.length, bytes, next: this.nextJ };
  }

  /** Wait for queued appends, then close. */
  async close(): Promise<void> {
    while (this.writing || this.queue.length > 0) await new Promise((r) => setTimeout(r, 5));
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
