/** Full histories for convergence checks: every version as its export line, in one order. */
import assert from 'node:assert/strict';
import type { DaemonClient } from '../../daemon/client.js';
import type { MemoryEngine } from '../../engine/index.js';
import { eventually } from './errors.js';
import { call } from './server.js';

/** Export lines sorted by (memory_id, version): two machines agree iff these are equal. */
export function normalize(lines: Iterable<string>): string[] {
  const rows = [...lines].map((l) => l.trim()).filter((l) => l !== '').map((l) => JSON.parse(l) as { memory_id: string; version: number });
  rows.sort((a, b) => (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : a.version - b.version));
  return rows.map((r) => JSON.stringify(r));
}

export async function engineHistory(engine: MemoryEngine): Promise<string[]> {
  const out: string[] = [];
  for await (const l of engine.exportLines()) out.push(JSON.stringify(l));
  return normalize(out);
}

export async function daemonHistory(client: DaemonClient): Promise<string[]> {
  return normalize((await client.exportAll()).split('\n'));
}

/** Everything a key may read on the server, through its export API. */
export async function serverHistory(url: string, key: string): Promise<string[]> {
  const job = await call(url, key, 'POST', '/v1/exports', {});
  assert.equal(job.status, 202, job.text);
  await eventually(async () => (await call(url, key, 'GET', `/v1/exports/${job.json.export_id}`)).json.status === 'SUCCEEDED', 30_000, 'server export');
  return normalize((await call(url, key, 'GET', `/v1/exports/${job.json.export_id}/download`)).text.split('\n'));
}

/** No version id twice, and (memory_id, version) unique: nothing was duplicated. */
export function assertNoDuplicates(history: readonly string[], what: string): void {
  const rows = history.map((l) => JSON.parse(l) as { version_id: string; memory_id: string; version: number });
  assert.equal(new Set(rows.map((r) => r.version_id)).size, rows.length, `${what}: a version id appears twice`);
  assert.equal(new Set(rows.map((r) => `${r.memory_id}:${r.version}`)).size, rows.length, `${what}: a memory has two versions with one number`);
}
