/**
 * POST /v1/telemetry takes batches of the plugin's anonymous events under a strict schema (any
 * other field is refused, so no content, paths or ids beyond a random install id can ride along);
 * GET /v1/telemetry/summary shows the project's aggregate counts to admin keys.
 */
import { Router } from 'express';
import { z } from 'zod';
import { ctxOf, parseBody, requirePermission } from '../api/index.js';
import { projectOf } from './context.js';
import { parseQuery } from './paging.js';

/** Events per request. */
export const TELEMETRY_BATCH_MAX = 100;

const OS = ['aix', 'android', 'darwin', 'freebsd', 'haiku', 'linux', 'netbsd', 'openbsd', 'sunos', 'win32', 'cygwin'] as const;
const ARCH = ['arm', 'arm64', 'ia32', 'loong64', 'mips', 'mipsel', 'ppc', 'ppc64', 'riscv64', 's390', 's390x', 'x64'] as const;

const telemetryEvent = z
  .object({
    event: z.string().max(64).regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, 'must be a dotted lowercase name such as recall.completed'),
    plugin_version: z.string().regex(/^\d{1,4}\.\d{1,4}\.\d{1,6}(-[0-9A-Za-z.]{1,32})?$/, 'must be a version such as 1.2.0'),
    runtime: z
      .object({
        node: z.string().regex(/^v?\d{1,3}\.\d{1,3}\.\d{1,4}$/, 'must be a Node.js version such as v20.11.1'),
        os: z.enum(OS),
        arch: z.enum(ARCH),
      })
      .strict(),
    duration_ms: z.number().min(0).max(86_400_000).optional(),
    error_class: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be an error class or code such as TimeoutError').optional(),
    install_id: z.uuid('must be a random UUID'),
  })
  .strict();
const batchSchema = z.object({ events: z.array(telemetryEvent).min(1, 'send at least one event').max(TELEMETRY_BATCH_MAX) }).strict();
const noQuery = z.object({}).strict();

export function telemetryRoutes(): Router {
  const r = Router();

  r.post('/telemetry', async (req, res) => {
    const b = parseBody(batchSchema, req.body);
    await projectOf(res).telemetry.record(b.events);
    res.status(202).json({ accepted: b.events.length });
  });

  r.get('/telemetry/summary', async (req, res) => {
    requirePermission(ctxOf(res), 'admin');
    parseQuery(noQuery, req.query);
    res.json(await projectOf(res).telemetry.summary());
  });

  return r;
}
