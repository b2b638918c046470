/**
 * The installed plugin calls the CLI by the absolute path recorded at install, never by a PATH
 * lookup: on Debian and Ubuntu `service` is the system's own init-script tool (in sbin, often first
 * on PATH), and a slash command running it would run the wrong program. `service plugin install`
 * rewrites every `service <subcommand>` of the copied slash commands and agent into the absolute
 * command (Node.js and the CLI entry file recorded in service.json).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Subcommands the plugin's markdown runs. */
const SUBCOMMANDS = ['search', 'remember', 'forget', 'undo', 'pause', 'resume', 'status', 'plugin', 'list', 'show', 'history'];

/** A shell word for `p`: bare when it holds only safe characters, else single-quoted. */
function shellWord(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

/** The command line that runs this CLI: `<node> <cli entry>`. */
export function pinnedCommand(cli: { node: string; cli: string }): string {
  return `${shellWord(cli.node)} ${shellWord(cli.cli)}`;
}

/** `text` with every `service <subcommand>` (at a word start) replaced by the pinned command. */
export function pinCliInText(text: string, command: string): string {
  const re = new RegExp(`(^|[\\s\`(!"'])service (?=(?:${SUBCOMMANDS.join('|')})\\b)`, 'gm');
  return text.replace(re, (_m, lead: string) => `${lead}${command} `);
}

/** Rewrite the slash commands and agents of a plugin folder to run the pinned CLI. */
export function pinCliInPlugin(dir: string, cli: { node: string; cli: string }): void {
  const command = pinnedCommand(cli);
  for (const sub of ['commands', 'agents']) {
    const folder = path.join(dir, sub);
    if (!fs.existsSync(folder)) continue;
    for (const f of fs.readdirSync(folder)) {
      if (!f.endsWith('.md')) continue;
      const file = path.join(folder, f);
      const text = fs.readFileSync(file, 'utf8');
      const pinned = pinCliInText(text, command);
      if (pinned !== text) fs.writeFileSync(file, pinned);
    }
  }
}

/** Is `cliFile` the entry file of a memory-service CLI (its package.json, two folders up, says so)? */
export function isOurCli(cliFile: string): boolean {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(path.dirname(cliFile), '..', '..', 'package.json'), 'utf8')) as { name?: string; bin?: Record<string, string> };
    return pkg.name === 'memory-service' && path.basename(cliFile) === 'main.js' && path.basename(path.dirname(cliFile)) === 'cli';
  } catch {
    return false;
  }
}

/** Slash commands and agents of a plugin folder that still run `service` from PATH. */
export function unpinnedFiles(dir: string): string[] {
  const out: string[] = [];
  for (const sub of ['commands', 'agents']) {
    const folder = path.join(dir, sub);
    if (!fs.existsSync(folder)) continue;
    for (const f of fs.readdirSync(folder)) {
      if (!f.endsWith('.md')) continue;
      const text = fs.readFileSync(path.join(folder, f), 'utf8');
      if (pinCliInText(text, '\0') !== text) out.push(`${sub}/${f}`);
    }
  }
  return out;
}

/**
 * What `service` on PATH runs: 'ours' (this package's CLI), 'other' (another program, such as
 * Debian's init-script tool), or 'none'.
 */
export function serviceOnPath(env: NodeJS.ProcessEnv): { kind: 'ours' | 'other' | 'none'; path: string | null } {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, 'service');
    try {
      fs.accessSync(file, fs.constants.X_OK);
    } catch {
      continue;
    }
    let real = file;
    try {
      real = fs.realpathSync(file);
    } catch {
      // a dangling link: not ours
    }
    return { kind: isOurCli(real) ? 'ours' : 'other', path: file };
  }
  return { kind: 'none', path: null };
}
