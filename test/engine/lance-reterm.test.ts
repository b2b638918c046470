/**
 * A store whose full-text terms were made before Chinese, Japanese and Korean runs were split into
 * character pairs (terms format 1: "リリース手順はrelease" was one term) is re-indexed on open: its
 * Japanese memories are found by a Japanese query through LanceDB's full-text index and in a search
 * of the past, and the rest of the store is left as it was.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { LanceStore, ResidentBudget, terms, words } from '../../engine/index.js';
import { row } from '../helpers/rows.js';
import { tempDir } from '../helpers/tmp.js';

const JAPANESE = 'リリースの手順: release.yml がタグの push で cargo publish を実行する';
const ENGLISH = 'we use pnpm for installs';

/** The stored terms of format 1: whole words, a CJK run one term. */
function formatOneTerms(text: string): string {
  return words(text).join(' ');
}

async function storedTerms(dir: string): Promise<Record<string, Map<string, string>>> {
  const db = await lancedb.connect(dir);
  const out: Record<string, Map<string, string>> = {};
  for (const name of ['versions', 'current']) {
    const t = await db.openTable(name);
    const rows = (await t.query().select(['version_id', 'search_terms']).toArray()) as { version_id: string; search_terms: string }[];
    out[name] = new Map(rows.map((r) => [r.version_id, r.search_terms]));
    t.close();
  }
  db.close();
  return out;
}

/** Write format-1 terms into both tables and drop the format from the marker, as an older build left them. */
async function makeFormatOne(dir: string, content: Map<string, string>): Promise<void> {
  const db = await lancedb.connect(dir);
  for (const name of ['versions', 'current']) {
    const t = await db.openTable(name);
    for (const [id, text] of content) await t.update({ where: `version_id = '${id}'`, values: { search_terms: formatOneTerms(text) } });
    t.close();
  }
  db.close();
  const marker = path.join(dir, 'current.json');
  const m = JSON.parse(fs.readFileSync(marker, 'utf8')) as Record<string, unknown>;
  delete m.terms;
  fs.writeFileSync(marker, JSON.stringify(m));
}

describe('LanceStore: stored terms of an older tokenizer', () => {
  it('splits a Japanese query into character pairs that a Japanese memory shares', () => {
    const q = terms('リリース手順は？');
    assert.ok(q.includes('手順') && q.includes('リリ'), JSON.stringify(q));
    assert.ok(q.every((t) => terms(JAPANESE).includes(t)), 'every term of the query is one of the memory');
    assert.deepEqual(terms('数を書く'), ['数', '書'], 'hiragana is dropped, a lone character stays');
  });

  it('re-indexes the rows of CJK text on open, and a Japanese query finds them through the index and in the past', async () => {
    const dir = path.join(tempDir('lance-reterm-'), 'db');
    const ja = row({ content: JAPANESE });
    const en = row({ content: ENGLISH });
    const opts = { dir, dim: 8, residentBudget: new ResidentBudget(0) };
    let store = new LanceStore(opts);
    await store.open();
    await store.append([ja, en]);
    await store.close();
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'current.json'), 'utf8')).terms, 2, 'a new store records the format');

    await makeFormatOne(dir, new Map([[ja.version_id, ja.content], [en.version_id, en.content]]));
    const stale = await storedTerms(dir);
    assert.notEqual(stale.current!.get(ja.version_id), terms(JAPANESE).join(' '), 'the Japanese row holds format-1 terms');
    const englishBefore = stale.versions!.get(en.version_id);

    store = new LanceStore(opts);
    await store.open();
    try {
      assert.equal(store.residentRows(), null, 'searched through LanceDB’s indexes');
      const hits = await store.search({ text: 'リリース手順', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5 });
      assert.deepEqual(hits.map((h) => h.row.version_id), [ja.version_id], 'found through the full-text index');
      assert.equal(hits[0]!.row.content, JAPANESE, 'the rest of the row is as it was');
      assert.equal((await store.currentOf([en.memory_id]))[0]?.content, ENGLISH);
      const past = await store.search({ text: 'リリース手順', vector: null, model: null, filter: {}, validAt: Date.now(), limit: 5, knownAt: Date.now() });
      assert.deepEqual(past.map((h) => h.row.version_id), [ja.version_id], 'found in a search of the past');
    } finally {
      await store.close();
    }
    const after = await storedTerms(dir);
    for (const table of ['versions', 'current']) assert.equal(after[table]!.get(ja.version_id), terms(JAPANESE).join(' '), `${table}: re-indexed`);
    assert.equal(after.versions!.get(en.version_id), englishBefore, 'the English row is untouched');
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'current.json'), 'utf8')).terms, 2, 'the format is recorded');
  });
});
