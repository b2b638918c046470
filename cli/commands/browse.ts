/** Browse and edit: `service list`, `service show <id>`, `service edit <id>`. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MemoryResult } from '../../daemon/client.js';
import { CATEGORIES, SCOPES } from '../../engine/index.js';
import { intFlag, parse } from '../args.js';
import { CliError, EXIT, UsageError, type Command } from '../command.js';
import { readyDaemon } from '../daemon-control.js';
import { checkIds, fitLine } from './memory.js';

function memoryId(v: string | undefined, usage: string): string {
  if (!v) throw new UsageError(`usage: ${usage}`);
  checkIds([v]);
  return v;
}

/** `--since`: an ISO date or time, or an age such as 30m, 12h, 7d, 2w. Returns epoch ms. */
export function sinceFlag(v: unknown, now = Date.now()): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v).trim();
  const rel = /^(\d+)\s*(m|h|d|w)$/i.exec(s);
  if (rel) return now - Number(rel[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[rel[2]!.toLowerCase() as 'm' | 'h' | 'd' | 'w'];
  const t = Date.parse(s);
  if (!/^\d{4}-\d{2}-\d{2}/.test(s) || Number.isNaN(t)) throw new UsageError(`--since takes a date (2026-05-01), a time (2026-05-01T12:00Z) or an age (30m, 12h, 7d, 2w), not "${s}"`);
  return t;
}

export const listCommand: Command = {
  path: ['list'],
  summary: 'recent memories, newest first (by scope, category, age)',
  usage: 'service list [--scope repo|dir|user|session] [--category decision|…] [--since 7d|DATE] [--limit N] [--session ID]',
  async run(args, ctx) {
    const { values } = parse(args, { scope: { type: 'string' }, category: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' }, session: { type: 'string' } }, this.usage);
    if (values.scope !== undefined && !(SCOPES as readonly string[]).includes(String(values.scope))) throw new UsageError(`--scope takes ${SCOPES.join(', ')}`);
    if (values.category !== undefined && !(CATEGORIES as readonly string[]).includes(String(values.category))) throw new UsageError(`--category takes ${CATEGORIES.join(', ')}`);
    const since = sinceFlag(values.since);
    const limit = intFlag(values.limit, 'limit', 1, 1000) ?? 20;
    const client = await readyDaemon(ctx);
    const r = await client.localList({
      cwd: process.cwd(),
      limit,
      ...(values.scope ? { scope: String(values.scope) } : {}),
      ...(values.category ? { category: String(values.category) } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(values.session ? { session_id: String(values.session) } : {}),
    });
    if (values.json) {
      ctx.json(r);
      return EXIT.OK;
    }
    if (r.results.length === 0) {
      ctx.out(`No memories${r.scope ? ` in scope "${r.scope}"` : ''}${values.category ? ` of category ${values.category}` : ''}${since !== undefined ? ` since ${new Date(since).toISOString()}` : ''}.`);
      return EXIT.OK;
    }
    for (const m of r.results) ctx.out(fitLine(ctx, `${m.updated_at.slice(0, 16).replace('T', ' ')}  ${m.memory_id}  ${`[${m.category}/${m.space}]`.padEnd(22)} `, m.content));
    if (r.next_cursor) ctx.out(`… more: service list --limit ${Math.min(1000, limit * 2)}${values.scope ? ` --scope ${values.scope}` : ''}`);
    return EXIT.OK;
  },
};

function printMemory(m: MemoryResult, out: (t: string) => void): void {
  out(m.content);
  out('');
  out(`id        ${m.memory_id} (version ${m.version})`);
  out(`category  ${m.category} · ${m.space}${m.repo ? ` · repo ${m.repo}` : ''}${m.dir ? ` · dir ${m.dir}` : ''}`);
  out(`created   ${m.created_at}`);
  out(`updated   ${m.updated_at}`);
  if (m.valid_to) out(`valid     ${m.valid_from} … ${m.valid_to}`);
  if (m.run_id) out(`session   ${m.run_id}`);
  out(`history   service history ${m.memory_id}`);
}

export const showCommand: Command = {
  path: ['show'],
  summary: 'one memory in full, with its fields',
  usage: 'service show <memory_id>',
  async run(args, ctx) {
    const { values, positionals } = parse(args, {}, this.usage);
    if (positionals.length !== 1) throw new UsageError(`usage: ${this.usage}`);
    const id = memoryId(positionals[0], this.usage);
    const m = await (await readyDaemon(ctx)).get(id);
    if (values.json) ctx.json(m);
    else printMemory(m, (t) => ctx.out(t));
    return EXIT.OK;
  },
};

/** Let the user edit `text` in $VISUAL / $EDITOR; returns the saved text. */
function editInEditor(text: string, env: NodeJS.ProcessEnv): string {
  const editor = env.VISUAL || env.EDITOR;
  if (!editor) throw new UsageError('no editor: set $EDITOR (e.g. export EDITOR=nano), or pass the new text with --content');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memory-edit-'));
  const file = path.join(dir, 'memory.md');
  try {
    fs.writeFileSync(file, text, { mode: 0o600 });
    const r = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit', env });
    if (r.error || r.status !== 0) throw new CliError(`the editor (${editor}) exited with ${r.status ?? r.error?.message}; nothing was changed`, EXIT.FAILED);
    return fs.readFileSync(file, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const editCommand: Command = {
  path: ['edit'],
  summary: 'correct a memory in $EDITOR, or with --content (history keeps the old text)',
  usage: 'service edit <memory_id> [--content TEXT|-]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, { content: { type: 'string' } }, this.usage);
    if (positionals.length !== 1) throw new UsageError(`usage: ${this.usage}`);
    const id = memoryId(positionals[0], this.usage);
    const client = await readyDaemon(ctx);
    const current = await client.get(id);
    let text: string;
    if (values.content === '-') {
      const chunks: Buffer[] = [];
      for await (const c of ctx.io.stdin) chunks.push(Buffer.from(c as Buffer));
      text = Buffer.concat(chunks).toString('utf8');
    } else if (typeof values.content === 'string') text = values.content;
    else text = editInEditor(current.content, ctx.io.env as NodeJS.ProcessEnv);
    if (!text.trim()) throw new UsageError('the new text is empty; nothing was changed (to forget the memory: service forget <id>)');
    if (text.trim() === current.content.trim()) {
      if (values.json) ctx.json({ changed: false, memory: current });
      else ctx.out('no change');
      return EXIT.OK;
    }
    const m = await client.update(id, { content: text.trim() });
    if (values.json) ctx.json({ changed: true, memory: m });
    else ctx.out(`updated ${id} to version ${m.version} (service history ${id} shows every version)`);
    return EXIT.OK;
  },
};
