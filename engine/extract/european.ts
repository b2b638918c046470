/**
 * Statements in Spanish, Portuguese, French, German and Russian. The English cues (cues.ts) never
 * fire on "Nunca faça commit direto na main", "Verwende immer pnpm" or "Никогда не коммить в main",
 * so a sentence written in one of these languages is read here, by the same policy as an English
 * one (and as cjk.ts reads Chinese, Japanese and Korean):
 *
 * - no cue, no memory; a question, a request for now ("você pode corrigir…", "bitte prüfe …",
 *   "исправь …") or the assistant's narration is never one, unless it says it lasts ("sempre",
 *   "siempre", "toujours", "immer", "всегда", "a partir de agora" …); a problem the user reports
 *   ("всегда падает этот тест") is none either;
 * - the assistant counts only when it concludes: a root cause that names something, a summary's
 *   line, or a decision it says lasts;
 * - a preference goes to every repository only when it lasts and is not conditional.
 *
 * The language is told by its function words (`europeanLanguage`), so an English sentence naming a
 * Spanish file is still read in English; Russian by its script.
 */
import { cueScores, languageCue as cue, reading, type LanguageCue, type LanguageReading } from './lang-cues.js';
import { namesNothing } from './shapes.js';

export type EuropeanLanguage = 'es' | 'pt' | 'fr' | 'de' | 'ru';

/** A whole word of a list, with Unicode letters as word characters ("não", "für", "également"). */
const anyOf = (words: string): string => `(?<![\\p{L}\\p{N}])(?:${words})(?![\\p{L}\\p{N}])`;
const wordsRe = (words: string): RegExp => new RegExp(anyOf(words), 'iu');
const countRe = (words: string): RegExp => new RegExp(anyOf(words), 'giu');

/**
 * Common words of each language. A few are shared (Spanish and Portuguese "nunca", "usamos", "antes";
 * "do" in English and Portuguese; German "es"): a sentence holds enough others to tell, and a tie
 * between the two Iberian languages goes to Spanish, whose cues read the shared rule words too.
 */
const FUNCTION_WORDS: Record<EuropeanLanguage | 'en', RegExp> = {
  en: countRe('the|and|is|are|to|of|for|with|not|this|that|it|we|you|be|should|must|always|never|don\'t|do'),
  es: countRe('el|los|las|del|al|lo|una|esto|este|esta|estos|siempre|cuando|también|pero|cómo|qué|puedes|podrías|haz|hacer|usa|usar|uses|tu|su|hay|archivo|código|ahora|debe|debes|usamos|utilizamos|lugar|nosotros|nunca|antes|después|cada|es'),
  pt: countRe('não|você|os|do|da|dos|das|na|nas|nos|ao|uma|é|são|sempre|quando|também|isso|esse|essa|pelo|pela|pode|faça|fazer|seu|sua|arquivo|código|agora|deve|usar|usamos|utilizamos|em|nós|vocês|nunca|com|antes|após|depois|cada'),
  fr: countRe('le|les|du|des|au|aux|et|ne|pas|pour|avec|une|est|sont|toujours|jamais|utiliser|utilise|il|nous|vous|ce|cette|dans|sur|peux|fichier|fais|faire|doit'),
  de: countRe('der|die|das|und|nicht|für|mit|ein|eine|ist|sind|immer|nie|niemals|verwenden|verwende|bitte|wir|ich|du|auf|bei|zu|den|dem|kannst|datei|kein|keine|nur|auch|mach|nutze|benutze|muss|soll'),
  // Cyrillic: no word is shared with the others, so one is enough where no English one is.
  ru: countRe('и|в|во|не|на|что|с|со|по|это|как|для|из|к|у|же|то|все|всё|так|но|да|ты|вы|мы|я|он|она|они|а|или|если|только|всегда|никогда|нужно|надо|можно|нельзя|чтобы|при|до|от|о|об|за|без|его|их|этот|эта|эти|там|тут|здесь|уже|ещё|еще|бы|ли|мне|меня|нам|нас'),
};

/**
 * The language a sentence is written in, of these four, or null (English or another): the one whose
 * function words it holds most, two at least and more than English's, or one where it holds no
 * English one ("Ich bevorzuge kurze Commit-Nachrichten").
 */
export function europeanLanguage(sentence: string): EuropeanLanguage | null {
  // Code spans are names, not words of the sentence's language.
  const text = sentence.replace(/`[^`]*`/g, ' ');
  // Cyrillic is told by its script: a rule line may hold no function word ("Импорты типов обязательно
  // через import type"). Ukrainian's own letters leave it to no cue at all.
  const cyrillic = text.match(/\p{Script=Cyrillic}/gu)?.length ?? 0;
  if (cyrillic > 0 && cyrillic >= (text.match(/[A-Za-z]/g)?.length ?? 0)) return /[іїєґ]/iu.test(text) ? null : 'ru';
  const count = (l: EuropeanLanguage | 'en'): number => text.match(FUNCTION_WORDS[l])?.length ?? 0;
  let best: EuropeanLanguage | null = null;
  let top = 0;
  for (const l of ['es', 'pt', 'fr', 'de', 'ru'] as const) {
    const n = count(l);
    if (n > top) {
      top = n;
      best = l;
    }
  }
  const en = count('en');
  return best && (top >= 2 ? top > en : en === 0) ? best : null;
}

interface LanguageTable {
  /** Says it lasts. */
  durable: RegExp;
  /** A request for the task at hand. */
  request: RegExp;
  /** The assistant telling what it does next. */
  narration: RegExp;
  /** A root cause stated. */
  rootCause: RegExp;
  /** A recap line. */
  conclusion: RegExp;
  /** Tentative. */
  hedge: RegExp;
  /** Conditioned on a circumstance. */
  conditional: RegExp;
  /** A question typed without its question mark ("Ist das ausreichend oder …", "Нужно ли …"). */
  question?: RegExp;
  /** A problem reported ("всегда падает"): its lasting words tell how often it fails, not a rule. */
  problem?: RegExp;
  cues: readonly LanguageCue[];
}

const QUESTION = /\?\s*$|^\s*¿/u;

/**
 * A root cause stated, in each language's words: a fact cue, and what makes an assistant's sentence
 * a conclusion (with "vient de", "liegt daran", which conclude but are too loose to be a fact alone).
 */
const CAUSE: Record<EuropeanLanguage, string> = {
  es: 'la causa(?: raíz| raiz)?(?: del problema)? (?:es|era|fue)|se debe a|es causado por|fue causado por',
  pt: 'a causa(?: raiz)?(?: do problema)? (?:é|era|foi)|se deve a|é causad[oa] por|foi causad[oa] por',
  fr: 'la cause(?: racine| principale)?(?: du problème)? (?:est|était)|est dû à|est due à',
  de: 'die ursache (?:ist|war)|die grundursache (?:ist|war)|wird verursacht durch|wurde verursacht durch',
  ru: 'причина(?: проблемы| ошибки| бага| сбоя)? (?:в том|была|была в|—|заключается в|заключалась в)|корневая причина|первопричина|проблема (?:была )?в том,? что|дело (?:было )?в том,? что|вызван[аоы]? тем',
};

const TABLES: Record<EuropeanLanguage, LanguageTable> = {
  es: {
    durable: wordsRe('siempre|nunca|jamás|a partir de ahora|de ahora en adelante|en adelante|por defecto|cada vez que|todas? las veces|en general|solo|sólo|únicamente'),
    request: wordsRe('por favor|puedes|podrías|podrias|haz|hazme|arregla|corrige|revisa|crea|necesito que|quiero que|ayúdame|ayudame|mira|verifica|implementa'),
    narration: /^(?:voy a|vamos a|ahora (?:voy|vamos)|primero,? (?:voy|vamos)|déjame|dejame|estoy )/iu,
    rootCause: wordsRe(CAUSE.es),
    conclusion: /^(?:resumen|conclusión|decisión)\s*:/iu,
    hedge: wordsRe('quizás|quizas|tal vez|a lo mejor|probablemente|probable|posiblemente|puede que'),
    conditional: wordsRe('si|salvo que|a menos que|en este (?:proyecto|repo)'),
    cues: [
      cue('decision', 0.85, wordsRe('decidimos|hemos decidido|he decidido|decidí|vamos a usar|usaremos|elegimos|optamos por')),
      // One way over another, said of what is used ("usa pnpm en lugar de npm"), as in English.
      cue('decision', 0.7, /(?<![\p{L}\p{N}])(?:usa|usar|usamos|utiliza|utilizar|utilizamos)(?![\p{L}\p{N}])[^.;]{1,60}?(?:en lugar de|en vez de)(?![\p{L}\p{N}])/iu),
      cue('constraint', 0.85, wordsRe('nunca|jamás|prohibido|está prohibido|no se permite|no está permitido|no (?:debe|debes|deben|puede|puedes|pueden)|obligatorio|debe(?:n|s)? (?:ser|usar|tener|pasar)|tiene(?:s|n)? que')),
      cue('constraint', 0.75, wordsRe('no (?:uses|usar|utilices|hagas|modifiques|toques|subas|borres|elimines|cambies|agregues|añadas|edites)|hay que|evita|evitar')),
      cue('constraint', 0.7, /^(?:siempre)\b/iu),
      // A rule written as a bare "no …" ("Nada de estilos en línea", "Sin valores en duro").
      cue('constraint', 0.7, /^(?:nada de|sin)\s/iu),
      cue('convention', 0.75, wordsRe('en (?:español|inglés|castellano|portugués|francés|alemán)')),
      cue('preference', 0.8, wordsRe('prefiero|me gusta|me gustan|no me gusta|odio|mi preferencia'), true),
      cue('convention', 0.75, wordsRe('convención|nomenclatura|los nombres de|mensajes? de commit|usamos|utilizamos|camelcase|snake_case|kebab-case')),
      cue('convention', 0.65, wordsRe('siempre|a partir de ahora|de ahora en adelante|por defecto')),
      cue('fact', 0.75, wordsRe(CAUSE.es)),
    ],
  },
  pt: {
    durable: wordsRe('sempre|nunca|jamais|a partir de agora|daqui pra frente|daqui para frente|de agora em diante|por padrão|toda vez que|todas as vezes|em geral|só|somente|apenas'),
    request: wordsRe('por favor|você pode|voce pode|pode me|poderia|faça|faz|corrija|revise|crie|preciso que|quero que|me ajude|verifique|implemente|atue como|analise|atualize|recrie|liste|liset|mostre'),
    narration: /^(?:vou |vamos |agora (?:vou|vamos)|primeiro,? (?:vou|vamos)|deixe-me|deixa eu|estou )/iu,
    rootCause: wordsRe(CAUSE.pt),
    conclusion: /^(?:resumo|conclusão|decisão)\s*:/iu,
    hedge: wordsRe('talvez|provavelmente|provável|possivelmente|pode ser que|acho que'),
    conditional: wordsRe('se|a menos que|exceto se|neste (?:projeto|repo)'),
    cues: [
      cue('decision', 0.85, wordsRe('decidimos|decidi|vamos usar|usaremos|escolhemos|optamos por')),
      cue('decision', 0.7, /(?<![\p{L}\p{N}])(?:use|usar|usamos|utilize|utilizar|utilizamos)(?![\p{L}\p{N}])[^.;]{1,60}?(?:em vez de|ao invés de|no lugar de)(?![\p{L}\p{N}])/iu),
      cue('constraint', 0.85, wordsRe('nunca|jamais|proibido|é proibido|não é permitido|não pode(?:m)?|não deve(?:m)?|obrigatório|deve(?:m)? (?:ser|usar|ter|passar|ficar)|tem que|têm que')),
      cue('constraint', 0.75, wordsRe('não (?:use|usar|utilize|faça|modifique|mexa|altere|suba|apague|remova|commite|edite|adicione|toque|crie|rode|execute|instale|delete|exponha|coloque|deixe)|evite|evitar')),
      cue('constraint', 0.7, /^(?:nada de|sem)\s/iu),
      cue('convention', 0.75, wordsRe('em (?:português|inglês|espanhol|francês|alemão)')),
      cue('constraint', 0.7, /^(?:sempre)\b/iu),
      cue('preference', 0.8, wordsRe('prefiro|eu gosto|gosto de|não gosto|odeio|minha preferência'), true),
      cue('convention', 0.75, wordsRe('convenção|padrão de nomes|nomenclatura|mensagens? de commit|usamos|utilizamos|camelcase|snake_case|kebab-case')),
      cue('convention', 0.65, wordsRe('sempre|a partir de agora|daqui pra frente|daqui para frente|de agora em diante|por padrão')),
      cue('fact', 0.75, wordsRe(CAUSE.pt)),
    ],
  },
  fr: {
    durable: wordsRe('toujours(?!\\s+pas)|jamais|désormais|dorénavant|à partir de maintenant|par défaut|à chaque fois|chaque fois que|en général|seulement|uniquement'),
    request: wordsRe("s'il te plaît|s'il vous plaît|stp|svp|peux-tu|pouvez-vous|pourrais-tu|fais|corrige|vérifie|crée|je veux que|j'ai besoin que|aide-moi|regarde|implémente|ajoute"),
    narration: /^(?:je vais|nous allons|on va|maintenant,? je|d'abord,? je|laisse-moi|je suis en train)/iu,
    rootCause: wordsRe(`${CAUSE.fr}|vient de`),
    conclusion: /^(?:résumé|conclusion|décision)\s*:/iu,
    hedge: wordsRe('peut-être|probablement|il se peut que|je pense que'),
    conditional: wordsRe('si|sauf si|à moins que|dans ce (?:projet|repo)'),
    question: /(?<![\p{L}\p{N}])(?:est-ce que|est-ce qu'|\p{L}+-(?:tu|vous|t-il|t-elle|il|elle|on))(?![\p{L}\p{N}])/iu,
    cues: [
      cue('decision', 0.85, wordsRe('nous avons décidé|on a décidé|j\'ai décidé|on va utiliser|nous utiliserons|nous avons choisi|on a choisi')),
      cue('decision', 0.7, /(?<![\p{L}\p{N}])(?:utilise|utiliser|utilisons|utilisez)(?![\p{L}\p{N}])[^.;]{1,60}?(?:au lieu de|plutôt que)(?![\p{L}\p{N}])/iu),
      cue('constraint', 0.85, wordsRe('jamais|interdit|il est interdit|n\'est pas autorisé|obligatoire|il faut|doit|doivent')),
      // A prohibition in the imperative or the infinitive, opening the sentence ("Ne mentionne pas …",
      // "N'utilise jamais …", "Ne pas s'adresser …"), not "ça ne marche pas" (a problem).
      cue('constraint', 0.75, /^(?:ne|n')\s?(?:pas\s|jamais\s|\p{L}+\s+(?:pas|jamais)(?![\p{L}\p{N}]))|(?<![\p{L}\p{N}])(?:évite|éviter)(?![\p{L}\p{N}])/iu),
      cue('constraint', 0.7, /^(?:pas de|aucune?|jamais de)\s/iu),
      cue('convention', 0.75, wordsRe('en (?:français|anglais|espagnol|allemand)')),
      cue('constraint', 0.7, /^toujours(?!\s+pas)(?![\p{L}\p{N}])/iu),
      cue('preference', 0.8, wordsRe("je préfère|j'aime|je n'aime pas|je déteste|ma préférence"), true),
      cue('convention', 0.75, wordsRe('convention|nommage|messages? de commit|nous utilisons|on utilise|camelcase|snake_case|kebab-case')),
      cue('convention', 0.65, wordsRe('toujours(?!\\s+pas)|désormais|dorénavant|à partir de maintenant|par défaut')),
      cue('fact', 0.75, wordsRe(CAUSE.fr)),
    ],
  },
  de: {
    durable: wordsRe('immer|nie|niemals|ab jetzt|ab sofort|von nun an|künftig|zukünftig|standardmäßig|jedes mal|grundsätzlich|nur|ausschließlich'),
    request: wordsRe('bitte|kannst du|könntest du|mach|mache|erstelle|behebe|prüfe|überprüfe|ich möchte, dass|ich möchte dass|hilf mir|schau|implementiere|füge'),
    narration: /^(?:ich werde|ich schaue|jetzt (?:werde|schaue|prüfe)|zuerst (?:werde|schaue|prüfe)|lass mich|ich prüfe|ich sehe)/iu,
    rootCause: wordsRe(`${CAUSE.de}|liegt daran`),
    conclusion: /^(?:zusammenfassung|fazit|entscheidung)\s*:/iu,
    hedge: wordsRe('vielleicht|wahrscheinlich|eventuell|ich glaube|ich denke'),
    conditional: wordsRe('wenn|falls|außer wenn|in diesem (?:projekt|repo)'),
    // A finite verb first, then its subject ("Ist das ausreichend …", "Kannst du …", "Gibt es …"), as
    // an imperative never is; or "wie kann ich …" anywhere.
    question:
      /^(?:ist|sind|war|hast|habt|hat|kannst|könnt|kann|können|muss|musst|soll|sollte|sollen|gibt|wird|werden|bist|seid|darf|darfst|brauchst|benötigst|weißt|reicht|geht|funktioniert)\s+(?:es|das|du|ihr|ich|wir|sie|man|der|die|den|dem|dies\p{L}*|mein\p{L}*|unser\p{L}*|ein\p{L}*|alle\p{L}*)(?![\p{L}\p{N}])|(?<![\p{L}\p{N}])(?:wie|was|wo|warum|wieso|weshalb|wann|welche\p{L}*)\s+(?:kann|muss|soll|könnte|sollte|mache)\s+(?:ich|du|wir|man)(?![\p{L}\p{N}])/iu,
    cues: [
      cue('decision', 0.85, wordsRe('wir haben entschieden|wir haben uns entschieden|ich habe entschieden|wir werden \\p{L}+ verwenden|wir nehmen|wir setzen auf')),
      cue('decision', 0.7, /(?<![\p{L}\p{N}])(?:verwende|verwenden|nutze|nutzen|benutze|benutzen|setze|setzen)(?![\p{L}\p{N}])[^.;]{1,60}?(?:statt|anstatt|anstelle von)(?![\p{L}\p{N}])/iu),
      cue('constraint', 0.85, wordsRe('nie|niemals|verboten|ist verboten|nicht erlaubt|pflicht|muss|müssen|darf nicht|dürfen nicht|darf kein|dürfen keine')),
      cue('constraint', 0.75, /(?<![\p{L}\p{N}])(?:verwende|benutze|nutze|ändere|committe|pushe|lösche|füge)\s+(?:\S+\s+){0,3}?(?:nicht|kein|keine|keinen)(?![\p{L}\p{N}])|nicht (?:verwenden|benutzen|ändern|committen|pushen|löschen)|vermeide|vermeiden/iu),
      cue('constraint', 0.7, /^(?:immer)\b/iu),
      cue('constraint', 0.75, /^(?:keine?n?|nie|niemals|nicht)\s/iu),
      cue('convention', 0.75, wordsRe('auf (?:deutsch|englisch|französisch|spanisch)|in (?:deutsch|englisch)')),
      cue('preference', 0.8, wordsRe('ich bevorzuge|ich mag|ich mag keine?n?|ich hasse|mir gefällt|mir ist lieber'), true),
      cue('convention', 0.75, wordsRe('konvention|namenskonvention|commit-nachrichten?|commit-messages?|wir verwenden|wir nutzen|camelcase|snake_case|kebab-case')),
      cue('convention', 0.65, wordsRe('immer|ab jetzt|ab sofort|von nun an|künftig|standardmäßig|grundsätzlich')),
      cue('fact', 0.75, wordsRe(CAUSE.de)),
    ],
  },
  ru: {
    // "только что" is "just now"; "запомни" asks for the rule to be kept.
    durable: wordsRe('всегда|никогда|впредь|отныне|с этого момента|с этих пор|с сегодняшнего дня|по умолчанию|каждый раз|в дальнейшем|на будущее|только(?!\\s+что)|исключительно|запомни|запомните'),
    request: wordsRe('пожалуйста|можешь|можете|сможешь|не мог бы|не могли бы|сделай|сделайте|исправь|исправьте|почини|поправь|проверь|проверьте|посмотри|посмотрите|глянь|создай|создайте|добавь|добавьте|удали|удалите|убери|запусти|запустите|напиши|напишите|обнови|обновите|помоги|помогите|давай|давайте|хочу,? чтобы|переделай|реализуй|покажи|объясни|найди|перепиши|замени|поменяй|измени|настрой|разберись|пока (?:что|этот|эту|это|эти|его|её|ее|их)|на этот раз|в этот раз|временно'),
    narration: /^(?:сейчас|теперь|давайте|давай|сначала|посмотрю|проверю|посмотрим|проверим|отлично|хорошо|вижу|понял|понятно|я (?:сейчас |теперь )?(?:проверю|посмотрю|добавлю|создам|исправлю|обновлю|запущу|изучу|прочитаю|начну))(?![\p{L}\p{N}])/iu,
    rootCause: wordsRe(`${CAUSE.ru}|из-за того,? что`),
    conclusion: /^(?:итог|итого|резюме|вывод|выводы|решение|причина)\s*:/iu,
    hedge: wordsRe('возможно|наверное|наверно|вероятно|может быть|скорее всего|кажется|мне кажется|думаю|я думаю|по-моему'),
    conditional: wordsRe('если|кроме случаев|за исключением|в этом (?:проекте|репо|репозитории)'),
    // "Нужно ли …", "Можно ли …", or why.
    question: /^(?:\p{L}+\s+ли|почему|зачем|разве|неужели)(?![\p{L}\p{N}])/iu,
    // Or what the user did ("проверил осциллографом …", "я уже обновил …"): a report, not a rule
    // (what "we" decided or chose is one).
    problem: new RegExp(
      `${anyOf('не работает|не работают|не запускается|не компилируется|не собирается|не открывается|не грузится|не загружается|не выводит|не показывает|не отвечает|не реагирует|не видно|падает|падают|упал|упала|упало|упали|вылетает|крашится|глючит|зависает|ломается|сломал\\p{L}*|выдаёт ошибку|выдает ошибку')}|^(?:(?:я|мы)\\s+(?:уже\\s+|тоже\\s+|сам\\s+|только что\\s+)?(?!реш|выбр|договор|останов|определ|согласов|принял|перешл|перешли)\\p{L}+(?:ил|ал|ял|ел|ёл|ул|ыл)(?:а|и)?|(?:про|по|за|пере|у|на|об|от|при|до|с)?(?:верил|пробовал|делал|пустил|менял|новил|ставил|шел|шёл|шла|коммитил|пушил|далил|бавил|катил|брал|смотрел|глянул)(?:а|и)?)(?![\\p{L}\\p{N}])`,
      'iu',
    ),
    cues: [
      cue('decision', 0.85, wordsRe('мы решили|решили|я решил|я решила|будем использовать|выбрали|остановились на|переходим на')),
      cue('decision', 0.7, /(?<![\p{L}\p{N}])(?:используй|используйте|использовать|используем|использует)(?![\p{L}\p{N}])[^.;]{1,60}?(?:вместо|а не)(?![\p{L}\p{N}])/iu),
      cue('constraint', 0.85, wordsRe('никогда|ни в коем случае|запрещено|запрещается|не допускается|не разрешается|недопустимо|обязательно|обязательны|обязан|обязана|обязаны|должен|должна|должно|должны')),
      // A prohibition in the imperfective imperative ("не используй", "не трогайте", "не коммитьте"),
      // the form a lasting "don't" takes, or an infinitive opening an instruction or its clause
      // ("Не использовать any", "токены только в `.env`; не хардкодить секреты").
      cue('constraint', 0.75, /(?<![\p{L}\p{N}])не\s+(?:\p{L}+(?:ай|яй|ей|уй|юй)(?:те)?|\p{L}+ьте|пиши|пишите|храни|храните|коммить|комить|пушь|ставь|забывай)(?![\p{L}\p{N}])|(?:^|[:;—]\s*)не\s+\p{L}+(?:ать|ять|еть|ить|уть|ыть)(?![\p{L}\p{N}])|(?<![\p{L}\p{N}])(?:избегай|избегайте|избегать|избегаем|нельзя)(?![\p{L}\p{N}])/iu),
      cue('constraint', 0.7, /^(?:всегда|никаких)(?![\p{L}\p{N}])/iu),
      // A limit with its number ("Максимальная длина строки: 88 символов", "не более 300 строк").
      cue('constraint', 0.75, /(?<![\p{L}\p{N}])(?:максимальн\p{L}*|минимальн\p{L}*|не более|не больше|не менее|не длиннее|максимум|минимум)(?![\p{L}\p{N}])[^.;]{0,30}?\d+/iu),
      cue('convention', 0.75, wordsRe('на (?:русском|английском|украинском)(?: языке)?|по-русски|по-английски')),
      cue('preference', 0.8, wordsRe('предпочитаю|мне нравится|мне нравятся|мне не нравится|я люблю|не люблю|ненавижу|мне удобнее|я привык|я привыкла'), true),
      cue('convention', 0.75, wordsRe('соглашени\\p{L}* (?:об|о) (?:именовании|наименовании)|именовани\\p{L}*|нейминг|сообщени\\p{L}* коммит\\p{L}*|коммит-сообщени\\p{L}*|мы используем|используем|у нас принято|принято|camelcase|snake_case|kebab-case|стиль кода|код-стайл')),
      cue('convention', 0.65, wordsRe('всегда|впредь|отныне|с этого момента|по умолчанию|каждый раз')),
      cue('fact', 0.75, wordsRe(CAUSE.ru)),
    ],
  },
};

/**
 * How a sentence in Spanish, Portuguese, French, German or Russian reads, or null when it is no memory: a
 * question, a request for now, the assistant's narration or a line that does not conclude, or no cue.
 */
export function readEuropean(text: string, lang: EuropeanLanguage, role: 'user' | 'assistant', concluded: boolean): LanguageReading | null {
  const t = text.trim();
  const table = TABLES[lang];
  if (QUESTION.test(t) || table.question?.test(t)) return null;
  const durable = table.durable.test(t);
  if (role === 'user' && ((table.request.test(t) && !durable) || table.problem?.test(t))) return null;
  const hedged = table.hedge.test(t);
  // A root cause guessed ("probablemente", "вероятно") is no conclusion yet, as in English.
  const concludes = concluded || table.conclusion.test(t) || (table.rootCause.test(t) && !namesNothing(t) && !hedged);
  if (role === 'assistant' && (table.narration.test(t) || !(concludes || durable))) return null;
  const { scores, personal } = cueScores(table.cues, t);
  if (scores.size === 0) return null;
  // The assistant's lasting words count only for what it decided: its "must" and "always" explain.
  if (role === 'assistant' && !concludes && !scores.has('decision')) return null;
  return reading(scores, { personal, durable, hedged, conditional: table.conditional.test(t) });
}
