/** `service keys create|list|revoke`: API keys on a server's data dir. */
import fs from 'node:fs';
import path from 'node:path';
import { resolvePaths } from '../../engine/index.js';
import { KEY_PERMISSIONS, keyJson, openTenancyStore, ROLE_CAP, type KeyPermission, type TenancyStore } from '../../server/index.js';
import { parse } from '../args.js';
import { CliError, EXIT, UsageError, type Command, type CommandContext } from '../command.js';

/**
 * The server's tenancy records: its data dir, or its database when SERVICE_DATABASE_URL is set.
 * `existing` (read-only and revoke) refuses a data dir with none, creating nothing.
 */
export async function openTenancy(values: Record<string, unknown>, ctx: CommandContext, existing = false): Promise<TenancyStore> {
  const dir = path.resolve((values.data as string | undefined) ?? resolvePaths(ctx.config().home).serverDir);
  const databaseUrl = ctx.config().databaseUrl;
  if (existing && !databaseUrl && !fs.existsSync(path.join(dir, 'tenancy.json'))) {
    throw new CliError(`no server data in ${dir}: nothing to show. Pass the server's --data DIR, or create the first organization with service orgs create`, EXIT.NOT_FOUND);
  }
  const t = await openTenancyStore(dir, databaseUrl).catch((err: unknown) => {
    throw new CliError((err as Error).message, EXIT.FAILED);
  });
  if (t.empty) t.bootstrap();
  return t;
}

function project(t: TenancyStore, given: string | undefined): string {
  if (given) {
    const p = t.project(given) ?? t.projects().find((x) => x.name === given);
    if (!p) throw new CliError(`no project "${given}"; list them with GET /v1/orgs/<org>/projects`, EXIT.NOT_FOUND);
    return p.project_id;
  }
  const all = t.projects();
  if (all.length !== 1) throw new UsageError('this server has several projects: pass --project <id or name>');
  return all[0]!.project_id;
}

export const keysCreateCommand: Command = {
  path: ['keys', 'create'],
  summary: 'create an API key (printed once)',
  usage: 'service keys create [--data DIR] [--project ID|NAME] [--member ID] [--name TEXT] [--permissions read,write,admin]  (default: read and write, as far as the member’s role allows)',
  async run(args, ctx) {
    const { values } = parse(args, { data: { type: 'string' }, project: { type: 'string' }, member: { type: 'string' }, name: { type: 'string' }, permissions: { type: 'string' } }, this.usage);
    const t = await openTenancy(values, ctx);
    const projectId = project(t, values.project as string | undefined);
    const orgId = t.project(projectId)!.org_id;
    const memberId = (values.member as string | undefined) ?? t.members(orgId).find((m) => m.role === 'owner')?.member_id;
    const member = memberId ? t.member(memberId) : undefined;
    if (!member || member.org_id !== orgId) throw new CliError(`no member "${memberId ?? ''}" in this project's organization`, EXIT.NOT_FOUND);
    const cap = ROLE_CAP[member.role];
    const given = values.permissions as string | undefined;
    const perms = given === undefined ? cap.filter((p) => p !== 'admin') : (given.split(',').map((s) => s.trim()) as KeyPermission[]);
    for (const p of perms) if (!KEY_PERMISSIONS.includes(p)) throw new UsageError(`--permissions takes ${KEY_PERMISSIONS.join(', ')} (comma-separated), not "${p}"`);
    for (const p of perms) if (!cap.includes(p)) throw new UsageError(`member ${member.name} is a ${member.role}, whose keys may hold at most ${cap.join(', ')}`);
    const { secret, record } = t.createKey(projectId, member.member_id, perms, (values.name as string | undefined) ?? 'cli key');
    await t.commit();
    await t.close();
    if (values.json) ctx.json({ key: secret, ...keyJson(record) });
    else {
      ctx.out(secret);
      ctx.err(`key ${record.key_id} for project ${projectId} (${perms.join(', ')}); shown once, stored only as a hash`);
    }
    return 0;
  },
};

export const keysListCommand: Command = {
  path: ['keys', 'list'],
  summary: 'list API keys (prefix and last use only)',
  usage: 'service keys list [--data DIR] [--project ID|NAME]',
  async run(args, ctx) {
    const { values } = parse(args, { data: { type: 'string' }, project: { type: 'string' } }, this.usage);
    const t = await openTenancy(values, ctx, true);
    const keys = t.keys(values.project ? project(t, values.project as string) : undefined).map(keyJson);
    await t.close();
    if (values.json) ctx.json({ keys });
    else for (const k of keys) ctx.out(`${k.key_id}  ${k.prefix}…  ${k.permissions.join(',').padEnd(16)} last used ${k.last_used_at ?? 'never'}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ''}  ${k.name}`);
    return 0;
  },
};

export const keysRevokeCommand: Command = {
  path: ['keys', 'revoke'],
  summary: 'revoke an API key (refused at once)',
  usage: 'service keys revoke <key_id> [--data DIR]',
  async run(args, ctx) {
    const { values, positionals } = parse(args, { data: { type: 'string' } }, this.usage);
    if (positionals.length !== 1) throw new UsageError(`usage: ${this.usage}`);
    const t = await openTenancy(values, ctx, true);
    const rec = t.revokeKey(positionals[0]!);
    await t.commit();
    await t.close();
    if (!rec) throw new CliError(`no key ${positionals[0]}; see service keys list`, EXIT.NOT_FOUND);
    if (values.json) ctx.json(keyJson(rec));
    else ctx.out(`revoked ${rec.key_id} (${rec.prefix}…)`);
    return 0;
  },
};
