/** `service serve`: the multi-tenant /v1 server over TCP. */
import path from 'node:path';
import { createLogger, fileSink, resolvePaths } from '../../engine/index.js';
import { createServer, DataDirLockedError } from '../../server/index.js';
import { intFlag, parse } from '../args.js';
import { CliError, type Command } from '../command.js';

export const serveCommand: Command = {
  path: ['serve'],
  summary: 'run the multi-tenant /v1 REST server',
  usage: 'service serve [--host 127.0.0.1] [--port 8420] [--data DIR]',
  async run(args, ctx) {
    const { values } = parse(args, { host: { type: 'string' }, port: { type: 'string' }, data: { type: 'string' } }, this.usage);
    const config = ctx.config();
    const host = (values.host as string | undefined) ?? config.host;
    const port = intFlag(values.port, 'port', 0, 65535) ?? config.port;
    const dataDir = path.resolve((values.data as string | undefined) ?? resolvePaths(config.home).serverDir);
    const logger = createLogger(fileSink({ file: path.join(dataDir, 'logs', 'server.log') }), config.logLevel, 'server');
    const server = await createServer({ dataDir, config, logger }).catch((err: unknown) => {
      throw err instanceof DataDirLockedError ? new CliError(err.message) : err;
    });
    const { url } = await server.listen(port, host);
    if (server.bootstrap) {
      ctx.out('Created the default organization and project with an admin key.');
      ctx.out('This key is shown once; store it now (it is kept only as a hash):');
      ctx.out('');
      ctx.out(`  ${server.bootstrap.secret}`);
      ctx.out('');
    }
    ctx.out(`memory server listening on ${url} (data: ${dataDir})`);
    if (values.json) ctx.json({ url, data: dataDir, bootstrap_key: server.bootstrap?.secret ?? null });
    await new Promise<void>((resolve) => {
      const stop = (): void => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    ctx.err('shutting down…');
    await server.close();
    return 0;
  },
};
