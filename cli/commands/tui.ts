/**
 * `service` / `service tui`: the dashboard. It needs a terminal; it starts the daemon when none
 * answers (and offers to again if it stops), and while it runs anything the process would print
 * outside the dashboard goes to <home>/logs/tui.log instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolvePaths } from '../../engine/index.js';
import { intFlag, parse } from '../args.js';
import { EXIT, UsageError, type Command } from '../command.js';
import { clientFor, ensureDaemon } from '../daemon-control.js';

export const tuiCommand: Command = {
  path: ['tui'],
  summary: 'the dashboard: status, pause/resume, live search, forget (also plain `service`)',
  usage: 'service [tui] [--poll MS]',
  async run(args, ctx) {
    const { values } = parse(args, { poll: { type: 'string' } }, this.usage);
    if (values.json) throw new UsageError('the dashboard is interactive; for machine-readable state use: service status --json');
    const pollMs = intFlag(values.poll, 'poll', 250, 60_000);
    const { stdin, stdout, stderr, env } = ctx.io;
    if (!stdout.isTTY || !stdin.isTTY) {
      ctx.err('service: the dashboard needs an interactive terminal. Try "service status", or "service --help" for every command.');
      return EXIT.USAGE;
    }
    const config = ctx.config();
    const paths = resolvePaths(config.home);
    fs.mkdirSync(paths.logDir, { recursive: true, mode: 0o700 });
    const logFile = path.join(paths.logDir, 'tui.log');
    // NO_COLOR (no-color.org) also switches Ink's colour library off; it reads the environment once, at load.
    if (env.NO_COLOR) process.env.FORCE_COLOR = '0';
    const { runDashboard, quietProcess } = await import('../../tui/index.js');
    const restore = quietProcess((text) => fs.appendFileSync(logFile, `${new Date().toISOString()} ${text}`, { mode: 0o600 }));
    try {
      await runDashboard({
        client: clientFor(config, 5000),
        cwd: process.cwd(),
        env,
        stdout: stdout as NodeJS.WriteStream,
        stdin: stdin as NodeJS.ReadStream,
        stderr: stderr as NodeJS.WriteStream,
        startDaemon: () => ensureDaemon(config, env, undefined, { explicit: true }),
        ...(pollMs ? { pollMs } : {}),
      });
    } finally {
      restore();
    }
    return EXIT.OK;
  },
};
