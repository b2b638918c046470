/**
 * Local errors of the engine. They carry a string code and never cross a wire as-is: the API's
 * error middleware maps each code to an HTTP status and the documented error body.
 */
export type EngineErrorCode =
  | 'NOT_FOUND'
  | 'VALIDATION'
  | 'CONFLICT'
  | 'CONTENT_TOO_LARGE'
  | 'MODEL_MISSING'
  | 'STORE_CLOSED'
  | 'UNSUPPORTED'
  /** The caller went away before the work began (a search whose HTTP client closed the connection). */
  | 'CANCELLED';

export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export function notFound(what: string, id: string): EngineError {
  return new EngineError('NOT_FOUND', `${what} ${id} was not found`, { id });
}
