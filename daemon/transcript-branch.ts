/**
 * Which transcript lines belong to the conversation as it stands: the parentUuid walk that drops a
 * rewound branch and keeps parallel ones, the first copy of a line written twice, and the prompts
 * Claude Code handed to a running turn (transcript.ts reads them into turns).
 */
import { squeeze } from '../engine/index.js';
import { AGENT_NOTICE, attachedFiles, blockText, INTERRUPTED, writtenByClaudeCode, type RawEntry, type ReadOptions } from './transcript-lines.js';

function isMessage(e: RawEntry): boolean {
  return e.type === 'user' || e.type === 'assistant';
}

/** A user line the person typed (not a tool result, not meta, not a command echo). */
function isTypedPrompt(e: RawEntry): boolean {
  if (e.type !== 'user' || e.isMeta || e.isCompactSummary) return false;
  const c = e.message?.content;
  if (typeof c === 'string') return !writtenByClaudeCode(c) && !AGENT_NOTICE.test(c);
  if (!Array.isArray(c)) return false;
  if (!c.some((b: { type?: string }) => b?.type === 'text') || c.some((b: { type?: string }) => b?.type === 'tool_result')) return false;
  // "[Request interrupted by user]" is written as a user line; nobody typed it.
  return !INTERRUPTED.test(blockText(c).trim());
}

function parentOf(e: RawEntry): string | null {
  return e.parentUuid ?? e.logicalParentUuid ?? null;
}

/**
 * The main-chain messages (and attachments that put an @-mentioned file in the conversation) minus
 * abandoned branches, in file order. The chain is walked from the
 * last message through parentUuid (and logicalParentUuid across a compaction) over every line
 * type. An entry off that chain is dropped only when the side branch it sits on holds a typed
 * user prompt (the user rewound and wrote again); side branches of parallel tool calls and their
 * results, and entries whose ancestry leaves this read (an earlier read, a torn line), are kept.
 */
export function activeBranch(entries: RawEntry[], opts: ReadOptions = {}): RawEntry[] {
  const main = opts.agent ? entries : entries.filter((e) => !e.isSidechain);
  const byId = new Map<string, RawEntry>();
  for (const e of main) if (e.uuid) byId.set(e.uuid, e);
  const msgs = main.filter(isMessage);
  const last = msgs[msgs.length - 1];
  if (!last?.uuid) return msgs;
  const chain = new Set<string>();
  for (let cur: RawEntry | undefined = last; cur?.uuid && !chain.has(cur.uuid); ) {
    chain.add(cur.uuid);
    const p = parentOf(cur);
    // A root in the middle of the file (an older client's compaction summary, written with neither
    // parentUuid nor logicalParentUuid) goes on from the conversation before it: the last message
    // written before it. A parent named but not in this read (an earlier read) ends the chain.
    cur = p ? byId.get(p) : main.slice(0, main.indexOf(cur)).findLast((e) => isMessage(e) && e.uuid !== undefined && !chain.has(e.uuid));
  }
  /** Where an off-chain entry's branch leaves the chain (null: its ancestry leaves this read). */
  const rootCache = new Map<string, string | null>();
  const branchRoot = (e: RawEntry): string | null => {
    const path: string[] = [];
    let cur: RawEntry | undefined = e;
    let root: string | null = null;
    while (cur?.uuid && !chain.has(cur.uuid)) {
      const known = rootCache.get(cur.uuid);
      if (known !== undefined) {
        root = known;
        break;
      }
      path.push(cur.uuid);
      const p = parentOf(cur);
      const parent = p ? byId.get(p) : undefined;
      if (!parent?.uuid) break; // ancestry leaves this read: keep
      if (chain.has(parent.uuid)) {
        root = cur.uuid;
        break;
      }
      cur = parent;
    }
    for (const x of path) rootCache.set(x, root);
    return root;
  };
  // A side branch holding a typed prompt is a conversation the user rewound away from; a prompt
  // the user interrupted at once (typed while a tool ran; the reply then went on from the tool
  // result) was not taken back, and stays.
  const children = new Map<string, RawEntry[]>();
  for (const e of msgs) {
    const p = parentOf(e);
    if (p) children.set(p, [...(children.get(p) ?? []), e]);
  }
  const interruptedAtOnce = (e: RawEntry): boolean => {
    const next = e.uuid ? (children.get(e.uuid) ?? []) : [];
    return next.length > 0 && next.every((c) => c.type === 'user' && INTERRUPTED.test(blockText(c.message?.content).trim()));
  };
  const abandonedRoots = new Set<string>();
  for (const e of msgs) {
    if (e.uuid && !chain.has(e.uuid) && isTypedPrompt(e) && !interruptedAtOnce(e)) {
      const root = branchRoot(e);
      if (root) abandonedRoots.add(root);
    }
  }
  const abandoned = (e: RawEntry): boolean => {
    const root = branchRoot(e);
    return root !== null && abandonedRoots.has(root);
  };
  // Besides messages, the @-mentioned files an attachment line puts in the conversation (read like a Read's result).
  const read = main.filter((e) => isMessage(e) || attachedFiles(e).length > 0);
  return firstCopies(read.filter((e) => !e.uuid || chain.has(e.uuid) || !abandoned(e)));
}

/**
 * The subagent conversations an older client (Claude Code 1.0) wrote inline, as sidechain lines of
 * the session's own transcript (newer clients give each subagent a file of its own): one list of
 * lines per conversation, by the root its parentUuid chain goes back to, in file order.
 */
export function inlineSidechains(entries: readonly RawEntry[]): RawEntry[][] {
  const side = entries.filter((e) => e.isSidechain);
  const byId = new Map<string, RawEntry>();
  for (const e of side) if (e.uuid) byId.set(e.uuid, e);
  const roots = new Map<RawEntry, RawEntry>();
  const rootOf = (e: RawEntry): RawEntry => {
    const path: RawEntry[] = [];
    let cur = e;
    for (;;) {
      const known = roots.get(cur);
      if (known) {
        cur = known;
        break;
      }
      path.push(cur);
      const p = parentOf(cur);
      const parent = p ? byId.get(p) : undefined;
      if (!parent || path.includes(parent)) break;
      cur = parent;
    }
    for (const x of path) roots.set(x, cur);
    return cur;
  };
  const groups = new Map<RawEntry, RawEntry[]>();
  for (const e of side) {
    const root = rootOf(e);
    const group = groups.get(root);
    if (group) group.push(e);
    else groups.set(root, [e]);
  }
  return [...groups.values()];
}

/**
 * A resumed session's transcript may hold its history twice: Claude Code writes the earlier
 * messages again under new uuids, with the same timestamps, message ids and content. Only the
 * first copy of each is kept (pieces of one streamed message differ in content, so all stay).
 */
export function firstCopies(entries: RawEntry[]): RawEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    if (!e.timestamp) return true;
    const key = `${e.type}\u0000${e.timestamp}\u0000${e.message?.id ?? ''}\u0000${JSON.stringify(e.message?.content ?? e.attachment ?? null)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * What a prompt typed while the agent was working says, when Claude Code handed it to the running
 * turn: such a prompt is written only as a `queue-operation` line (`enqueue`, its text in
 * `content`), then `remove` once the turn took it; no user line ever holds it. (A queued prompt
 * that starts a turn of its own is `dequeue`d and written again as a user line; `popAll` puts it
 * back in the input box.) Task notifications (XML or JSON) and slash commands are not prompts;
 * an `enqueue` not yet resolved waits (a flush comes after the turn, when it is).
 */
export function handedToTurn(entries: readonly RawEntry[]): Map<RawEntry, string> {
  return queueOutcome(entries).handed;
}

/**
 * A prompt typed while the agent was working whose `enqueue` is the last queue line of `entries`
 * (nothing took it yet): the next lines will say whether the running turn took it. Null when
 * there is none.
 */
export function unresolvedQueued(entries: readonly RawEntry[]): string | null {
  return queueOutcome(entries).pending;
}

function queueOutcome(entries: readonly RawEntry[]): { handed: Map<RawEntry, string>; pending: string | null } {
  const handed = new Map<RawEntry, string>();
  let pending: { e: RawEntry; text: string } | null = null;
  for (const e of entries) {
    if (e.type !== 'queue-operation') continue;
    if (e.operation === 'enqueue') {
      const text = typeof e.content === 'string' ? e.content.trim() : '';
      pending = text && !AGENT_NOTICE.test(text) && !text.startsWith('{') && !text.startsWith('/') ? { e, text } : null;
    } else {
      if (pending && e.operation === 'remove') handed.set(pending.e, pending.text);
      pending = null;
    }
  }
  return { handed, pending: pending?.text ?? null };
}

/**
 * `kept` (in file order) with the prompts Claude Code handed to a running turn (handedToTurn) as
 * user lines where they were typed, unless a typed user line of this read already holds the text.
 * A prompt typed while an assistant message was being written (its lines share one message id) goes
 * after the message's last line, so the message stays one turn.
 */
export function withQueuedPrompts(all: readonly RawEntry[], kept: RawEntry[]): RawEntry[] {
  const handed = handedToTurn(all);
  if (handed.size === 0) return kept;
  const typed = new Set(all.filter(isTypedPrompt).map((e) => squeeze(blockText(e.message?.content))));
  const keptSet = new Set(kept);
  const out: RawEntry[] = [];
  let waiting: RawEntry[] = [];
  const messageId = (e: RawEntry | undefined): string | undefined => (e?.type === 'assistant' ? e.message?.id : undefined);
  for (const e of all) {
    if (keptSet.has(e)) {
      const id = messageId(e);
      if (waiting.length > 0 && !(id && id === messageId(out[out.length - 1]))) {
        out.push(...waiting);
        waiting = [];
      }
      out.push(e);
    }
    const text = handed.get(e);
    if (text && !typed.has(squeeze(text))) waiting.push({ type: 'user', timestamp: e.timestamp, message: { role: 'user', content: text } });
  }
  return [...out, ...waiting];
}
