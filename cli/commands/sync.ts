/** `service sync [status|now]`: the mirror into a /v1 server, through the daemon. */
import { DaemonApiError } from '../../daemon/client.js';
import type { RoundReport, SyncStatus } from '../../sync/index.js';
import { parse } from '../args.js';
import { CliError, EXIT, type Command, type CommandContext } from '../command.js';
import { readyDaemon } from '../daemon-control.js';
import { plural } from '../plural.js';

function ago(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return `${iso} (${s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`} ago)`;
}

function printStatus(s: SyncStatus, ctx: CommandContext): void {
  if (!s.enabled) {
    ctx.out(`sync       off: ${s.reason}`);
    if (s.backlog.purges > 0) ctx.out(`purges     ${s.backlog.purges} recorded, pushed once sync is on`);
    return;
  }
  const v = s.verify;
  ctx.out(`sync       ${s.state}, server ${s.server}`);
  ctx.out(`server     ${s.reachable === null ? 'not contacted yet' : s.reachable ? 'reachable' : 'unreachable'}; last success ${ago(s.last_ok_at)}`);
  ctx.out(`key        ${v === null ? 'not checked yet' : v.valid ? `valid (project ${v.project_id}, member ${v.member_id}), checked ${ago(v.checked_at)}` : `refused: ${v.error?.message ?? 'invalid'} (check SERVICE_API_KEY)`}`);
  ctx.out(`last push  ${s.last_push ? `${ago(s.last_push.at)}, ${s.last_push.versions} versions` : 'never'}`);
  ctx.out(`last pull  ${s.last_pull ? `${ago(s.last_pull.at)}, ${s.last_pull.versions} new versions` : 'never'}`);
  ctx.out(`backlog    ${s.backlog.versions === 0 ? 'none: the server has every local version' : `up to ${s.backlog.versions} versions`}${s.backlog.purges > 0 ? `, ${s.backlog.purges} purges` : ''}`);
  if (s.parked.versions > 0 || s.parked.purges.length > 0) {
    ctx.out(`parked     ${s.parked.versions} versions and ${s.parked.purges.length} purges the server refused (service sync now --retry-parked sends them again):`);
    for (const p of s.parked.items) ctx.out(`  memory ${p.memory_id}, version ${p.version_id}: ${p.error.code} ${p.error.message}`);
    for (const p of s.parked.purges) ctx.out(`  purge ${p.memory_id}: ${p.error?.code} ${p.error?.message}`);
  }
  if (s.last_error && s.state !== 'idle') ctx.out(`last error ${s.last_error.at}: ${s.last_error.message}${s.next_attempt_at ? `; next try ${s.next_attempt_at}` : ''}`);
}

export const syncStatusCommand: Command = {
  path: ['sync', 'status'],
  summary: 'sync state: last push and pull, backlog, parked versions, server and key',
  usage: 'service sync status',
  async run(args, ctx) {
    const { values } = parse(args, {}, this.usage);
    const s = await (await readyDaemon(ctx)).syncStatus<SyncStatus>();
    if (values.json) ctx.json(s);
    else printStatus(s, ctx);
    return EXIT.OK;
  },
};

export const syncCommand: Command = { ...syncStatusCommand, path: ['sync'], usage: 'service sync [status|now]' };

export const syncNowCommand: Command = {
  path: ['sync', 'now'],
  summary: 'push and pull now, and report what moved',
  usage: 'service sync now [--retry-parked]',
  async run(args, ctx) {
    const { values } = parse(args, { 'retry-parked': { type: 'boolean' } }, this.usage);
    const client = await readyDaemon(ctx, 600_000);
    let r: { round: RoundReport; status: SyncStatus };
    try {
      r = await client.syncNow<{ round: RoundReport; status: SyncStatus }>(values['retry-parked'] ? { retry_parked: true } : {});
    } catch (err) {
      if (err instanceof DaemonApiError && err.code === 'CONFLICT') throw new CliError(err.message, EXIT.CONFIG);
      throw err;
    }
    const refused = !r.round.ok && /UNAUTHORI[SZ]ED|FORBIDDEN|INVALID_API_KEY|REVOKED|401|403/i.test(`${r.round.error?.code ?? ''} ${r.round.error?.message ?? ''}`);
    if (values.json) ctx.json(r.round.ok ? r : { error: { code: refused ? 'UNAUTHORIZED' : (r.round.error?.code ?? 'FAILED'), message: `sync failed: ${r.round.error?.message ?? 'unknown error'}` }, ...r });
    else {
      const { round } = r;
      if (round.ok) {
        const p = round.push!;
        const q = round.pull!;
        ctx.out(`pushed     ${plural(p.sent, 'version')} (${p.accepted} new on the server, ${p.exists} it had, ${p.rejected} refused), ${plural(p.purges, 'purge')}`);
        ctx.out(`pulled     ${plural(q.inserted, 'new version')} from ${plural(q.events, 'event')}${q.purged > 0 ? `, ${plural(q.purged, 'memory', 'memories')} erased` : ''}${q.rebased + p.rebased > 0 ? `; ${plural(q.rebased + p.rebased, 'local version')} renumbered after concurrent edits` : ''}`);
        ctx.out(`took       ${Math.round(round.ms)} ms`);
      } else ctx.err(`sync failed: ${round.error?.message}${refused ? ' (check SERVICE_API_KEY: service config set api_key <key>, or service plugin status)' : ''}`);
      printStatus(r.status, ctx);
    }
    // A refused key is the documented "unauthorized", whatever the transport called it.
    return r.round.ok ? EXIT.OK : refused ? EXIT.UNAUTHORIZED : EXIT.FAILED;
  },
};
