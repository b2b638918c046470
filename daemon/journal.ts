/**
 * The capture journal: an append-only log of (already redacted) hook events, fsync'd before the
 * capture request is answered, so nothing acknowledged is lost even on `kill -9`.
 *
 * Appends arriving while a write is in flight are group-committed: one write and one fsync for
 * the whole group. A write is complete or refused: short writes are continued until every byte is
 * down; a write or fsync that fails (full disk, read-only file) cuts the segment back to where the
 * group began and rejects every append of the group, so no torn line is ever acknowledged, and the
 * next group goes to a fresh segment when the cut itself failed.
 *
 * Sequence numbers never repeat for a journal dir: the highest one handed out survives in
 * `next.seq` whenever a segment is deleted, and the caller may raise the floor (the daemon passes
 * the highest seq its sessions flushed).
 *
 * Segments roll over at `segmentBytes`; a segment whose entries are all flushed is deleted, the
 * active one included (it is replaced by an empty one), so flushed events leave the disk at once.
 * Only segments this instance opened or wrote are ever deleted. On open every segment is read
 * line by line: a damaged line is skipped (and reported in `damage`) while the lines after it are
 * kept; a torn last line (a crash mid-write, never acknowledged) is cut off.
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
  /** The hook's capture id, when it sent one (an event sent twice is journaled once). */
  c?: string;
}

/** What compaction needs to know of an entry (payloads are not kept in memory). */
export type JournalRef = Pick<JournalEntry, 'j' | 's'>;

export interface JournalOptions {
  dir: string;
  /** @default 4 MiB */
  segmentBytes?: number;
  /** Test seam: the write primitive (a short or failing write is what a full disk does). @default fs.writeSync */
  write?: (fd: number, buf: Buffer, offset: number, length: number) => number;
  /** Test seam: the fsync primitive. @default fs.fsyncSync */
  fsync?: (fd: number) => void;
}

/** A line that could not be read on open: skipped, the lines after it kept. */
export interface JournalDamage {
  segment: string;
  /** 1-based line number in the segment. */
  line: number;
  bytes: number;
  /** `damaged`: unreadable in the middle of a segment; `torn`: an unterminated last line (cut off). */
  kind: 'damaged' | 'torn';
}

/** Why an append was refused. */
export class JournalWriteError extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = 'JournalWriteError';
  }
}

interface Pending {
  line: string;
  ref: JournalRef;
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface Segment {
  name: string;
  refs: JournalRef[];
}

const SEGMENT_RE = /^(\d{12})\.jnl$/;
const SEQ_FILE = 'next.seq';

function validEntry(v: unknown): v is JournalEntry {
  if (!v || typeof v !== 'object') return false;
  const e = v as Record<string, unknown>;
  return Number.isSafeInteger(e.j) && (e.j as number) > 0 && typeof e.s === 'string' && typeof e.e === 'string' && typeof e.t === 'number' && !!e.p && typeof e.p === 'object';
}

function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export class Journal {
  private fd: number | null = null;
  private active: Segment | null = null;
  /** Closed segments this instance knows (opened or written), oldest first. */
  private closed: Segment[] = [];
  private segmentSize = 0;
  private nextJ = 1;
  private queue: Pending[] = [];
  private writing = false;
  /** The last write failed and its cut could not be made: the next group starts a new segment. */
  private mustRoll = false;
  private readonly segmentBytes: number;
  private readonly write: NonNullable<JournalOptions['write']>;
  private readonly fsync: NonNullable<JournalOptions['fsync']>;
  /** Lines skipped or cut by the last open. */
  damage: JournalDamage[] = [];
  /** The last refused write, until a write succeeds again. */
  lastWriteError: { at: string; message: string; code: string | null } | null = null;

  constructor(private readonly opts: JournalOptions) {
    this.segmentBytes = opts.segmentBytes ?? 4 * 1024 * 1024;
    this.write = opts.write ?? ((fd, buf, off, len) => fs.writeSync(fd, buf, off, len));
    this.fsync = opts.fsync ?? ((fd) => fs.fsyncSync(fd));
  }

  /**
   * Open for appending and return every entry still on disk, oldest first (each seq once).
   * `floor`: seqs below it are taken (the daemon passes one past the highest seq it flushed).
   */
  open(floor = 1): JournalEntry[] {
    fs.mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    this.damage = [];
    this.closed = [];
    this.nextJ = Math.max(1, floor, this.readSeqFile());
    // A rewrite cut off by a crash (scrub) leaves a temp copy that may hold erased text.
    for (const f of fs.readdirSync(this.opts.dir)) if (f.endsWith('.scrub.tmp')) fs.rmSync(path.join(this.opts.dir, f), { force: true });
    const entries: JournalEntry[] = [];
    const seen = new Set<number>();
    for (const file of this.segmentFiles()) {
      this.nextJ = Math.max(this.nextJ, Number(SEGMENT_RE.exec(file)![1]));
      const seg: Segment = { name: file, refs: [] };
      for (const e of this.readSegment(file)) {
        this.nextJ = Math.max(this.nextJ, e.j + 1);
        if (seen.has(e.j)) continue;
        seen.add(e.j);
        entries.push(e);
        seg.refs.push({ j: e.j, s: e.s });
      }
      this.closed.push(seg);
    }
    entries.sort((a, b) => a.j - b.j);
    this.roll();
    return entries;
  }

  /** The entries of one segment; damaged lines are recorded and skipped, a torn tail is cut. */
  private readSegment(file: string): JournalEntry[] {
    const full = path.join(this.opts.dir, file);
    const buf = fs.readFileSync(full);
    const out: JournalEntry[] = [];
    let pos = 0;
    let lineNo = 0;
    while (pos < buf.length) {
      lineNo++;
      const nl = buf.indexOf(0x0a, pos);
      if (nl < 0) {
        // No newline: a write cut by a crash (it was never acknowledged). Cut it off.
        this.damage.push({ segment: file, line: lineNo, bytes: buf.length - pos, kind: 'torn' });
        fs.truncateSync(full, pos);
        break;
      }
      const text = buf.subarray(pos, nl).toString('utf8');
      pos = nl + 1;
      if (text.trim() === '') continue;
      let v: unknown = null;
      try {
        v = JSON.parse(text);
      } catch {
        v = null;
      }
      if (validEntry(v)) out.push(v);
      else this.damage.push({ segment: file, line: lineNo, bytes: Buffer.byteLength(text), kind: 'damaged' });
    }
    return out;
  }

  private segmentFiles(): string[] {
    return fs
      .readdirSync(this.opts.dir)
      .filter((f) => SEGMENT_RE.test(f))
      .sort();
  }

  private readSeqFile(): number {
    try {
      const n = Number(fs.readFileSync(path.join(this.opts.dir, SEQ_FILE), 'utf8').trim());
      return Number.isSafeInteger(n) && n > 0 ? n : 1;
    } catch {
      return 1;
    }
  }

  /** Record the next seq durably (before segments holding the highest seqs may go). */
  private writeSeqFile(): void {
    const file = path.join(this.opts.dir, SEQ_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      fs.writeSync(fd, String(this.nextJ));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  }

  /**
   * Start a new active segment named after the next seq; the old one joins the closed ones. The
   * new file is opened before anything changes, so a failure leaves the journal as it was.
   */
  private roll(): void {
    const name = `${String(this.nextJ).padStart(12, '0')}.jnl`;
    const fd = fs.openSync(path.join(this.opts.dir, name), 'a', 0o600);
    try {
      fsyncDir(this.opts.dir);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    if (this.fd !== null) fs.closeSync(this.fd);
    if (this.active && this.active.name !== name) this.closed.push(this.active);
    // A segment of that name already known (an empty one from before) is reused, not duplicated.
    const known = this.closed.findIndex((s) => s.name === name);
    this.active = known >= 0 ? this.closed.splice(known, 1)[0]! : this.active?.name === name ? this.active : { name, refs: [] };
    this.fd = fd;
    this.segmentSize = fs.fstatSync(fd).size;
  }

  /** Append an event; resolves once it is on disk (fsync'd), rejects with JournalWriteError if it could not be. */
  append(entry: Omit<JournalEntry, 'j'>): Promise<JournalEntry> {
    const full: JournalEntry = { j: this.nextJ++, ...entry };
    const line = JSON.stringify(full) + '\n';
    return new Promise<JournalEntry>((resolve, reject) => {
      this.queue.push({ line, ref: { j: full.j, s: full.s }, resolve: () => resolve(full), reject });
      if (!this.writing) this.drain();
    });
  }

  private drain(): void {
    this.writing = true;
    setImmediate(() => {
      const batch = this.queue;
      this.queue = [];
      this.commit(batch);
      if (this.queue.length > 0) this.drain();
      else this.writing = false;
    });
  }

  /** Write and fsync one group, or refuse all of it leaving no trace of it in the segment. */
  private commit(batch: Pending[]): void {
    const buf = Buffer.from(batch.map((p) => p.line).join(''), 'utf8');
    let start = this.segmentSize;
    try {
      if (this.fd === null) throw new Error('journal is closed');
      if (this.mustRoll || this.segmentSize > this.segmentBytes) {
        this.roll();
        this.mustRoll = false;
        start = this.segmentSize;
      }
      const fd = this.fd!;
      let off = 0;
      while (off < buf.length) {
        const n = this.write(fd, buf, off, buf.length - off);
        if (n <= 0) throw Object.assign(new Error('the journal write made no progress'), { code: 'EIO' });
        off += n;
      }
      this.fsync(fd);
    } catch (err) {
      this.refuse(batch, start, err);
      return;
    }
    this.segmentSize = start + buf.length;
    for (const p of batch) this.active!.refs.push(p.ref);
    this.lastWriteError = null;
    for (const p of batch) p.resolve();
  }

  private refuse(batch: Pending[], start: number, err: unknown): void {
    const code = (err as NodeJS.ErrnoException)?.code ?? null;
    const reason = err instanceof Error ? err.message : String(err);
    // Cut the segment back to where this group began, so nothing of it is read back later.
    try {
      if (this.fd !== null) {
        fs.ftruncateSync(this.fd, start);
        this.segmentSize = start;
      }
    } catch {
      this.mustRoll = true;
    }
    const hint = code === 'ENOSPC' ? ': the disk is full; free space there' : code === 'EROFS' || code === 'EACCES' || code === 'EPERM' ? ': the journal is not writable; check its permissions' : '';
    const failure = new JournalWriteError(`the capture journal in ${this.opts.dir} could not be written (${reason})${hint}`, err);
    this.lastWriteError = { at: new Date().toISOString(), message: failure.message, code };
    for (const p of batch) p.reject(failure);
  }

  /**
   * Delete the segments (the active one included) whose every entry satisfies `done` (flushed).
   * Only segments this instance knows are touched. Returns the number of segments removed.
   */
  compact(done: (e: JournalRef) => boolean): number {
    const gone = this.closed.filter((s) => s.refs.every(done));
    const activeDone = !!this.active && this.active.refs.length > 0 && this.active.refs.every(done) && this.fd !== null;
    if (gone.length === 0 && !activeDone) return 0;
    this.writeSeqFile();
    if (activeDone) {
      const old = this.active!;
      this.roll();
      this.closed = this.closed.filter((s) => s !== old);
      gone.push(old);
    }
    let removed = 0;
    for (const seg of gone) {
      fs.rmSync(path.join(this.opts.dir, seg.name), { force: true });
      this.closed = this.closed.filter((s) => s !== seg);
      removed++;
    }
    fsyncDir(this.opts.dir);
    return removed;
  }

  /**
   * Compact, then rewrite every remaining segment that still holds a `done` entry (one sharing a
   * segment with entries not yet flushed) without those entries: temp file, fsync, rename. A
   * purge calls this, so the source text of an erased memory leaves the disk even while other
   * sessions keep the segment alive. Returns the number of entries removed.
   */
  scrub(done: (e: JournalRef) => boolean): number {
    this.compact(done);
    // The active segment is rolled first, so appends never race the rewrite of their own file.
    if (this.active && this.fd !== null && this.active.refs.some(done)) this.roll();
    let removed = 0;
    for (const seg of this.closed) {
      if (!seg.refs.some(done)) continue;
      const file = path.join(this.opts.dir, seg.name);
      const damage = this.damage;
      const keep = this.readSegment(seg.name).filter((e) => !done(e));
      this.damage = damage;
      const tmp = `${file}.scrub.tmp`;
      const fd = fs.openSync(tmp, 'w', 0o600);
      try {
        fs.writeSync(fd, keep.map((e) => JSON.stringify(e) + '\n').join(''));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, file);
      removed += seg.refs.length - keep.length;
      seg.refs = keep.map((e) => ({ j: e.j, s: e.s }));
    }
    if (removed > 0) fsyncDir(this.opts.dir);
    return removed;
  }

  /** Bytes and segment count on disk, and the next seq. */
  stats(): { segments: number; bytes: number; next: number } {
    let bytes = 0;
    const segs = this.segmentFiles();
    for (const f of segs) {
      try {
        bytes += fs.statSync(path.join(this.opts.dir, f)).size;
      } catch {
        // removed meanwhile
      }
    }
    return { segments: segs.length, bytes, next: this.nextJ };
  }

  /** Wait for queued appends, then close. */
  async close(): Promise<void> {
    while (this.writing || this.queue.length > 0) await new Promise((r) => setTimeout(r, 5));
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
