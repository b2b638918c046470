/**
 * Imports are all or nothing and meet the limits of every write; a version_id is the identity of
 * one version; a model that returns NaN cannot break a write or a search. Over a real LanceDB.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FakeEmbedder, LanceStore, MemoryEngine, type EngineError } from '../../engine/index.js';
import { tempDir } from '../helpers/tmp.js';

async function engine(embedder = new FakeEmbedder(8)): Promise<MemoryEngine> {
  const e = new MemoryEngine({ store: new LanceStore({ dir: path.join(tempDir('import-'), 'db'), dim: 8 }), embedder, background: false, maxContentChars: 200, maxMetadataBytes: 512 });
  await e.open();
  return e;
}

function line(memoryId: string, version: number, content: string, extra: Record<string, unknown> = {}): string {
  const now = new Date(Date.UTC(2026, 0, 1) + version * 1000).toISOString();
  return JSON.stringify({
    kind: 'version', version_id: crypto.randomUUID(), memory_id: memoryId, version, tx: version, content, user_id: 'u', agent_id: null, app_id: null, run_id: null,
    space: 'project', repo: null, dir: null, category: 'note', metadata: {}, source: { kind: 'import' }, valid_from: now, valid_to: null, recorded_at: now, created_at: now, deleted: false, block: null, ...extra,
  });
}

async function count(e: MemoryEngine): Promise<number> {
  return (await e.store.stats()).versions;
}

describe('imports', () => {
  it('writes nothing when line 550 of 600 conflicts', async () => {
    const e = await engine();
    const taken = (await e.add({ content: 'already here', user_id: 'u' }))[0]!;
    const lines = Array.from({ length: 600 }, (_, i) => line(crypto.randomUUID(), 1, `imported fact number ${i}`));
    lines[549] = line(taken.memory_id, 1, 'a different first version');
    await assert.rejects(e.import(lines), (err: EngineError) => err.code === 'CONFLICT' && /nothing was imported/.test(err.message));
    assert.equal(await count(e), 1);
    await e.close();
  });

  it('holds imported lines to the content and metadata limits, and writes nothing', async () => {
    const e = await engine();
    await assert.rejects(e.import([line(crypto.randomUUID(), 1, 'ok'), line(crypto.randomUUID(), 1, 'x'.repeat(201))]), (err: EngineError) => err.code === 'CONTENT_TOO_LARGE' && /line 2/.test(err.message));
    await assert.rejects(e.import([line(crypto.randomUUID(), 1, 'ok'), line(crypto.randomUUID(), 1, 'fine', { metadata: { blob: 'y'.repeat(600) } })]), (err: EngineError) => err.code === 'CONTENT_TOO_LARGE');
    assert.equal(await count(e), 0);
    await e.close();
  });

  it('refuses a version_id that belongs to another memory', async () => {
    const e = await engine();
    const m = (await e.add({ content: 'the original', user_id: 'u' }))[0]!;
    const stolen = JSON.parse(line(crypto.randomUUID(), 1, 'hijack')) as Record<string, unknown>;
    stolen.version_id = m.version_id;
    await assert.rejects(e.import([JSON.stringify(stolen)]), (err: EngineError) => err.code === 'CONFLICT' && /belongs to memory/.test(err.message));
    assert.equal(await count(e), 1);
    // Re-importing the memory's own versions is a skip, as before.
    const own: string[] = [];
    for await (const l of e.exportLines()) own.push(JSON.stringify(l));
    assert.deepEqual(await e.import(own), { imported: 0, skipped: 1, memories: 0 });
    await e.close();
  });
});

describe('non-finite vectors', () => {
  it('stores and searches text whose embedding is NaN, without a vector', async () => {
    class NanEmbedder extends FakeEmbedder {
      override async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
        const v = await super.embedDocuments(texts);
        return v.map((x, i) => (texts[i]!.includes('poison') ? new Float32Array(x.length).fill(Number.NaN) : x));
      }
      override async embedQuery(text: string): Promise<Float32Array> {
        return text.includes('poison') ? new Float32Array(8).fill(Number.POSITIVE_INFINITY) : super.embedQuery(text);
      }
    }
    const e = await engine(new NanEmbedder(8));
    const [row] = await e.add({ content: 'poison pill text', user_id: 'u' });
    await e.add({ content: 'a normal memory about deploys', user_id: 'u' });
    assert.equal((await e.get(row!.memory_id)).content, 'poison pill text');
    const hits = await e.search({ query: 'poison pill', top_k: 5 });
    assert.ok(hits.results.some((h) => h.row.memory_id === row!.memory_id));
    assert.equal(await e.embedBacklog(), 0);
    await e.close();
  });
});
