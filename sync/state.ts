/**
 * Sync's durable state, one JSON file written atomically (temp file, fsync, rename) after every
 * step, so cursors, parked versions and pending purges survive restarts and crashes.
 *
 * The outbox itself is the store's version log: every stored version with a seq above
 * `pushed_seq` that is not in `server_seqs` (pulled from the server, or acknowledged out of order)
 * and not parked is still to be pushed. Purges leave no row behind, so they have their own outbox
 * here, written before the store erases anything.
 *
 * A crash between a store write and the next save loses nothing: a version pushed again answers
 * `exists`, a page pulled again is skipped by version id, a purge pushed again is a no-op.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { VersionRow } from '../engine/index.js';
import { SeqRanges, type Range } from './seq-ranges.js';

export interface SyncError {
  code: string;
  message: string;
}

/** A version the server refused for good (validation, permission): kept locally, not retried. */
export interface ParkedVersion {
  version_id: string;
  memory_id: string;
  error: SyncError;
  at: string;
}

/** A local purge still to be pushed; `error` is set once the server refused it for good. */
export interface PendingPurge {
  memory_id: string;
  at: string;
  error?: SyncError;
}

export interface VerifyRecord {
  valid: boolean;
  checked_at: string;
  project_id?: string;
  org_id?: string;
  member_id?: string;
  key_id?: string;
  error?: SyncError;
}

interface StateDoc {
  version: 1;
  /** The server and project the cursors belong to (`<base url>#<project id>`). */
  target: string | null;
  pushed_seq: number;
  server_seqs: Range[];
  pull_after: number;
  parked: ParkedVersion[];
  purges: PendingPurge[];
  last_push: { at: string; versions: number } | null;
  last_pull: { at: string; versions: number } | null;
  verify: VerifyRecord | null;
}

const EMPTY: StateDoc = { version: 1, target: null, pushed_seq: 0, server_seqs: [], pull_after: 0, parked: [], purges: [], last_push: null, last_pull: null, verify: null };

export class SyncState {
  private doc: StateDoc;
  readonly serverSeqs: SeqRanges;
  private readonly parkedById = new Map<string, ParkedVersion>();
  private readonly purgeById = new Map<string, PendingPurge>();

  /** Where a damaged state file was moved aside at open (its cursors start over), if it was. */
  readonly damagedFile: string | null;

  constructor(private readonly file: string) {
    const { doc, damaged } = read(file);
    this.damagedFile = damaged;
    this.doc = { ...EMPTY, ...doc };
    this.serverSeqs = new SeqRanges(this.doc.server_seqs);
    for (const p of this.doc.parked) this.parkedById.set(p.version_id, p);
    for (const p of this.doc.purges) this.purgeById.set(p.memory_id, p);
  }

  get target(): string | null {
    return this.doc.target;
  }

  /** Point the cursors at another server or project: everything local is pushed there, its whole feed pulled. */
  retarget(target: string): void {
    this.doc = { ...EMPTY, target, purges: this.doc.purges, verify: this.doc.verify };
    this.serverSeqs.dropThrough(Number.MAX_SAFE_INTEGER);
    this.parkedById.clear();
    this.save();
  }

  get pushedSeq(): number {
    return this.doc.pushed_seq;
  }

  get pullAfter(): number {
    return this.doc.pull_after;
  }

  /** Is this stored version on the server already (acknowledged, or pulled from it)? */
  isServer(row: Pick<VersionRow, 'seq' | 'version_id'>): boolean {
    return !this.parkedById.has(row.version_id) && (row.seq <= this.doc.pushed_seq || this.serverSeqs.has(row.seq));
  }

  /** Should the push loop send this version (above the cursor, not on the server, not parked)? */
  isPending(row: Pick<VersionRow, 'seq' | 'version_id' | 'memory_id'>): boolean {
    return !this.serverSeqs.has(row.seq) && !this.parkedById.has(row.version_id) && !this.purgeById.has(row.memory_id);
  }

  markServer(seq: number): void {
    if (seq > this.doc.pushed_seq) this.serverSeqs.add(seq);
  }

  markServerRange(a: number, b: number): void {
    this.serverSeqs.addRange(Math.max(a, this.doc.pushed_seq + 1), b);
  }

  /** Every version up to `seq` is on the server or parked. */
  advancePushed(seq: number): void {
    if (seq <= this.doc.pushed_seq) return;
    this.doc.pushed_seq = seq;
    this.serverSeqs.dropThrough(seq);
  }

  setPullAfter(after: number): void {
    this.doc.pull_after = Math.max(this.doc.pull_after, after);
  }

  park(p: ParkedVersion): void {
    this.parkedById.set(p.version_id, p);
  }

  unpark(versionId: string): void {
    this.parkedById.delete(versionId);
  }

  get parked(): ParkedVersion[] {
    return [...this.parkedById.values()];
  }

  isParked(versionId: string): boolean {
    return this.parkedById.has(versionId);
  }

  /** Record a local purge before the store erases anything (durable on return). */
  addPurge(memoryIds: readonly string[]): void {
    const at = new Date().toISOString();
    for (const id of memoryIds) this.purgeById.set(id, { memory_id: id, at });
    this.save();
  }

  hasPurge(memoryId: string): boolean {
    return this.purgeById.has(memoryId);
  }

  get purges(): PendingPurge[] {
    return [...this.purgeById.values()];
  }

  purgeDone(memoryId: string): void {
    this.purgeById.delete(memoryId);
  }

  purgeRefused(memoryId: string, error: SyncError): void {
    const p = this.purgeById.get(memoryId);
    if (p) p.error = error;
  }

  /** Drop what is known about a memory that no longer exists here (purged). */
  forgetMemory(memoryId: string): void {
    for (const [id, p] of this.parkedById) if (p.memory_id === memoryId) this.parkedById.delete(id);
  }

  notePush(versions: number): void {
    this.doc.last_push = { at: new Date().toISOString(), versions };
  }

  notePull(versions: number): void {
    this.doc.last_pull = { at: new Date().toISOString(), versions };
  }

  get lastPush(): StateDoc['last_push'] {
    return this.doc.last_push;
  }

  get lastPull(): StateDoc['last_pull'] {
    return this.doc.last_pull;
  }

  setVerify(v: VerifyRecord): void {
    this.doc.verify = v;
  }

  get verify(): VerifyRecord | null {
    return this.doc.verify;
  }

  save(): void {
    this.doc.server_seqs = this.serverSeqs.toJSON();
    this.doc.parked = this.parked;
    this.doc.purges = this.purges;
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(this.doc));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
  }
}

/**
 * Read the state file. Writes are atomic, so damage means outside interference: the file is kept
 * aside for inspection and sync starts over (pushing again answers `exists`, pulling again skips
 * what is here), which costs traffic but loses no version.
 */
function read(file: string): { doc: Partial<StateDoc>; damaged: string | null } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { doc: {}, damaged: null };
    throw err;
  }
  try {
    const doc = JSON.parse(text) as Partial<StateDoc>;
    if (doc && typeof doc === 'object' && doc.version === 1) return { doc, damaged: null };
  } catch {
    // fall through
  }
  const aside = `${file}.damaged-${Date.now()}`;
  fs.renameSync(file, aside);
  return { doc: {}, damaged: aside };
}
