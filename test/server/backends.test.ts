/**
 * The server suites again on the PostgreSQL backend (SERVICE_DATABASE_URL): the same files, run
 * in a child `node --test` with TEST_SERVER_BACKEND=postgres, so every route behaves the same on
 * both backends. The embedded runs are the files themselves.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { skipWithoutPostgres } from '../helpers/postgres.js';

// Paths below test/server; the /v1 memory routes (Idempotency-Keys, infer jobs, exports) too.
const SUITES = ['verify', 'tenancy', 'limits', 'isolation', 'events', 'webhooks', 'sync-push', 'entities', 'telemetry', '../api/memories'];

describe('server suites on PostgreSQL', { skip: skipWithoutPostgres() }, () => {
  it(`pass: ${SUITES.join(', ')}`, async () => {
    const here = path.dirname(new URL(import.meta.url).pathname);
    const files = SUITES.map((s) => path.join(here, `${s}.test.js`));
    // Without the parent runner's NODE_TEST_CONTEXT, the child reports (and exits) on its own.
    const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
    const child = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-timeout=600000', '--test-reporter=tap', ...files], {
      env: { ...env, TEST_SERVER_BACKEND: 'postgres' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const failed = out.split('\n').filter((l) => /^\s*not ok /.test(l));
    assert.equal(code, 0, `server suites failed on PostgreSQL:\n${failed.join('\n')}\n${out.slice(-4000)}`);
    assert.match(out, /# fail 0/);
  });
});
