/**
 * Strict ISO-8601 times. `Date.parse` rolls impossible dates over (`2026-02-30` becomes March 2)
 * and accepts hours like 24:30; a time a client sends must name a real instant or be refused.
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Epoch ms of a valid ISO-8601 date or date-time, or null (malformed, or no such day or hour). */
export function isoTimeMs(s: string): number | null {
  const m = ISO.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || (sec !== undefined && Number(sec) > 59))) return null;
  if (zone && zone !== 'Z') {
    const z = /^[+-](\d{2}):?(\d{2})$/.exec(zone);
    if (!z || Number(z[1]) > 23 || Number(z[2]) > 59) return null;
  }
  const ms = Date.parse(s.replace(' ', 'T'));
  return Number.isNaN(ms) ? null : ms;
}
