/** Public surface of the /v1 API. */
export { createApp } from './app.js';
export type { AppOptions } from './app.js';
export { ctxOf, requirePermission } from './context.js';
export type { ApiContext, Permission } from './context.js';
export { HttpError, httpError, ERROR_CODES } from './http-error.js';
export type { ErrorCode } from './http-error.js';
export { errorMiddleware, toHttpError } from './errors.js';
export { ExportJobs } from './export-jobs.js';
export { InferJobs } from './infer-jobs.js';
export type { InferJob, InferJobStore } from './infer-jobs.js';
export { inferMemories } from './infer.js';
export type { InferInput } from './infer.js';
export type { ExportJob, ExportJobStore, JobListener, JobStatus } from './export-jobs.js';
export { IdempotencyStore, MAX_IDEMPOTENCY_KEY } from './idempotency.js';
export type { StoredResponse } from './idempotency.js';
export { parseBody, filtersSchema, isoTime, limitFromQuery, requireUuid } from './schemas.js';
export { answerClientErrors } from './client-errors.js';
