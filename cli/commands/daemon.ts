/** `service daemon start|stop|restart|status|run`. */
import { startDaemon, readLock } from '../../daemon/index.js';
import fs from 'node:fs';
import { comparableSettings, configFilePath, loadConfigWithFile, resolvePaths, type Config, type Env } from '../../engine/index.js';
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
    let config = ctx.config();
    const paths = resolvePaths(config.home);
    let stopping = false;
    let current: Awaited<ReturnType<typeof startDaemon>> | null = null;
    // A storage error nobody caught must not end the process: capture only needs the journal.
    process.on('unhandledRejection', (err) => {
      if (current?.started) current.running.daemon.noteUnexpected(err);
    });
    for (;;) {
      const r = await startDaemon({ config, paths, version: VERSION });
      current = r;
      if (!r.started) {
        if (values.json) ctx.json({ started: false, running: true, pid: r.holder.pid });
        else if (!values.background) ctx.out(`the daemon is already running (pid ${r.holder.pid})`);
        return EXIT.OK;
      }
      if (values.json) ctx.json({ started: true, running: true, pid: process.pid, socket: paths.socket });
      else if (!values.background) ctx.out(`memory daemon ${VERSION} running (pid ${process.pid}, socket ${paths.socket}); Ctrl-C stops it`);
      const stop = (): void => {
        stopping = true;
        void r.running.stop();
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      process.once('SIGHUP', stop);
      // Settings that stick: when the config file changes what this daemon runs with, restart on it.
      let restartWith: Config | null = null;
      const next = watchConfigFile(ctx.io.env, config, (changed, fresh) => {
        ctx.err(`${new Date().toISOString()} config file changed (${changed.join(', ')}); restarting the daemon with it`);
        restartWith = fresh;
        void r.running.stop();
      }, (message) => ctx.err(`${new Date().toISOString()} ${message}`));
      await r.running.stopped;
      next.close();
      process.removeListener('SIGTERM', stop);
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGHUP', stop);
      if (stopping || !restartWith) return EXIT.OK;
      config = restartWith;
    }
  },
};

/**
 * Watch the config file; call `restart` with the new configuration when a change alters a setting
 * the daemon runs with. An invalid file is reported and ignored (the daemon keeps its settings).
 */
function watchConfigFile(env: Env, current: Config, restart: (changed: string[], fresh: Config) => void, report: (message: string) => void): { close(): void } {
  const file = configFilePath(env);
  const before = comparableSettings(current);
  const onChange = (): void => {
    let fresh: Config;
    try {
      fresh = loadConfigWithFile(env);
    } catch (err) {
      report(`config file ${file} not applied: ${(err as Error).message}`);
      return;
    }
    const after = comparableSettings(fresh);
    const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
    if (changed.length > 0) {
      fs.unwatchFile(file, onChange);
      restart(changed, fresh);
    }
  };
  fs.watchFile(file, { interval: CONFIG_POLL_MS, persistent: false }, onChange);
  return { close: () => fs.unwatchFile(file, onChange) };
}

/** How often the daemon looks at the config file's modification time. */
const CONFIG_POLL_MS = 500;

export const daemonStartCommand: Command = {
  path: ['daemon', 'start'],
  summary: 'start the daemon in the background (harmless when running)',
  usage: 'service daemon start',
  async run(args, ctx) {
    const { values } = parse(args, {}, this.usage);
    const r = await ensureDaemon(ctx.config(), ctx.io.env, undefined, { explicit: true });
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

export const daemonRestartCommand: Command = {
  path: ['daemon', 'restart'],
  summary: 'restart the daemon with this shell\'s environment and the config file',
  usage: 'service daemon restart',
  async run(args, ctx) {
    const { values } = parse(args, {}, this.usage);
    const config = ctx.config();
    const stopped = await stopDaemon(config);
    const r = await ensureDaemon(config, ctx.io.env, undefined, { explicit: true });
    if (values.json) ctx.json({ stopped_pid: stopped, pid: r.pid });
    else ctx.out(stopped === null ? `the daemon was not running; started it (pid ${r.pid})` : `daemon restarted (pid ${stopped} → ${r.pid})`);
    return EXIT.OK;
  },
};
