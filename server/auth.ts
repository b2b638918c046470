/**
 * API-key authentication: `Authorization: Bearer <key>` (or `Token <key>`). Sets `res.locals.key`
 * or answers 401 with the error body and a hint to verify the key.
 */
import type { RequestHandler } from 'express';
import { httpError } from '../api/index.js';
import type { ApiKeyRecord, TenancyStore } from './tenancy.js';

export function bearerSecret(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(Bearer|Token)\s+(\S+)\s*$/i.exec(header);
  return m ? m[2]! : null;
}

export function authenticate(tenancy: TenancyStore): RequestHandler {
  return (req, res, next) => {
    const secret = bearerSecret(req.get('Authorization'));
    if (!secret) {
      next(httpError('UNAUTHORIZED', 'missing API key: send Authorization: Bearer <key> (export SERVICE_API_KEY for the plugin)'));
      return;
    }
    const key = tenancy.authenticate(secret);
    if (!key) {
      next(httpError('UNAUTHORIZED', 'invalid or revoked API key; check it with GET /api/v1/verify'));
      return;
    }
    res.locals.key = key;
    next();
  };
}

export function keyOf(res: { locals: Record<string, unknown> }): ApiKeyRecord {
  const k = res.locals.key as ApiKeyRecord | undefined;
  if (!k) throw httpError('UNAUTHORIZED', 'missing API key');
  return k;
}
