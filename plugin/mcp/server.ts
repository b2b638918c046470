/**
 * The plugin's MCP server over stdio (`.mcp.json` starts it as `node mcp/server.cjs`, the way
 * hooks.json starts the hooks: without NODE_EXTRA_CA_CERTS, handed back to a daemon it starts). Server
 * `memory`, one tool `search`: Claude Code shows it as memory.search. Bundled with everything it
 * needs into one CommonJS file for Node 18+ (scripts/build-bundles.mjs).
 *
 * An invalid setting does not stop the server: every call answers with the error naming the
 * variable and its allowed values, so the user sees why rather than a server that failed to start.
 */
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { DaemonClient } from '../../daemon/client.js';
import { callerCaEnv } from '../../daemon/process-env.js';
import { loadConfig, loadConfigWithFile, resolvePaths, SCOPES, type Config } from '../../engine/index.js';
import manifest from '../.claude-plugin/plugin.json' with { type: 'json' };
import { searchTool } from './search-tool.js';
import { serviceCli, startDaemon } from './start-daemon.js';

function configOrError(env: NodeJS.ProcessEnv): Config | Error {
  try {
    return loadConfigWithFile(env);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

async function main(): Promise<void> {
  const env = process.env;
  const config = configOrError(env);
  // The socket comes from SERVICE_HOME alone, so it is known even when another setting is invalid.
  const home = config instanceof Error ? loadConfig({ SERVICE_HOME: env.SERVICE_HOME }).home : config.home;
  const client = new DaemonClient({ socketPath: resolvePaths(home).socket, timeoutMs: 15_000 });
  const pluginRoot = path.resolve(path.dirname(process.argv[1] ?? '.'), '..');
  const cwd = env.CLAUDE_PROJECT_DIR || process.cwd();

  const server = new McpServer({ name: 'memory', version: manifest.version });
  server.registerTool(
    'search',
    {
      title: 'Search memory',
      description:
        'Search memories from earlier sessions: decisions, constraints, conventions and preferences. ' +
        'Scopes: repo (this repository, the default unless SERVICE_SEARCH_SCOPE says otherwise), dir (captured in this directory), ' +
        'user (your personal memory across repositories), session (this session). Returns {results: [{memory_id, content, score}]}.',
      inputSchema: {
        query: z.string().trim().min(1, 'query must not be empty').max(10_000).describe('What to look for, in plain words'),
        scope: z.enum(SCOPES).optional().describe('repo | dir | user | session; defaults to SERVICE_SEARCH_SCOPE (repo)'),
      },
      outputSchema: {
        results: z.array(z.object({ memory_id: z.string(), content: z.string(), score: z.number() })),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) => searchTool(args, { config, client, cwd, startDaemon: () => startDaemon(serviceCli(env, pluginRoot), callerCaEnv(env)) }),
  );
  await server.connect(new StdioServerTransport());
}

main().catch((err: unknown) => {
  process.stderr.write(`memory MCP server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
