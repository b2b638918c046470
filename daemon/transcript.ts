/**
 * Incremental reader of Claude Code session transcripts (JSONL). Each call reads from the
 * session's byte cursor to the last complete line; a half-written last line waits for the next
 * read. Unknown entry types and malformed lines are skipped, assistant messages split across lines
 * (same message id) are merged, sidechain (subagent) entries are ignored, and a rewind (entries
 * branching off an earlier point) keeps only the branch the conversation continued on.
 */
import fs from 'node:fs';

export interface Turn {
  uuid: string | null;
  role: 'user' | 'assistant' | 'tool';
  text: string;
  tool?: string;
  ok?: boolean;
  timestamp?: string;
}

interface RawEntry {
  type?: string;
  uuid?: string;
  parentUuid?: string | null;
  isSidechain?: boolean;
  isMeta?: boolean;
  timestamp?: string;
  message?: { id?: string; role?: string; content?: unknown };
  toolUseResult?: unknown;
}

export interface ReadResult {
  turns: Turn[];
  /** Cursor after the last complete line read. */
  offset: number;
  /** The file shrank or was replaced: reading restarted from the beginning. */
  rewound: boolean;
}

const MAX_READ = 32 * 1024 * 1024;

/** Read complete lines after `offset`. */
export function readTranscript(file: string, offset: number): ReadResult {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return { turns: [], offset, rewound: false };
  }
  try {
    const size = fs.fstatSync(fd).size;
    let rewound = false;
    if (size < offset) {
      offset = 0;
      rewound = true;
    }
    const len = Math.min(size - offset, MAX_READ);
    if (len <= 0) return { turns: [], offset, rewound };
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, offset);
    const lastNl = buf.lastIndexOf(0x0a);
    if (lastNl < 0) return { turns: [], offset, rewound };
    const text = buf.subarray(0, lastNl).toString('utf8');
    const entries: RawEntry[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as RawEntry;
        if (e && typeof e === 'object') entries.push(e);
      } catch {
        // a malformed line: skip it
      }
    }
    return { turns: toTurns(activeBranch(entries)), offset: offset + lastNl + 1, rewound };
  } finally {
    fs.closeSync(fd);
  }
}

/** Keep the entries on the chain that ends at the last message (drop rewound-away branches). */
export function activeBranch(entries: RawEntry[]): RawEntry[] {
  const msgs = entries.filter((e) => (e.type === 'user' || e.type === 'assistant') && !e.isSidechain);
  const byId = new Map<string, RawEntry>();
  for (const e of msgs) if (e.uuid) byId.set(e.uuid, e);
  const last = msgs[msgs.length - 1];
  if (!last?.uuid) return msgs;
  const keep = new Set<string>();
  let cur: RawEntry | undefined = last;
  while (cur?.uuid && !keep.has(cur.uuid)) {
    keep.add(cur.uuid);
    cur = cur.parentUuid ? byId.get(cur.parentUuid) : undefined;
  }
  // Entries whose parent lies before this read (not in byId) start the chain; keep all of those
  // that are ancestors of the last entry, plus entries without uuids.
  return msgs.filter((e) => !e.uuid || keep.has(e.uuid));
}

function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: { type?: string; text?: string; content?: unknown }) => (b?.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** Transcript entries → turns: user prompts, assistant text, tool results (labelled by tool). */
export function toTurns(entries: RawEntry[]): Turn[] {
  const turns: Turn[] = [];
  const toolNames = new Map<string, string>();
  let lastAssistant: { id: string; turn: Turn } | null = null;
  for (const e of entries) {
    const content = e.message?.content;
    if (e.type === 'assistant') {
      if (!Array.isArray(content)) continue;
      for (const b of content as { type?: string; id?: string; name?: string }[]) {
        if (b?.type === 'tool_use' && b.id && b.name) toolNames.set(b.id, b.name);
      }
      const text = blockText(content).trim();
      if (!text) continue;
      const id = e.message?.id;
      if (id && lastAssistant && lastAssistant.id === id) {
        lastAssistant.turn.text += `\n${text}`;
        continue;
      }
      const turn: Turn = { uuid: e.uuid ?? null, role: 'assistant', text, ...(e.timestamp ? { timestamp: e.timestamp } : {}) };
      turns.push(turn);
      lastAssistant = id ? { id, turn } : null;
      continue;
    }
    if (e.type !== 'user' || e.isMeta) continue;
    lastAssistant = null;
    if (typeof content === 'string') {
      if (/^\s*<(command-name|command-message|local-command-stdout|local-command-stderr)>/.test(content)) continue;
      turns.push({ uuid: e.uuid ?? null, role: 'user', text: content, ...(e.timestamp ? { timestamp: e.timestamp } : {}) });
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const b of content as { type?: string; tool_use_id?: string; content?: unknown; is_error?: boolean; text?: string }[]) {
      if (b?.type === 'tool_result') {
        const text = blockText(b.content).trim();
        if (!text) continue;
        const tool = b.tool_use_id ? toolNames.get(b.tool_use_id) : undefined;
        turns.push({ uuid: e.uuid ?? null, role: 'tool', text, ok: !b.is_error, ...(tool ? { tool } : {}) });
      } else if (b?.type === 'text' && typeof b.text === 'string' && b.text.trim()) {
        turns.push({ uuid: e.uuid ?? null, role: 'user', text: b.text, ...(e.timestamp ? { timestamp: e.timestamp } : {}) });
      }
    }
  }
  return turns;
}
