'use strict';
/* global require, module, Buffer, performance */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS package, like the one it stands in for */
/**
 * Benchmark-only stand-in for `better-sqlite3`, installed for mem0ai through package.json
 * `overrides` (scripts/eval/peer.ts). mem0's OSS "memory" vector store keeps its vectors in SQLite
 * through better-sqlite3, a native addon whose install downloads a prebuilt binary from GitHub or
 * compiles SQLite with node-gyp: neither belongs in `npm ci` here (no network beyond the npm
 * registry; a compiler cannot be assumed). This file gives mem0 the same synchronous API subset it
 * calls (new Database(path), exec, prepare().run/all/get, transaction) on real SQLite compiled to
 * WebAssembly (node-sqlite3-wasm), and counts the time spent inside SQLite so the benchmark can
 * report how much of mem0's latency this substitution could account for.
 */
const { Database: WasmDatabase } = require('node-sqlite3-wasm');

/** Time spent in SQLite calls (ms) and their number, for the benchmark's report. */
const timing = { ms: 0, calls: 0 };

function bindValues(params) {
  if (params.length === 1 && params[0] !== null && typeof params[0] === 'object' && !(params[0] instanceof Uint8Array) && !Array.isArray(params[0])) return params[0];
  return params;
}

/** better-sqlite3 hands BLOBs out as Buffers. */
function toBuffers(row) {
  if (!row) return row;
  for (const k of Object.keys(row)) {
    const v = row[k];
    if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  return row;
}

function timed(fn) {
  const t0 = performance.now();
  try {
    return fn();
  } finally {
    timing.ms += performance.now() - t0;
    timing.calls++;
  }
}

class Statement {
  constructor(stmt) {
    this.stmt = stmt;
  }
  run(...params) {
    return timed(() => this.stmt.run(bindValues(params)));
  }
  all(...params) {
    return timed(() => this.stmt.all(bindValues(params)).map(toBuffers));
  }
  get(...params) {
    const row = timed(() => this.stmt.get(bindValues(params)));
    return row === null ? undefined : toBuffers(row);
  }
}

class Database {
  constructor(filename) {
    this.db = new WasmDatabase(filename === undefined || filename === '' ? ':memory:' : filename);
    // Prepared statements live in WebAssembly memory until finalized: keep one per SQL text.
    this.statements = new Map();
  }
  exec(sql) {
    timed(() => this.db.exec(sql));
    return this;
  }
  prepare(sql) {
    let s = this.statements.get(sql);
    if (!s) {
      s = new Statement(this.db.prepare(sql));
      this.statements.set(sql, s);
    }
    return s;
  }
  transaction(fn) {
    return (...args) => {
      this.exec('BEGIN');
      try {
        const out = fn(...args);
        this.exec('COMMIT');
        return out;
      } catch (err) {
        this.exec('ROLLBACK');
        throw err;
      }
    };
  }
  close() {
    for (const s of this.statements.values()) s.stmt.finalize();
    this.statements.clear();
    this.db.close();
  }
}

module.exports = Database;
module.exports.default = Database;
module.exports.Database = Database;
module.exports.timing = timing;
