/**
 * A set of strings numbered by small integer ids, held in typed arrays: their UTF-8 bytes in a
 * SlotArena and an open-addressing hash table of ids. It replaces a `Map<string, …>` where a
 * resident view would otherwise keep 100k+ key strings (version ids, memory ids, terms) for the
 * garbage collector to mark on every major collection; the values live in arrays indexed by id.
 *
 * Ids are reused after `remove`. Lookups encode the string and compare bytes (tens of nanoseconds
 * for an id or a term), so this is for keys, not for text.
 */
import { SlotArena } from './slot-arena.js';

const EMPTY = -1;
const TOMBSTONE = -2;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** FNV-1a over `n` bytes. */
function hashBytes(bytes: Uint8Array, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

export class StringTable {
  private readonly bytes = new SlotArena((n) => new Uint8Array(n));
  /** Hash of each id's string (for rehashing without decoding). */
  private hashes = new Uint32Array(64);
  /** Open addressing: an id, EMPTY or TOMBSTONE; its length a power of two, at most half full (tombstones counted). */
  private table = new Int32Array(128).fill(EMPTY);
  private filled = 0;
  private live = 0;
  private nextId = 0;
  private readonly freeIds: number[] = [];
  private scratch = new Uint8Array(256);
  /** The last string `find` looked for: its byte length in `scratch`, and its hash. */
  private foundBytes = 0;
  private foundHash = 0;

  /** Strings held. */
  get size(): number {
    return this.live;
  }

  /** One past the largest id handed out (tests: ids are reused). */
  get idBound(): number {
    return this.nextId;
  }

  /** The id of `s`, or -1 when it is not held. */
  id(s: string): number {
    return this.find(s);
  }

  /** The id of `s` (-1: not held), leaving `s` encoded in `scratch` with its length and hash noted. */
  private find(s: string): number {
    const n = (this.foundBytes = this.encode(s));
    const h = (this.foundHash = hashBytes(this.scratch, n));
    const mask = this.table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = this.table[i]!;
      if (e === EMPTY) return -1;
      if (e >= 0 && this.hashes[e] === h && this.equals(e, n)) return e;
    }
  }

  /** The id of `s`, adding it when it is not held. */
  add(s: string): number {
    const found = this.find(s);
    if (found >= 0) return found;
    const n = this.foundBytes;
    const h = this.foundHash;
    const id = this.freeIds.pop() ?? this.nextId++;
    if (id >= this.hashes.length) {
      const hashes = new Uint32Array(Math.max(id + 1, this.hashes.length * 2));
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[id] = h;
    this.bytes.set(id, this.scratch, n);
    if ((this.filled + 1) * 2 > this.table.length) this.rehash(this.live + 1);
    const mask = this.table.length - 1;
    let i = h & mask;
    while (this.table[i]! >= 0) i = (i + 1) & mask;
    if (this.table[i] === EMPTY) this.filled++;
    this.table[i] = id;
    this.live++;
    return id;
  }

  /** Forget the string of `id` (the id may be handed out again). */
  remove(id: number): void {
    if (!this.bytes.has(id)) return;
    const mask = this.table.length - 1;
    for (let i = this.hashes[id]! & mask; ; i = (i + 1) & mask) {
      const e = this.table[i]!;
      if (e === EMPTY) return;
      if (e === id) {
        this.table[i] = TOMBSTONE;
        break;
      }
    }
    this.bytes.clear(id);
    this.freeIds.push(id);
    this.live--;
  }

  /** The string of `id` (a new string each call). */
  text(id: number): string {
    return decoder.decode(this.bytes.get(id));
  }

  /** `s` as UTF-8 in `scratch`; its byte length. */
  private encode(s: string): number {
    if (s.length * 3 > this.scratch.length) this.scratch = new Uint8Array(s.length * 3 + 16);
    return encoder.encodeInto(s, this.scratch).written;
  }

  private equals(id: number, n: number): boolean {
    const held = this.bytes.get(id);
    if (held.length !== n) return false;
    for (let i = 0; i < n; i++) if (held[i] !== this.scratch[i]) return false;
    return true;
  }

  /** A table sized for `live` strings, without tombstones. */
  private rehash(live: number): void {
    let size = 128;
    while (size < live * 4) size *= 2;
    const table = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (const e of this.table) {
      if (e < 0) continue;
      let i = this.hashes[e]! & mask;
      while (table[i] !== EMPTY) i = (i + 1) & mask;
      table[i] = e;
    }
    this.table = table;
    this.filled = this.live;
  }
}
