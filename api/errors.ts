/**
 * One error middleware: every failure leaves as `{error: {code, message, details?, request_id}}`
 * with its documented status. Engine errors map by code; body-parser errors map to 400/413/415;
 * anything unexpected is a 500 without a stack trace (logged for developers).
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { EngineError, type Logger } from '../engine/index.js';
import { HttpError, httpError } from './http-error.js';

const ENGINE_STATUS: Record<string, [number, string]> = {
  NOT_FOUND: [404, 'NOT_FOUND'],
  VALIDATION: [422, 'VALIDATION_FAILED'],
  CONFLICT: [409, 'CONFLICT'],
  CONTENT_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE'],
  MODEL_MISSING: [503, 'UNAVAILABLE'],
  STORE_CLOSED: [503, 'UNAVAILABLE'],
  UNSUPPORTED: [400, 'INVALID_REQUEST'],
  // Nobody reads it (the client went away); the search route answers nothing at all.
  CANCELLED: [503, 'UNAVAILABLE'],
};

/** Convert anything thrown into an HttpError. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof EngineError) {
    const [status, code] = ENGINE_STATUS[err.code] ?? [400, 'INVALID_REQUEST'];
    return new HttpError(status, code, err.message, err.details);
  }
  const e = err as { type?: string; status?: number; message?: string; limit?: number; length?: number };
  if (e && typeof e === 'object' && typeof e.type === 'string') {
    if (e.type === 'entity.too.large') return httpError('PAYLOAD_TOO_LARGE', `request body is larger than the limit of ${e.limit} bytes`, { limit: e.limit });
    if (e.type === 'entity.parse.failed') return httpError('INVALID_JSON', 'request body is not valid JSON');
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return httpError('UNSUPPORTED_MEDIA_TYPE', e.message ?? 'unsupported encoding');
    if (e.type === 'request.aborted') return httpError('INVALID_REQUEST', 'request was aborted');
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return new HttpError(e.status, 'INVALID_REQUEST', e.message ?? 'bad request');
  }
  if (e && typeof e === 'object' && e.status === 400) {
    // Errors express and body-parser mark as the client's: a body that does not decompress
    // (corrupt gzip, deflate or br), a path segment with broken %-encoding.
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_FORMAT') || code.startsWith('ERR_BROTLI'))) {
      return httpError('INVALID_REQUEST', 'the request body could not be decompressed; check its Content-Encoding (gzip, deflate or br) or send it uncompressed');
    }
    if (err instanceof URIError) return httpError('INVALID_REQUEST', 'the path contains broken %-encoding; encode ids with encodeURIComponent');
    return httpError('INVALID_REQUEST', e.message ?? 'bad request');
  }
  return httpError('INTERNAL', 'internal error; the request id identifies it in the server log');
}

export function errorMiddleware(logger: Logger, onServerError?: (err: unknown) => void): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const he = toHttpError(err);
    const requestId = String(res.locals.requestId ?? '');
    if (he.status >= 500) {
      logger.error('request failed', { err, method: req.method, path: req.path, request_id: requestId });
      onServerError?.(err);
    }
    if (he.retryAfter !== undefined) res.setHeader('Retry-After', String(he.retryAfter));
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(he.status).json({ error: { code: he.code, message: he.message, ...(he.details === undefined ? {} : { details: he.details }), request_id: requestId } });
  };
}

/** 404 for any route nobody claimed. */
export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(httpError('NOT_FOUND', `no route for ${req.method} ${req.path}`));
};
