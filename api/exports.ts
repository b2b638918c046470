/** /v1/exports and /v1/imports: lossless NDJSON of every version. */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { Router } from 'express';
import { parseImportLine, type PlannedRow } from '../engine/index.js';
import { ctxOf, requirePermission } from './context.js';
import type { ExportJob } from './export-jobs.js';
import { httpError } from './http-error.js';
import { noQueryParams, requireUuid } from './schemas.js';

const NDJSON_TYPES = ['application/x-ndjson', 'application/jsonl', 'application/ndjson', 'text/plain'];

export function exportsRouter(opts: { importLimitBytes: number }): Router {
  const r = Router();

  r.post('/exports', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    noQueryParams(req.query as Record<string, unknown>);
    const body = req.body as unknown;
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length > 0)) {
      throw httpError('VALIDATION_FAILED', 'POST /v1/exports takes an empty JSON object: it exports every version you can read');
    }
    const job = await ctx.exports.start(ctx.engine, ctx.principal, ctx.readFilter);
    res.status(202).json(jobJson(job, req.baseUrl));
  });

  r.get('/exports/:id', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    const id = requireUuid(String(req.params.id), 'export id');
    const job = await ctx.exports.get(id);
    if (!job || job.owner !== ctx.principal) throw httpError('NOT_FOUND', `export ${id} was not found`, { id });
    res.json(jobJson(job, req.baseUrl));
  });

  r.get('/exports/:id/download', async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'read');
    const id = requireUuid(String(req.params.id), 'export id');
    const job = await ctx.exports.get(id);
    if (!job || job.owner !== ctx.principal) throw httpError('NOT_FOUND', `export ${id} was not found`, { id });
    if (job.status !== 'SUCCEEDED') throw httpError('CONFLICT', `export ${id} is ${job.status}; download it once its status is SUCCEEDED`, { status: job.status });
    res.setHeader('Content-Type', 'application/x-ndjson');
    res.setHeader('Content-Disposition', `attachment; filename="memories-${id}.ndjson"`);
    res.setHeader('Content-Length', String(job.bytes));
    await pipeline(Readable.from(ctx.exports.content(id)), res);
  });

  r.post('/imports', express.text({ type: NDJSON_TYPES, limit: opts.importLimitBytes }), async (req, res) => {
    const ctx = ctxOf(res);
    requirePermission(ctx, 'write');
    if (typeof req.body !== 'string') {
      throw httpError('UNSUPPORTED_MEDIA_TYPE', 'send the export file as Content-Type: application/x-ndjson (one version per line)');
    }
    const lines = req.body.split('\n');
    // Validate every line (and let the host vet the rows) before anything is stored.
    const rows: PlannedRow[] = [];
    lines.forEach((line, i) => {
      if (line.trim() !== '') rows.push(parseImportLine(line.trim(), i + 1));
    });
    await ctx.importGuard?.(rows);
    const result = await ctx.engine.import(lines, ctx.importRewrite ? { rewrite: ctx.importRewrite } : {});
    ctx.onImport?.(result);
    res.json(result);
  });

  return r;
}

function jobJson(job: ExportJob, base: string): Record<string, unknown> {
  const { owner: _owner, ...rest } = job;
  return { ...rest, download_url: job.status === 'SUCCEEDED' ? `${base}/exports/${job.export_id}/download` : null };
}
