import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkEvidence, evalSet, memoryContent, parseLocomo, parseSessionDate } from '../../scripts/eval/locomo-data.js';

/** A hand-made conversation in the LoCoMo shape (not LoCoMo data). */
const SAMPLE = [
  {
    sample_id: 'conv-x',
    conversation: {
      speaker_a: 'Ana',
      speaker_b: 'Ben',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: [
        { speaker: 'Ana', dia_id: 'D1:1', text: 'I adopted a puppy.' },
        { speaker: 'Ben', dia_id: 'D1:2', text: 'Look at this!', blip_caption: 'a photo of a bike' },
      ],
      session_2_date_time: '12:09 am on 13 September, 2023',
      session_2: [{ speaker: 'Ana', dia_id: 'D2:1', text: 'The puppy is called Rex.' }],
      // A date for a session that has no turns (one real conversation has these).
      session_3_date_time: '10:00 am on 1 October, 2023',
    },
    qa: [
      { question: 'What is the dog called?', answer: 'Rex', evidence: ['D2:1', 'D1:1'], category: 4 },
      { question: 'When?', answer: 2023, evidence: ['D1:1; D2:1', 'D9:9'], category: 2 },
      { question: 'Adversarial', adversarial_answer: 'no', evidence: [], category: 5 },
    ],
  },
];

describe('LoCoMo data', () => {
  it('reads session dates as UTC, with 12 am and 12 pm right', () => {
    assert.equal(parseSessionDate('1:56 pm on 8 May, 2023'), Date.UTC(2023, 4, 8, 13, 56));
    assert.equal(parseSessionDate('12:09 am on 13 September, 2023'), Date.UTC(2023, 8, 13, 0, 9));
    assert.equal(parseSessionDate('12:30 pm on 1 January, 2024'), Date.UTC(2024, 0, 1, 12, 30));
    assert.throws(() => parseSessionDate('yesterday'));
  });

  it('classifies evidence ids that cannot be retrieved', () => {
    const known = new Set(['D1:1', 'D30:5']);
    const r = checkEvidence(['D1:1', 'D8:6; D9:17', 'D:11:26', 'D', 'D30:05', 'D10:19', 'D1:1'], known);
    assert.deepEqual(r.valid, ['D1:1']);
    assert.deepEqual(r.invalid, [
      { id: 'D8:6; D9:17', reason: 'malformed' },
      { id: 'D:11:26', reason: 'malformed' },
      { id: 'D', reason: 'malformed' },
      { id: 'D30:05', reason: 'malformed' },
      { id: 'D10:19', reason: 'missing' },
    ]);
  });

  it('turns session_N lists into turns with their session date, skipping dates without turns', () => {
    const [c] = parseLocomo(SAMPLE);
    assert.equal(c!.id, 'conv-x');
    assert.deepEqual(
      c!.turns.map((t) => [t.id, t.session, t.at]),
      [
        ['D1:1', 1, Date.UTC(2023, 4, 8, 13, 56)],
        ['D1:2', 1, Date.UTC(2023, 4, 8, 13, 56)],
        ['D2:1', 2, Date.UTC(2023, 8, 13, 0, 9)],
      ],
    );
    assert.equal(memoryContent(c!.turns[0]!), 'Ana: I adopted a puppy.');
    assert.equal(memoryContent(c!.turns[1]!), 'Ben: Look at this! [shared an image: a photo of a bike]');
  });

  it('keeps valid evidence as the gold set and reports the rest', () => {
    const [c] = parseLocomo(SAMPLE);
    const [q1, q2, q5] = c!.questions;
    assert.deepEqual(q1!.evidence, ['D2:1', 'D1:1']);
    assert.deepEqual(q1!.invalid, []);
    assert.deepEqual(q2!.evidence, []);
    assert.deepEqual(q2!.invalid.map((i) => i.reason), ['malformed', 'missing']);
    assert.equal(q5!.category, 5);
  });
});

describe('LoCoMo evaluation set', () => {
  it('scores categories 1–4 with retrievable evidence and counts the rest', () => {
    const set = evalSet(parseLocomo(SAMPLE));
    assert.deepEqual(set.questions.map((q) => q.question), ['What is the dog called?']);
    assert.equal(set.asked, 2);
    assert.equal(set.unanswerable, 1);
    assert.equal(set.partial, 0);
    assert.deepEqual([set.malformed, set.missing, set.skipped], [1, 1, 1]);
  });
});
