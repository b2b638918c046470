/** Daemon-backed memory commands: search, remember, forget, pause, resume, history, export, import. */
import fs from 'node:fs';
import readline from 'node:readline/promises';
import type { DaemonClient, LocalSearchHit } from '../../daemon/client.js';
import { CATEGORIES, SCOPES, splitForgetMatches } from '../../engine/index.js';
import { intFlag, parse } from '../args.js';
import { callerSession, FOLDER_FALLBACK_NOTE } from '../caller-session.js';
import { CliError, EXIT, UsageError, type Command, type CommandContext } from '../command.js';
import { readyDaemon } from '../daemon-control.js';
import { plural } from '../plural.js';

/** A client to a running daemon, starting one if needed (with warnings when settings differ). */
const daemon = (ctx: CommandContext): Promise<DaemonClient> => readyDaemon(ctx);

export function oneLine(text: string, width = 100): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > width ? `${t.slice(0, width - 1)}…` : t;
}

/** Content never shrinks below this many characters, however narrow the terminal. */
const MIN_CONTENT_COLS = 20;

/**
 * One output line of `head`, a memory's content on one line, and `tail`: on a terminal the content
 * is shortened so the line fits its width; in a pipe or a file it is whole (for grep, scripts).
 */
export function fitLine(ctx: CommandContext, head: string, content: string, tail = ''): string {
  const out = ctx.io.stdout;
  const cols = out.isTTY && out.columns ? out.columns : Infinity;
  return `${head}${oneLine(content, Math.max(MIN_CONTENT_COLS, cols - head.length - tail.length))}${tail}`;
}

function age(iso: string): string {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 90) return `${Math.round(s)}s ago`;
  if (s < 5400) return `${Math.round(s / 60)}m ago`;
  if (s < 129600) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

function scopeOf(v: unknown): (typeof SCOPES)[number] | undefined {
  if (v === undefined) return undefined;
  if (!(SCOPES as readonly string[]).includes(String(v))) throw new UsageError(`--scope takes ${SCOPES.join(', ')}`);
  return v as (typeof SCOPES)[number];
}

export const searchCommand: Command = {
  path: ['search'],
  summary: 'search memories from earlier sessions',
  usage: 'service search <query> [--scope repo|dir|user|session] [--top-k N] [--session ID]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, { scope: { type: 'string' }, 'top-k': { type: 'string' }, session: { type: 'string' } }, this.usage);
    const query = positionals.join(' ').trim();
    if (!query) throw new UsageError(`usage: ${this.usage}`);
    const client = await daemon(ctx);
    const scope = scopeOf(values.scope);
    const caller = callerSession(ctx.io.env, values.session);
    if (scope === 'session' && caller.source === 'folder') ctx.err(`(${FOLDER_FALLBACK_NOTE})`);
    const r = await client.localSearch({
      query,
      cwd: process.cwd(),
      // The caller's default scope (env, then config file), not the daemon's.
      scope: scope ?? ctx.config().searchScope,
      ...sessionField(caller),
      top_k: intFlag(values['top-k'], 'top-k', 1, 100) ?? ctx.config().topK,
    });
    if (values.json) {
      ctx.json(r);
      return EXIT.OK;
    }
    if (r.results.length === 0) {
      const others = Object.entries(r.other_scopes)
        .filter(([s, n]) => s !== r.scope && n !== null)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ');
      ctx.out(`No memories found in scope "${r.scope}"${r.scope === 'repo' || r.scope === 'dir' ? ` (${r.repo ?? 'no repository here'})` : ''}; it holds ${r.other_scopes[r.scope] ?? 0}.`);
      if (others) ctx.out(`Other scopes hold ${others}. Try --scope <name>.`);
      return EXIT.OK;
    }
    for (const m of r.results) {
      ctx.out(fitLine(ctx, `${m.score.toFixed(2)}  [${m.category}/${m.space}] `, m.content, `  (${age(m.updated_at)}, ${m.memory_id})`));
    }
    return EXIT.OK;
  },
};

/** `{session_id}` when the caller's session is known (remember never guesses from the folder). */
function sessionField(caller: { session_id: string | null }): { session_id?: string } {
  return caller.session_id ? { session_id: caller.session_id } : {};
}

export const rememberCommand: Command = {
  path: ['remember'],
  summary: 'store something explicitly (works while capture is paused)',
  usage: 'service remember <text>|- [--personal] [--category decision|constraint|…] [--session ID]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, { personal: { type: 'boolean' }, category: { type: 'string' }, session: { type: 'string' } }, this.usage);
    let text = positionals.join(' ');
    if (text === '-') text = await readAll(ctx.io.stdin);
    if (!text.trim()) throw new UsageError(`usage: ${this.usage}`);
    if (values.category && !(CATEGORIES as readonly string[]).includes(String(values.category))) throw new UsageError(`--category takes ${CATEGORIES.join(', ')}`);
    const client = await daemon(ctx);
    const r = await client.remember({
      text,
      cwd: process.cwd(),
      ...(values.personal ? { personal: true } : {}),
      ...(values.category ? { category: String(values.category) } : {}),
      ...sessionField(callerSession(ctx.io.env, values.session)),
    });
    if (values.json) ctx.json(r);
    else for (const m of r.results) ctx.out(fitLine(ctx, `${m.event === 'NOOP' ? 'already remembered' : m.event === 'UPDATE' ? 'updated' : 'remembered'}: `, m.content, ` (${m.memory_id})`));
    return EXIT.OK;
  },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function checkIds(ids: string[]): void {
  const bad = ids.filter((id) => !UUID.test(id));
  if (bad.length > 0) throw new UsageError(`not a memory id: ${bad.join(', ')} (ids are UUIDs, as service search and service list print them); to forget by description use --query`);
}

export const forgetCommand: Command = {
  path: ['forget'],
  summary: 'forget memories by id, or by query after a preview (undo: service undo)',
  usage: 'service forget <id…> | --query <text> [--scope …] [--top-k N] [--yes] [--purge] | --undo [id]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, { query: { type: 'string' }, scope: { type: 'string' }, yes: { type: 'boolean', short: 'y' }, purge: { type: 'boolean' }, 'top-k': { type: 'string' }, undo: { type: 'boolean' } }, this.usage);
    if (values.undo) {
      if (values.query || values.purge || positionals.length > 1) throw new UsageError(`--undo takes at most one memory id\nusage: ${this.usage}`);
      return undoForget(positionals[0], Boolean(values.json), ctx);
    }
    if (positionals.length > 0 && values.query) throw new UsageError(`give memory ids or --query, not both\nusage: ${this.usage}`);
    if (positionals.length === 0 && !values.query) throw new UsageError(`usage: ${this.usage}`);
    checkIds(positionals);
    const scope = scopeOf(values.scope) ?? ctx.config().searchScope;
    const topK = intFlag(values['top-k'], 'top-k', 1, 100) ?? 20;
    const json = Boolean(values.json);
    const client = await daemon(ctx);
    let ids = positionals;
    let preview: { query: string; matches: unknown[]; weaker: unknown[] } | null = null;
    if (values.query) {
      const query = String(values.query);
      const r = await client.localSearch({ query, cwd: process.cwd(), scope, top_k: topK });
      const { confident, weaker } = splitForgetMatches(query, r.results);
      const row = (m: LocalSearchHit, tail = ''): string => fitLine(ctx, `  ${m.score.toFixed(2)}  ${m.memory_id}  [${m.category}] `, m.content, tail);
      preview = { query, matches: confident.map((m) => ({ memory_id: m.memory_id, score: m.score, coverage: m.coverage, category: m.category, content: m.content })), weaker: weaker.map((m) => ({ memory_id: m.memory_id, score: m.score, coverage: m.coverage, reason: m.reason, content: m.content })) };
      if (!json) {
        if (confident.length > 0) {
          ctx.out(`${plural(confident.length, 'memory', 'memories')} in scope "${r.scope}" ${confident.length === 1 ? 'matches' : 'match'} "${query}" (score, id):`);
          for (const m of confident) ctx.out(row(m));
        }
        if (weaker.length > 0) {
          ctx.out(`${plural(weaker.length, 'weaker match', 'weaker matches')} ${weaker.length === 1 ? 'is' : 'are'} left alone (forget by id if you mean ${weaker.length === 1 ? 'it' : 'them'}):`);
          for (const m of weaker.slice(0, 5)) ctx.out(row(m, `  (${m.reason})`));
          if (weaker.length > 5) ctx.out(`  … and ${weaker.length - 5} more`);
        }
      }
      if (confident.length === 0) {
        if (json) ctx.json({ ...preview, forgotten: [], batch_id: null, purged: false });
        else ctx.out(`No memory matches "${query}" confidently; nothing was forgotten.`);
        return EXIT.OK;
      }
      if (!values.yes) {
        if (!ctx.io.stdin.isTTY) throw new UsageError(`confirm with --yes to forget ${confident.length === 1 ? 'it' : `these ${confident.length}`} (no terminal to ask on)`);
        const rl = readline.createInterface({ input: ctx.io.stdin, output: ctx.io.stderr });
        const answer = await rl.question(`Forget ${values.purge ? 'and erase ' : ''}${confident.length === 1 ? 'it' : `all ${confident.length}`}? [y/N] `);
        rl.close();
        if (!/^y(es)?$/i.test(answer.trim())) {
          if (json) ctx.json({ ...preview, forgotten: [], batch_id: null, purged: false });
          else ctx.out('Nothing was forgotten.');
          return EXIT.OK;
        }
      }
      ids = confident.map((m) => m.memory_id);
    }
    const r = await client.localForget({ memory_ids: ids, ...(values.purge ? { purge: true } : {}), ...(values.query ? { query: String(values.query) } : {}) });
    if (r.forgotten.length === 0) throw new CliError(`nothing was forgotten: no current memory has ${ids.length === 1 ? 'the id' : 'any of the ids'} ${r.not_found.join(', ')} (never stored, or already forgotten)`, EXIT.NOT_FOUND);
    if (json) ctx.json({ ...(preview ?? {}), ...r });
    else {
      if (r.forgotten.length > 0) ctx.out(`forgot ${plural(r.forgotten.length, 'memory', 'memories')}${values.purge ? ' (erased with every version; this cannot be undone)' : ' (undo: service undo)'}`);
      if (r.not_found.length > 0) ctx.err(`not found (never stored, or already forgotten): ${r.not_found.join(', ')}`);
    }
    return EXIT.OK;
  },
};

async function undoForget(memoryId: string | undefined, json: boolean, ctx: CommandContext): Promise<number> {
  if (memoryId) checkIds([memoryId]);
  const client = await daemon(ctx);
  const r = await client.undo(memoryId ? { memory_id: memoryId } : {});
  if (json) ctx.json(r);
  else {
    ctx.out(`restored ${plural(r.restored.length, 'memory', 'memories')}${r.forgotten_at ? ` forgotten at ${r.forgotten_at}` : ''}${r.restored.length > 0 ? `: ${r.restored.join(', ')}` : ''}`);
    if (r.already_current.length > 0) ctx.out(`${plural(r.already_current.length, 'memory was', 'memories were')} already back: ${r.already_current.join(', ')}`);
  }
  return EXIT.OK;
}

export const undoCommand: Command = {
  path: ['undo'],
  summary: 'restore what the last forget forgot (or one memory: service undo <id>)',
  usage: 'service undo [memory_id]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, {}, this.usage);
    if (positionals.length > 1) throw new UsageError(`usage: ${this.usage}`);
    return undoForget(positionals[0], Boolean(values.json), ctx);
  },
};

function pauseLike(paused: boolean): Command {
  return {
    path: [paused ? 'pause' : 'resume'],
    summary: paused ? 'pause automatic capture for this repository (or --session, --all)' : 'resume automatic capture for this repository (or --session, --all)',
    usage: `service ${paused ? 'pause' : 'resume'} [--all] [--session ID]`,
    async run(args, ctx) {
      const { values } = parse(args, { all: { type: 'boolean' }, session: { type: 'string' } }, this.usage);
      const client = await daemon(ctx);
      // The repository of the working directory (every session there) unless --session or --all
      // narrows or widens it: /memory:pause in one session pauses its repository, not a guess.
      const req = values.all ? { all: true } : values.session ? { session_id: String(values.session) } : { cwd: process.cwd() };
      const r = paused ? await client.pause(req) : await client.resume(req);
      if (values.json) ctx.json(r);
      else if (values.all) ctx.out(paused ? 'Capture paused for every session (remember still works).' : 'Capture resumed for every session.');
      else if (r.repo) ctx.out(paused ? `Capture paused for repository ${r.repo}: every session there, new ones too, until service resume (remember still works).` : `Capture resumed for repository ${r.repo}.${r.paused_all ? ' Capture is still paused for all sessions: service resume --all' : ''}`);
      else ctx.out(`Capture ${paused ? 'paused' : 'resumed'} for session ${r.session_id}.${r.paused_all && !paused ? ' Capture is still paused for all sessions: service resume --all' : ''}`);
      return EXIT.OK;
    },
  };
}

export const pauseCommand = pauseLike(true);
export const resumeCommand = pauseLike(false);

export const historyCommand: Command = {
  path: ['history'],
  summary: 'every version of a memory, oldest first',
  usage: 'service history <memory_id>',
  async run(args, ctx) {
    const { values, positionals } = parse(args, {}, this.usage);
    if (positionals.length !== 1) throw new UsageError(`usage: ${this.usage}`);
    const client = await daemon(ctx);
    const h = await client.history(positionals[0]!);
    if (values.json) ctx.json(h);
    else
      for (const v of h.versions) {
        const valid = `${v.valid_from.slice(0, 10)}…${v.valid_to ? v.valid_to.slice(0, 10) : ''}`;
        ctx.out(fitLine(ctx, `v${v.version} ${v.event.padEnd(6)} recorded ${v.recorded_at}${v.superseded_at ? `, superseded ${v.superseded_at}` : ', current'}  valid ${valid}  `, v.content));
      }
    return EXIT.OK;
  },
};

export const exportCommand: Command = {
  path: ['export'],
  summary: 'export every version as NDJSON (to a file or stdout)',
  usage: 'service export [file]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, {}, this.usage);
    if (positionals.length > 1) throw new UsageError(`usage: ${this.usage}`);
    const client = await daemon(ctx);
    const text = await client.exportAll();
    const lines = text ? text.trimEnd().split('\n').length : 0;
    if (positionals[0]) {
      try {
        fs.writeFileSync(positionals[0], text, { mode: 0o600 });
      } catch (err) {
        throw new CliError(`cannot write ${positionals[0]}: ${(err as Error).message}`, EXIT.FAILED);
      }
      if (values.json) ctx.json({ file: positionals[0], versions: lines });
      else ctx.err(`exported ${plural(lines, 'version')} to ${positionals[0]}`);
    } else if (values.json) throw new UsageError('--json needs a file: the export itself is NDJSON (service export FILE --json reports on it)');
    else ctx.io.stdout.write(text);
    return EXIT.OK;
  },
};

export const importCommand: Command = {
  path: ['import'],
  summary: 'import an NDJSON export (idempotent)',
  usage: 'service import <file>|-',
  async run(args, ctx) {
    const { values, positionals } = parse(args, {}, this.usage);
    if (positionals.length !== 1) throw new UsageError(`usage: ${this.usage}`);
    const file = positionals[0]!;
    let text: string;
    try {
      text = file === '-' ? await readAll(ctx.io.stdin) : fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as Error).message}`, (err as NodeJS.ErrnoException).code === 'ENOENT' ? EXIT.NOT_FOUND : EXIT.FAILED);
    }
    const client = await daemon(ctx);
    const r = await client.importNdjson(text);
    if (values.json) ctx.json(r);
    else ctx.out(`imported ${plural(r.imported, 'version')} of ${plural(r.memories, 'memory', 'memories')} (${r.skipped} already present)`);
    return EXIT.OK;
  },
};

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
