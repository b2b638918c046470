/**
 * The redactor over secrets generated at run time (test/helpers/secrets.ts): at least 150 of at
 * least 50 kinds, as plain text and inside decoded tool output, with at most 2% surviving; and
 * the false-positive corpus (hashes, UUIDs, images, lockfiles, ARNs) through unchanged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redact, redactValue } from '../../engine/index.js';
import { benignCorpus, plantedSecrets, SECRET_KINDS } from '../helpers/secrets.js';

describe('redact: generated corpus', () => {
  const cases = plantedSecrets(3);

  it('plants at least 150 secrets of at least 50 kinds', () => {
    assert.ok(cases.length >= 150, `${cases.length} secrets`);
    assert.ok(SECRET_KINDS.length >= 50, `${SECRET_KINDS.length} kinds`);
  });

  it('lets at most 2% survive as text, and none inside decoded tool output', () => {
    const survivors = cases.filter((c) => redact(c.text).text.includes(c.secret));
    assert.ok(survivors.length <= cases.length * 0.02, `survived: ${survivors.map((c) => `${c.kind}: ${c.text}`).join('\n')}`);
    const inOutput = cases.filter((c) => JSON.stringify(redactValue({ stdout: `${c.text}\n`, stderr: '', interrupted: false })).includes(c.secret));
    assert.ok(inOutput.length <= cases.length * 0.02, `survived in tool output: ${inOutput.map((c) => c.kind).join(', ')}`);
  });

  it('changes none of the false-positive corpus', () => {
    for (const text of benignCorpus()) assert.equal(redact(text).text, text);
    for (const text of benignCorpus()) assert.deepEqual(redactValue({ stdout: text }), { stdout: text });
  });
});
