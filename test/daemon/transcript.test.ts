import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readTranscript } from '../../daemon/transcript.js';
import { tempDir } from '../helpers/tmp.js';

const line = (o: object): string => JSON.stringify(o) + '\n';
const user = (uuid: string, parent: string | null, text: string): string => line({ type: 'user', uuid, parentUuid: parent, message: { role: 'user', content: text } });
const asst = (uuid: string, parent: string, id: string, blocks: object[]): string => line({ type: 'assistant', uuid, parentUuid: parent, message: { id, role: 'assistant', content: blocks } });

describe('readTranscript', () => {
  it('reads incrementally and leaves a half-written last line for later', () => {
    const f = path.join(tempDir('tr-'), 't.jsonl');
    fs.writeFileSync(f, user('u1', null, 'first prompt') + '{"type":"user","uuid":"u2","par');
    const a = readTranscript(f, 0);
    assert.deepEqual(
      a.turns.map((t) => t.text),
      ['first prompt'],
    );
    fs.appendFileSync(f, 'entUuid":"u1","message":{"role":"user","content":"second prompt"}}\n');
    const b = readTranscript(f, a.offset);
    assert.deepEqual(
      b.turns.map((t) => t.text),
      ['second prompt'],
    );
    assert.equal(readTranscript(f, b.offset).turns.length, 0);
  });

  it('skips unknown types, meta entries, command output, thinking and sidechains; merges split assistant messages', () => {
    const f = path.join(tempDir('tr-'), 't.jsonl');
    fs.writeFileSync(
      f,
      line({ type: 'summary', summary: 'x' }) +
        line({ type: 'file-history-snapshot', snapshot: {} }) +
        line({ type: 'brand-new-type', uuid: 'z' }) +
        user('u1', null, 'Use Postgres for sessions') +
        line({ type: 'user', uuid: 'm1', parentUuid: 'u1', isMeta: true, message: { role: 'user', content: 'meta' } }) +
        user('c1', 'u1', '<command-name>/clear</command-name>') +
        asst('a1', 'c1', 'msg_1', [{ type: 'thinking', thinking: 'hmm' }]) +
        asst('a2', 'a1', 'msg_1', [{ type: 'text', text: 'Part one.' }]) +
        asst('a3', 'a2', 'msg_1', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }]) +
        line({ type: 'user', uuid: 't1', parentUuid: 'a3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Error: requires Node >= 20', is_error: true }] } }) +
        asst('a4', 't1', 'msg_2', [{ type: 'text', text: 'Decision: require Node 20.' }]) +
        line({ type: 'assistant', uuid: 's1', parentUuid: 'a4', isSidechain: true, message: { id: 'msg_s', role: 'assistant', content: [{ type: 'text', text: 'subagent chatter' }] } }) +
        'not json at all\n',
    );
    const r = readTranscript(f, 0);
    assert.deepEqual(
      r.turns.map((t) => [t.role, t.text, t.tool ?? null, t.ok ?? null]),
      [
        ['user', 'Use Postgres for sessions', null, null],
        ['assistant', 'Part one.', null, null],
        ['tool', 'Error: requires Node >= 20', 'Bash', false],
        ['assistant', 'Decision: require Node 20.', null, null],
      ],
    );
  });

  it('keeps only the branch the conversation continued on after a rewind', () => {
    const f = path.join(tempDir('tr-'), 't.jsonl');
    fs.writeFileSync(f, user('u1', null, 'start') + asst('a1', 'u1', 'm1', [{ type: 'text', text: 'abandoned answer' }]) + user('u2', 'a1', 'abandoned follow-up') + user('u3', 'u1', 'rewritten prompt') + asst('a2', 'u3', 'm2', [{ type: 'text', text: 'kept answer' }]));
    assert.deepEqual(
      readTranscript(f, 0).turns.map((t) => t.text),
      ['start', 'rewritten prompt', 'kept answer'],
    );
  });

  it('starts over when the file shrank (replaced)', () => {
    const f = path.join(tempDir('tr-'), 't.jsonl');
    fs.writeFileSync(f, user('u1', null, 'a long first prompt that takes room') + user('u2', 'u1', 'second'));
    const a = readTranscript(f, 0);
    fs.writeFileSync(f, user('x1', null, 'new'));
    const b = readTranscript(f, a.offset);
    assert.equal(b.rewound, true);
    assert.deepEqual(
      b.turns.map((t) => t.text),
      ['new'],
    );
  });
});
