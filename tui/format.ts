/**
 * Formatting for the dashboard: ages, durations, counts, sizes, progress bars, scopes. Pure
 * functions of their inputs (the clock is passed in), so views can be tested without rendering.
 */

/** "just now", "42s ago", "3m ago", "5h ago", "2d ago"; "-" for a missing or unreadable time. */
export function formatAge(iso: string | null | undefined, now: number): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (!Number.isFinite(t)) return '-';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 10) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  if (s < 60 * 86_400) return `${Math.floor(s / 86_400)}d ago`;
  return new Date(t).toISOString().slice(0, 10);
}

/** Seconds as "42s", "3m", "2h05m", "3d04h": coarse on purpose, so the screen changes rarely. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d${String(Math.floor((s % 86_400) / 3600)).padStart(2, '0')}h`;
}

/** 1234567 → "1,234,567". */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Bytes as "512 B", "1.5 KB", "12 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${Math.max(0, Math.round(n))} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** Clamp to [0, 1]; NaN (an unknown total) counts as 0. */
export function fraction(done: number, total: number): number {
  if (!(total > 0) || !Number.isFinite(done)) return 0;
  return Math.min(1, Math.max(0, done / total));
}

/** "43%" (floored, so 100% only when done). */
export function formatPercent(f: number): string {
  return `${Math.floor(Math.min(1, Math.max(0, f)) * 100)}%`;
}

/** A text progress bar `width` cells wide: "█████░░░░░". */
export function progressBar(f: number, width: number): string {
  const w = Math.max(0, Math.floor(width));
  const filled = Math.round(Math.min(1, Math.max(0, f)) * w);
  return '█'.repeat(filled) + '░'.repeat(w - filled);
}

/** One line: whitespace squeezed, cut to `width` characters with an ellipsis. */
export function oneLine(text: string, width: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (width <= 0) return '';
  return t.length > width ? `${t.slice(0, Math.max(0, width - 1))}…` : t;
}

/** Pad or cut to exactly `width` characters (for columns). */
export function cell(text: string, width: number): string {
  return oneLine(text, width).padEnd(Math.max(0, width));
}

/** Words wrapped to `width`, at most `maxLines` lines; the last line ends in "…" when cut. */
export function wrapLines(text: string, width: number, maxLines: number): string[] {
  const w = Math.max(1, width);
  const lines: string[] = [];
  for (const para of text.replace(/\r/g, '').split('\n')) {
    let line = '';
    for (const word0 of para.split(/\s+/).filter(Boolean)) {
      let word = word0;
      while (word.length > w) {
        if (line) lines.push(line);
        lines.push(word.slice(0, w));
        word = word.slice(w);
        line = '';
      }
      if (!line) line = word;
      else if (line.length + 1 + word.length <= w) line += ` ${word}`;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  while (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, Math.max(1, maxLines));
  const last = kept[kept.length - 1]!;
  kept[kept.length - 1] = last.length + 2 <= w ? `${last} …` : `${last.slice(0, w - 1)}…`;
  return kept;
}

/** A repository identity for display: "github.com/acme/shop" → "acme/shop", "/home/u/proj" → "proj". */
export function shortRepo(repo: string | null | undefined): string {
  if (!repo) return '';
  if (repo.startsWith('/')) return repo.replace(/\/+$/, '').split('/').pop() ?? repo;
  const parts = repo.split('/');
  return parts.length >= 3 ? parts.slice(1).join('/') : repo;
}

/** Where a memory lives: "personal", or "project · acme/shop". */
export function scopeLabel(m: { space: string; repo: string | null }): string {
  if (m.space === 'personal') return 'personal';
  const r = shortRepo(m.repo);
  return r ? `${m.space} · ${r}` : m.space;
}

/** The first 8 characters of an id (enough to tell sessions and memories apart on screen). */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}

/** Tokens joined with " · " into as few lines as fit `width`, at most `maxLines` (the rest dropped with "…"). */
export function packTokens(tokens: string[], width: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const t of tokens) {
    const next = line ? `${line} · ${t}` : t;
    if (next.length <= width || !line) line = next;
    else {
      lines.push(line);
      line = t;
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, Math.max(1, maxLines));
  kept[kept.length - 1] = oneLine(`${kept[kept.length - 1]} · …`, width);
  return kept;
}
