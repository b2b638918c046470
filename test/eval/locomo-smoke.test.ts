/**
 * The LoCoMo evaluation and the mem0 side by side, end to end on a tiny hand-made file in
 * LoCoMo's shape (not LoCoMo data) with the tiny random model: the real script as a child process.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { run } from '../helpers/daemon.js';
import { repoRoot, sharedDir, tempDir } from '../helpers/tmp.js';

const TURNS = [
  'I adopted a beagle puppy named Rex last week.',
  'We repainted the kitchen a bright yellow colour.',
  'My sister moved to Lisbon for a marine biology job.',
  'I started learning the cello in evening classes.',
  'The garden tomatoes finally ripened after the heatwave.',
  'Our book club is reading a novel about lighthouse keepers.',
];

function sample(): unknown[] {
  return ['conv-a', 'conv-b'].map((id) => ({
    sample_id: id,
    conversation: {
      speaker_a: 'Ana',
      speaker_b: 'Ben',
      session_1_date_time: '10:00 am on 3 March, 2023',
      session_1: TURNS.slice(0, 3).map((text, i) => ({ speaker: i % 2 ? 'Ben' : 'Ana', dia_id: `D1:${i + 1}`, text })),
      session_2_date_time: '4:30 pm on 9 April, 2023',
      session_2: TURNS.slice(3).map((text, i) => ({ speaker: i % 2 ? 'Ana' : 'Ben', dia_id: `D2:${i + 1}`, text, ...(i === 0 ? { blip_caption: 'a photo of a cello' } : {}) })),
    },
    qa: [
      { question: 'What is the name of the beagle puppy?', answer: 'Rex', evidence: ['D1:1'], category: 4 },
      { question: 'Which city did the sister move to for marine biology?', answer: 'Lisbon', evidence: ['D1:3'], category: 1 },
      { question: 'When did the garden tomatoes ripen?', answer: 'April', evidence: ['D2:2'], category: 2 },
      { question: 'What instrument and what novel about lighthouse keepers?', answer: 'cello', evidence: ['D2:1', 'D2:3'], category: 3 },
      { question: 'Broken evidence', answer: 'x', evidence: ['D1:1; D2:2'], category: 4 },
      { question: 'Adversarial', adversarial_answer: 'x', evidence: ['D1:1'], category: 5 },
    ],
  }));
}

describe('LoCoMo evaluation, end to end', () => {
  it('scores every retriever, counts unanswerable questions, and runs mem0 beside it without an LLM call', async () => {
    const file = path.join(tempDir('locomo-smoke-'), 'sample.json');
    fs.writeFileSync(file, JSON.stringify(sample()));
    const out = await run(process.execPath, [repoRoot('dist', 'scripts', 'eval', 'locomo.js'), '--data', file, '--model-dir', sharedDir('models', 'random-bert-tiny'), '--peer', '--no-write'], {
      env: { ...process.env, SERVICE_MODEL_DIR: '' },
      timeoutMs: 180_000,
    });
    assert.equal(out.code, 0, out.stderr + out.stdout.slice(-2000));
    assert.match(out.stdout, /Unanswerable: 2\*\*/);
    assert.match(out.stdout, /2 malformed/);
    // Full text ranks an evidence turn first for every question, and finds every evidence turn but
    // the cello one (the question says "instrument"): 3 questions × 1 + 1 × ½ per conversation.
    assert.match(out.stdout, /\| engine, full text only \(BM25\) \| 8 \| 87\.5 \| 87\.5 \| 87\.5 \| 1\.000 \|/);
    assert.match(out.stdout, /\| engine, hybrid \(vector \+ full text\): lexical stand-in \(random-bert-tiny, random weights\) \| 8 \|/);
    assert.match(out.stdout, /## Peer side by side: mem0/);
    assert.match(out.stdout, /was called \*\*0\*\* times/);
    assert.match(out.stdout, /\| recall@25, % \| 100\.0 \| [\d.]+ \|/);
  });
});
