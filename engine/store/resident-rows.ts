/**
 * The rows a resident view holds, off the JavaScript heap: each row (its vector null) as UTF-8
 * JSON in a SlotArena, parsed only when it is asked for (a hit, or a filter the codes do not hold).
 */
import type { VersionRow } from '../types.js';
import { SlotArena } from './slot-arena.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class JsonRows {
  private readonly arena = new SlotArena((n) => new Uint8Array(n));
  /** Scratch for a row's UTF-8 JSON on its way into `arena`. */
  private textBytes = new Uint8Array(4096);

  /** Hold `row` (its vector null) as the slot's JSON. */
  set(slot: number, row: VersionRow): void {
    const text = JSON.stringify(row);
    if (this.textBytes.length < text.length * 3) this.textBytes = new Uint8Array(text.length * 3 + 256);
    this.arena.set(slot, this.textBytes, encoder.encodeInto(text, this.textBytes).written);
  }

  /** The row held in `slot`, a fresh object (vector null). */
  get(slot: number): VersionRow {
    return JSON.parse(decoder.decode(this.arena.get(slot))) as VersionRow;
  }

  clear(slot: number): void {
    this.arena.clear(slot);
  }
}
