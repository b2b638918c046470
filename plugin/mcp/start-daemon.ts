/**
 * Starting the memory daemon from the plugin's MCP server. The daemon is the `service` CLI's
 * (`service daemon start` waits until it answers); the CLI is found the way the hook scripts find
 * it (hooks/lib/run.ts): SERVICE_CLI, then the `service.json` that `service plugin install` writes
 * at the plugin root, then `service` on PATH.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface CliCommand {
  cmd: string;
  args: string[];
}

/** What `service plugin install` writes at the plugin root (see cli/plugin/install.ts). */
interface ServiceJson {
  cli?: string;
  node?: string;
}

/** The command that runs the `service` CLI. `pluginRoot` is the folder holding service.json. */
export function serviceCli(env: NodeJS.ProcessEnv, pluginRoot: string): CliCommand {
  if (env.SERVICE_CLI) return { cmd: process.execPath, args: [env.SERVICE_CLI] };
  try {
    const cfg = JSON.parse(fs.readFileSync(path.join(pluginRoot, 'service.json'), 'utf8')) as ServiceJson;
    if (cfg.cli && fs.existsSync(cfg.cli)) return { cmd: cfg.node && fs.existsSync(cfg.node) ? cfg.node : process.execPath, args: [cfg.cli] };
  } catch {
    // not installed through `service plugin install`
  }
  return { cmd: 'service-cli', args: [] };
}

/** Run `service daemon start`, which returns once the daemon answers on its socket. */
export function startDaemon(cli: CliCommand, env: NodeJS.ProcessEnv, timeoutMs = 45_000): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cli.cmd, [...cli.args, 'daemon', 'start'], { env, timeout: timeoutMs }, (err, _stdout, stderr) => {
      if (!err) {
        resolve();
        return;
      }
      const why = String(stderr).trim().split('\n').slice(-2).join(' ') || err.message;
      reject(new Error(`could not start the memory daemon with "${[cli.cmd, ...cli.args].join(' ')} daemon start" (${why}); check that the service CLI is installed, or run: service plugin install claude-code`));
    });
  });
}
