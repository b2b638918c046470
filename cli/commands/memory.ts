/** Daemon-backed memory commands: search, remember, forget, pause, resume, history, export, import. */
import fs from 'node:fs';
import readline from 'node:readline/promises';
import type { DaemonClient } from '../../daemon/client.js';
import { CATEGORIES, SCOPES } from '../../engine/index.js';
import { intFlag, parse } from '../args.js';
import { callerSession, FOLDER_FALLBACK_NOTE } from '../caller-session.js';
import { CliError, EXIT, UsageError, type Command, type CommandContext } from '../command.js';
import { clientFor, ensureDaemon } from '../daemon-control.js';

/** A client to a running daemon, starting one if needed. */
async function daemon(ctx: CommandContext): Promise<DaemonClient> {
  const config = ctx.config();
  const r = await ensureDaemon(config, ctx.io.env);
  if (r.started) ctx.err(`(started the memory daemon, pid ${r.pid})`);
  return clientFor(config);
}

function oneLine(text: string, width = 100): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > width ? `${t.slice(0, width - 1)}…` : t;
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
      ...(scope ? { scope } : {}),
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
      ctx.out(`${m.score.toFixed(2)}  [${m.category}/${m.space}] ${oneLine(m.content)}  (${age(m.updated_at)}, ${m.memory_id})`);
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
    else for (const m of r.results) ctx.out(`${m.event === 'NOOP' ? 'already remembered' : m.event === 'UPDATE' ? 'updated' : 'remembered'}: ${oneLine(m.content)} (${m.memory_id})`);
    return EXIT.OK;
  },
};

export const forgetCommand: Command = {
  path: ['forget'],
  summary: 'forget memories by id, or by query after a preview',
  usage: 'service forget <id…> | --query <text> [--scope …] [--yes] [--purge]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, { query: { type: 'string' }, scope: { type: 'string' }, yes: { type: 'boolean', short: 'y' }, purge: { type: 'boolean' }, 'top-k': { type: 'string' } }, this.usage);
    if (positionals.length === 0 && !values.query) throw new UsageError(`usage: ${this.usage}`);
    const client = await daemon(ctx);
    let ids = positionals;
    if (values.query) {
      const r = await client.localSearch({ query: String(values.query), cwd: process.cwd(), ...(values.scope ? { scope: scopeOf(values.scope)! } : {}), top_k: intFlag(values['top-k'], 'top-k', 1, 100) ?? 10 });
      if (r.results.length === 0) {
        ctx.out('Nothing matches; nothing was forgotten.');
        return EXIT.OK;
      }
      ctx.out(`These ${r.results.length} memories match:`);
      for (const m of r.results) ctx.out(`  ${m.memory_id}  [${m.category}] ${oneLine(m.content, 90)}`);
      if (!values.yes) {
        if (!ctx.io.stdin.isTTY) throw new UsageError('confirm with --yes to forget them (no terminal to ask on)');
        const rl = readline.createInterface({ input: ctx.io.stdin, output: ctx.io.stderr });
        const answer = await rl.question(`Forget ${values.purge ? 'and erase ' : ''}all ${r.results.length}? [y/N] `);
        rl.close();
        if (!/^y(es)?$/i.test(answer.trim())) {
          ctx.out('Nothing was forgotten.');
          return EXIT.OK;
        }
      }
      ids = r.results.map((m) => m.memory_id);
    }
    const done: string[] = [];
    for (const id of ids) {
      await client.forget(id, Boolean(values.purge));
      done.push(id);
    }
    if (values.json) ctx.json({ forgotten: done, purged: Boolean(values.purge) });
    else ctx.out(`forgot ${done.length} ${done.length === 1 ? 'memory' : 'memories'}${values.purge ? ' (erased with every version)' : ''}`);
    return EXIT.OK;
  },
};

function pauseLike(paused: boolean): Command {
  return {
    path: [paused ? 'pause' : 'resume'],
    summary: paused ? 'pause automatic capture (this session, or --all)' : 'resume automatic capture (this session, or --all)',
    usage: `service ${paused ? 'pause' : 'resume'} [--all] [--session ID]`,
    async run(args, ctx) {
      const { values } = parse(args, { all: { type: 'boolean' }, session: { type: 'string' } }, this.usage);
      const client = await daemon(ctx);
      const caller = callerSession(ctx.io.env, values.session);
      if (!values.all && caller.source === 'folder') ctx.err(`(${FOLDER_FALLBACK_NOTE})`);
      const req = values.all ? { all: true } : caller.session_id ? { session_id: caller.session_id } : { cwd: process.cwd() };
      const r = paused ? await client.pause(req) : await client.resume(req);
      if (values.json) ctx.json(r);
      else if (values.all) ctx.out(paused ? 'Capture paused for every session (remember still works).' : 'Capture resumed for every session.');
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
        ctx.out(`v${v.version} ${v.event.padEnd(6)} recorded ${v.recorded_at}${v.superseded_at ? `, superseded ${v.superseded_at}` : ', current'}  valid ${valid}  ${oneLine(v.content, 80)}`);
      }
    return EXIT.OK;
  },
};

export const exportCommand: Command = {
  path: ['export'],
  summary: 'export every version as NDJSON (to a file or stdout)',
  usage: 'service export [file]',
  async run(args, ctx) {
    const { positionals } = parse(args, {}, this.usage);
    const client = await daemon(ctx);
    const text = await client.exportAll();
    const lines = text ? text.trimEnd().split('\n').length : 0;
    if (positionals[0]) {
      fs.writeFileSync(positionals[0], text, { mode: 0o600 });
      ctx.err(`exported ${lines} versions to ${positionals[0]}`);
    } else ctx.io.stdout.write(text);
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
      throw new CliError(`cannot read ${file}: ${(err as Error).message}`, EXIT.FAILED);
    }
    const client = await daemon(ctx);
    const r = await client.importNdjson(text);
    if (values.json) ctx.json(r);
    else ctx.out(`imported ${r.imported} versions of ${r.memories} memories (${r.skipped} already present)`);
    return EXIT.OK;
  },
};

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
