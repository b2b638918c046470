/**
 * Extraction of statements in Spanish, Portuguese, French and German (engine/extract/european.ts):
 * a lasting rule is a memory, a request for now, a question or the assistant's narration is not,
 * and English is read as before. The Portuguese requests below are real: typed in blind-41's
 * session (test/fixtures/transcripts/supercartolamanagerv5-eac385e2.jsonl). The corpus of
 * test/fixtures/eu-statements holds 136 more, collected by someone who never read these rules.
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

describe('extraction in Spanish, Portuguese, French and German', () => {
  it('tells the language by its function words, and leaves English (with a foreign word in it) to the English cues', () => {
    assert.equal(europeanLanguage('Nunca faça commit direto na main.'), 'pt');
    assert.equal(europeanLanguage('Usamos pnpm en lugar de npm.'), 'es');
    assert.equal(europeanLanguage("N'utilise jamais any dans le code."), 'fr');
    assert.equal(europeanLanguage('Ich bevorzuge kurze Commit-Nachrichten.'), 'de');
    assert.equal(europeanLanguage('Use the archivo config for this test'), null);
    assert.equal(europeanLanguage('We always run the tests before we push, never after.'), null);
  });

  it('stores a lasting rule, decision or preference, in the category it states', async () => {
    const got = await extract([
      user('Nunca faça commit direto na main.'),
      user('A partir de agora, os commits devem ser em português.'),
      user('Usamos pnpm en lugar de npm.'),
      user("N'utilise jamais `any` dans le code."),
      user('Wir haben entschieden, Postgres statt MySQL zu verwenden.'),
    ]);
    assert.deepEqual(
      got.map((c) => c.category),
      ['constraint', 'constraint', 'convention', 'constraint', 'decision'],
    );
  });

  it('keeps a lasting taste personal, and one said for a case in the project', async () => {
    const [always, conditional] = await extract([user('Eu sempre prefiro respostas curtas e diretas.'), user('Si es un script, prefiero escribirlo en Python.')]);
    assert.equal(always?.space, 'personal');
    assert.equal(conditional?.category, 'preference');
    assert.equal(conditional?.space, 'project', 'conditional ("si …"): not for every repository');
  });

  it('stores no request for now and no question, as a user typed them', async () => {
    const typed = [
      'Revise as alterações que fizemos hoje (arredondamento 2 casas, regra de inativos, correção Top 10) e ATUALIZE o arquivo CLAUDE.md para refletir o estado atual do sistema.',
      'Faça o git commit e push das alterações no CLAUDE.md com a mensagem "Docs: Atualização das regras de negócio e style guide".',
      'Que problema pode ser esse ao fazer um repubish ?',
      'Por favor, recrie o arquivo de configuração agora e registre novamente o nosso servidor.',
      '¿Puedes revisar por qué falla el build?',
      'Kannst du bitte die Tests prüfen?',
      // blind-43 (notebooklmclone-ed22f339): a question typed without its question mark.
      'Ist das ausreichend oder benötigst Du die URL und den service role Key und wie kann ich am einfachsten claude hier in der Shell von Replit schließen und wieder öffnen damit ich nicht neu installieren muss',
      'Est-ce que les tests doivent toujours passer avant un merge',
    ];
    assert.deepEqual((await extract(typed.map(user))).map((c) => c.content), []);
  });

  it('stores what the assistant concludes, not what it narrates', async () => {
    assert.deepEqual(await extract([assistant('Vou verificar o arquivo de configuração agora.'), assistant('Voy a revisar la configuración primero.')]), []);
    const [cause] = await extract([assistant('A causa raiz é que `connectDB` encerra o processo quando `MONGODB_URI` não está definido.')]);
    assert.equal(cause?.category, 'fact');
  });

  it('reads "probable" and "must be" as a guess, not a rule', async () => {
    // blind-41's task prompt, pasted with a diagnosis.
    const diagnosis = 'Diagnóstico Provável: A query ou loop de verificação deve estar com condição `< 38` em vez de `<= 38`.';
    assert.deepEqual(await extract([user(diagnosis)]), []);
  });

  it('stores rules of the real corpus and none of its requests, questions or narration', async () => {
    const { rules, kept, oneOffs } = await readStatements('eu-statements');
    // Its first run: 14 of 65 rules, 1 of 71 others ("toujours pas, vérifie …": "still not"). Measured
    // when written, after one round on its misses: es 6/17, pt 5/14, fr 8/16, de 6/18. Most rules
    // left are instruction-file imperatives ("Führe Tests mit `npm test` aus"), which the English
    // cues do not store either.
    assert.ok(kept >= 0.35 * rules, `${kept} of ${rules} rules stored`);
    assert.deepEqual(oneOffs, [], 'no request, question or narration is a memory');
  });
});
