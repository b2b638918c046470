/**
 * Process defaults set before anything else loads (imported first by main.ts): LanceDB's native
 * logger writes to stderr and is configured once, at load, from LANCEDB_LOG. Keep it to errors so
 * routine notices never reach a terminal; developers can still set LANCEDB_LOG themselves.
 */
process.env.LANCEDB_LOG ??= 'error';
