/** `service daemon start|stop|status|run`. */
import { startDaemon, readLock } from '../../daemon/index.js';
import { resolvePaths } from '../../engine/index.js';
import { parse } from '../args.js';
import { EXIT, type Command } from '../command.js';
import { clientFor, ensureDaemon, stopDaemon } from '../daemon-control.js';
import { VERSION } from '../version.js';

export const daemonRunCommand: Command = {
  path: ['daemon', 'run'],
  summary: 'run the daemon in the foreground',
  usage: 'service daemon run [--background]',
  async run(args, ctx) {
    const { values } = parse(args, { background: { type: 'boolean' } }, this.usage);
    const config = ctx.config();
    const paths = resolvePaths(config.home);
    const r = await startDaemon({ config, paths, version: VERSION });
    if (!r.started) {
      if (!values.background) ctx.out(`the daemon is already running (pid ${r.holder.pid})`);
      return EXIT.OK;
    }
    if (!values.background) ctx.out(`memory daemon ${VERSION} running (pid ${process.pid}, socket ${paths.socket}); Ctrl-C stops it`);
    // A storage error nobody caught must not end the process: capture only needs the journal.
    process.on('unhandledRejection', (err) => r.running.daemon.noteUnexpected(err));
    const stop = (): void => void r.running.stop();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    process.once('SIGHUP', stop);
    await r.running.stopped;
    return EXIT.OK;
  },
};

export const daemonStartCommand: Command = {
  path: ['daemon', 'start'],
  summary: 'start the daemon in the background (harmless when running)',
  usage: 'service daemon start',
  async run(args, ctx) {
    const { values } = parse(args, {}, this.usage);
    const r = await ensureDaemon(ctx.config(), ctx.io.env);
    if (values.json) ctx.json(r);
    else ctx.out(r.started ? `daemon started (pid ${r.pid})` : `the daemon is already running (pid ${r.pid})`);
    return EXIT.OK;
  },
};

export const daemonStopCommand: Command = {
  path: ['daemon', 'stop'],
  summary: 'stop the daemon (it finishes in-flight work first)',
  usage: 'service daemon stop',
  async run(args, ctx) {
    const { values } = parse(args, {}, this.usage);
    const pid = await stopDaemon(ctx.config());
    if (values.json) ctx.json({ stopped: pid !== null, pid });
    else ctx.out(pid === null ? 'the daemon was not running' : `daemon stopped (pid ${pid})`);
    return EXIT.OK;
  },
};

export const daemonStatusCommand: Command = {
  path: ['daemon', 'status'],
  summary: 'is the daemon running?',
  usage: 'service daemon status',
  async run(args, ctx) {
    const { values } = parse(args, {}, this.usage);
    const config = ctx.config();
    const paths = resolvePaths(config.home);
    const client = clientFor(config, 3000);
    const up = await client.ping(1500);
    const lock = readLock(paths.lockFile);
    if (values.json) ctx.json({ running: up, pid: up ? (lock?.pid ?? null) : null, socket: paths.socket, version: up ? (lock?.version ?? null) : null });
    else ctx.out(up ? `running (pid ${lock?.pid ?? '?'}, version ${lock?.version ?? '?'}, socket ${paths.socket})` : 'not running; start it with: service daemon start');
    return up ? EXIT.OK : EXIT.DAEMON_UNREACHABLE;
  },
};
