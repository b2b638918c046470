/**
 * Japanese and Chinese through the real hooks, CLI and daemon: text without spaces between words is
 * indexed by character pairs, so a prompt asked in Japanese finds the memory and the episode that
 * say it in other words around it, and one that shares no word with them finds nothing. A rule
 * typed in Chinese, Japanese, Korean, Portuguese, German or Russian is extracted as one; a request for
 * now is not.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, makeRepo, runHook, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/tmp.js';

const line = (o: object): string => `${JSON.stringify(o)}\n`;

describe('recall of Japanese and Chinese text', () => {
  let d: TestDaemon;
  let repo: string;
  before(async () => {
    d = await startTestDaemon();
    repo = makeRepo('git@github.com:acme/tij.git');
  });
  after(async () => {
    await d.stop();
  });

  const recall = async (session: string, prompt: string): Promise<string> => {
    const hook = await runHook('UserPromptSubmit', { session_id: session, cwd: repo, hook_event_name: 'UserPromptSubmit', prompt }, d.env, repo);
    assert.equal(hook.code, 0, hook.stderr);
    if (!hook.stdout.trim()) return '';
    return (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
  };
  const search = async (query: string): Promise<string[]> => {
    const out = await cli(['search', query, '--json', '--top-k', '5'], d.env, repo);
    assert.equal(out.code, 0, out.stderr);
    return (JSON.parse(out.stdout) as { results: { content: string }[] }).results.map((r) => r.content);
  };

  /** One session of typed prompts, each answered, through the real hooks; flushed. */
  const session = async (id: string, prompts: readonly string[]): Promise<void> => {
    const transcript = path.join(tempDir('cc-'), `${id}.jsonl`);
    const base = { session_id: id, cwd: repo, transcript_path: transcript };
    fs.writeFileSync(transcript, '');
    await runHook('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
    for (const [i, prompt] of prompts.entries()) {
      await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt }, d.env, repo);
      fs.appendFileSync(
        transcript,
        line({ type: 'user', uuid: `${id}-u${i}`, parentUuid: i === 0 ? null : `${id}-a${i - 1}`, timestamp: `2026-01-01T00:0${i}:00Z`, message: { role: 'user', content: prompt } }) +
          line({ type: 'assistant', uuid: `${id}-a${i}`, parentUuid: `${id}-u${i}`, timestamp: `2026-01-01T00:0${i}:01Z`, message: { id: `${id}-m${i}`, role: 'assistant', content: [{ type: 'text', text: '好的。' }] } }),
      );
      await runHook('Stop', { ...base, hook_event_name: 'Stop', stop_hook_active: false }, d.env, repo);
    }
    await runHook('SessionEnd', { ...base, hook_event_name: 'SessionEnd', reason: 'other' }, d.env, repo);
    await d.client.flush();
  };

  it('extracts a rule typed in Chinese, Japanese or Korean, and no request for now', async () => {
    await session('cjk-rules', ['以后所有的提交信息都用中文写，不要用英文。', '帮我修复这个构建错误', 'テストは必ず pnpm test で実行すること。', 'README を確認してください。', '앞으로 커밋 메시지는 한국어로 작성해 주세요.', '커밋해줘.']);
    const out = await cli(['list', '--json', '--limit', '50'], d.env, repo);
    assert.equal(out.code, 0, out.stderr);
    const memories = (JSON.parse(out.stdout) as { results: { content: string; category: string; metadata?: { kind?: string } }[] }).results.filter((m) => m.metadata?.kind !== 'episode');
    const got = memories.map((m) => `${m.category}: ${m.content}`).sort();
    assert.ok(got.some((m) => /^convention: 以后所有的提交信息都用中文写/.test(m)), JSON.stringify(got));
    assert.ok(got.some((m) => /^constraint: テストは必ず pnpm test/.test(m)), JSON.stringify(got));
    assert.ok(got.some((m) => /^convention: 앞으로 커밋 메시지는 한국어로/.test(m)), JSON.stringify(got));
    assert.ok(!got.some((m) => /帮我修复|確認してください|커밋해줘/.test(m)), `no request for now is a memory: ${JSON.stringify(got)}`);
  });

  /** The extracted memories listed by the CLI, as "category: content". */
  const extracted = async (): Promise<string[]> => {
    const out = await cli(['list', '--json', '--limit', '50'], d.env, repo);
    assert.equal(out.code, 0, out.stderr);
    return (JSON.parse(out.stdout) as { results: { content: string; category: string; metadata?: { kind?: string } }[] }).results
      .filter((m) => m.metadata?.kind !== 'episode')
      .map((m) => `${m.category}: ${m.content}`);
  };

  it('extracts a rule typed in Portuguese or German through the same hooks, and no request for now', async () => {
    await session('eu-rules', ['Nunca faça commit direto na main.', 'Você pode revisar as alterações de hoje?', 'Verwende immer pnpm statt npm.', 'Bitte prüfe die Tests.']);
    const got = await extracted();
    assert.ok(got.includes('constraint: Nunca faça commit direto na main.'), JSON.stringify(got));
    assert.ok(got.some((m) => /: Verwende immer pnpm statt npm\.$/.test(m)), JSON.stringify(got));
    assert.ok(!got.some((m) => /revisar as alterações|prüfe die Tests/.test(m)), `no request for now is a memory: ${JSON.stringify(got)}`);
  });

  it('extracts a rule typed in Russian through the same hooks, and neither a request for now nor a report of what the user did', async () => {
    // The last two are real prompts of the esp32cam session (test/fixtures/transcripts/esp32cam-71bb0519.jsonl).
    await session('ru-rules', ['Никогда не коммить напрямую в main.', 'пересылай лог по сети и подключись к текущей сети', 'проверил осликом - всегда там + - ниче не выводит']);
    const got = await extracted();
    assert.ok(got.includes('constraint: Никогда не коммить напрямую в main.'), JSON.stringify(got));
    assert.ok(!got.some((m) => /пересылай лог|проверил осликом/i.test(m)), `no request or report is a memory: ${JSON.stringify(got)}`);
  });

  it('finds a Japanese memory and a Japanese episode by a Japanese question, and nothing for an unrelated one', async () => {
    assert.equal((await cli(['remember', 'リリースはタグを push して release.yml に任せる。手動の cargo publish はしない。'], d.env, repo)).code, 0);
    assert.equal((await cli(['remember', '我们的数据库迁移脚本放在 migrations 目录里。'], d.env, repo)).code, 0);

    // A turn in Japanese: the answer sits in the assistant's reply, never in English.
    const transcript = path.join(tempDir('cc-'), 'ja.jsonl');
    const session = 'ja-1';
    const base = { session_id: session, cwd: repo, transcript_path: transcript };
    fs.writeFileSync(transcript, '');
    const prompt = '検証の手順を教えて';
    await runHook('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
    await runHook('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt }, d.env, repo);
    fs.appendFileSync(
      transcript,
      line({ type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: prompt } }) +
        line({
          type: 'assistant',
          uuid: 'a1',
          parentUuid: 'u1',
          timestamp: '2026-01-01T00:00:01Z',
          message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: '変更の検証は cargo build、cargo clippy（警告ゼロ）、cargo test の順に実行します。' }] },
        }),
    );
    await runHook('Stop', { ...base, hook_event_name: 'Stop', stop_hook_active: false }, d.env, repo);
    await runHook('SessionEnd', { ...base, hook_event_name: 'SessionEnd', reason: 'other' }, d.env, repo);
    await d.client.flush();

    const release = await search('リリースの手順は？');
    assert.match(release[0] ?? '', /release\.yml/, `the release memory first: ${JSON.stringify(release)}`);
    assert.match((await search('数据库迁移在哪里'))[0] ?? '', /migrations/, 'a Chinese question finds the Chinese memory');

    // A new session opens with what a person stored; its prompts then get only what answers them.
    await runHook('SessionStart', { session_id: 'ja-2', cwd: repo, hook_event_name: 'SessionStart', source: 'startup' }, d.env, repo);
    const verify = await recall('ja-2', '変更を検証するには何を実行する？');
    assert.match(verify, /cargo clippy/, 'the recall hook injects the episode that answers');
    assert.doesNotMatch(await recall('ja-2', '天気はどう？'), /cargo|release|migrations/, 'an unrelated question injects nothing');
  });
});
