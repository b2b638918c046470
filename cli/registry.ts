/** Every command of the `service` CLI, in help order. */
import type { Command } from './command.js';
import { keysCreateCommand, keysListCommand, keysRevokeCommand } from './commands/keys.js';
import { orgsCreateCommand, orgsListCommand } from './commands/orgs.js';
import { serveCommand } from './commands/serve.js';

export const COMMANDS: Command[] = [serveCommand, keysCreateCommand, keysListCommand, keysRevokeCommand, orgsCreateCommand, orgsListCommand];
