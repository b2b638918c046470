/**
 * Statements in Chinese, Japanese and Korean. The English cues (cues.ts) and the shapes of a
 * request (rule-extractor.ts) read words between spaces; these languages mark a rule, a request or
 * a question with characters and endings instead ("以后都用 pnpm", "コミットメッセージは日本語で書くこと",
 * "커밋해줘"). A sentence written mostly in them is read here, by the same policy as an English one:
 *
 * - no cue, no memory; a question, a request for now ("帮我修复", "確認してください", "커밋해줘"), a
 *   musing ("…것 같아") or narration is never one, unless it says it lasts ("以后", "今後", "앞으로" …);
 *   a problem reported ("总是报错") or a thing put off ("以后再说") never;
 * - a request to write a rule down ("…할 수 있도록 가이드를 추가해줘") is the rule it dictates;
 * - the assistant counts only when it concludes: a root cause that names something, a summary's
 *   line, or a decision it says lasts; never a proposal ("建议…", "…하면 좋겠습니다");
 * - a preference goes to every repository only when it lasts and is not conditional.
 *
 * No dictionary: the cue words are few and fixed, and a sentence that has none is left to its
 * episode, which is searchable in these languages (tokenize.ts).
 */
import { CJK } from '../text/tokenize.js';
import { cueScores, languageCue as cue, reading, type LanguageCue, type LanguageReading } from './lang-cues.js';
import { namesNothing } from './shapes.js';

/** Fewest CJK characters a statement holds (a shorter one is a fragment: "好的", "了解"). */
const MIN_CJK_CHARS = 4;
/**
 * CJK characters a sentence holds at least per word in other scripts to be read here. A character
 * is about a word in Chinese and half of one in Japanese and Korean, so a sentence in these
 * languages with identifiers in it ("根本原因是 vite.config.ts 的 additionalData …") qualifies, and an
 * English one naming a thing in them ("Use the 待办事项 app") does not.
 */
const CJK_PER_WORD = 2;

const CJK_CHAR = new RegExp(CJK.source, 'gu');
/** A word in another script (CJK characters are blanked out first); a file name ("STATE.md") is one. */
const OTHER_WORD = /[\p{L}\p{N}][\p{L}\p{N}_./'’-]*/gu;
/** A code span: a name, not words of the sentence's language. */
const CODE_SPAN = /`[^`]*`/g;

/** Written mostly in Chinese, Japanese or Korean (identifiers and commands in Latin letters aside). */
export function isCjkSentence(text: string): boolean {
  const cjk = text.match(CJK_CHAR)?.length ?? 0;
  return cjk > 0 && cjk >= (text.replace(CODE_SPAN, ' ').replace(CJK_CHAR, ' ').match(OTHER_WORD)?.length ?? 0) * CJK_PER_WORD;
}

/** Enough of it to state something. */
const longEnough = (text: string): boolean => (text.match(CJK_CHAR)?.length ?? 0) >= MIN_CJK_CHARS;

/** A question: a question mark, or a question's ending (吗, ですか, 까요 …). */
const QUESTION =
  /[?？]\s*$|(?:吗|嗎|呢|么|麼)[。.!！]?\s*$|(?:ですか|ますか|でしょうか|かな|だろうか|のか)[。.]?\s*$|(?:까|나요|니|냐|가요|을까요|ㄹ까|는지)[.。]?\s*$/u;

/** Says it lasts beyond the moment. */
const DURABLE =
  /以后|以後|今后|今後|往后|从现在开始|從現在開始|从今以后|從今以後|一律|始终|始終|总是|總是|永远|永遠|每次|默认|默認|任何时候|任何時候|所有的?(?:代码|文件|提交|文档|回复)|これから(?:は|も)|常に|必ず|いつも|毎回|原則|二度と|すべての|全ての|앞으로|이제부터|항상|언제나|반드시|매번|기본적으로|원칙적으로|모든/u;

/** Conditioned on a circumstance. */
const CONDITIONAL = /如果|假如|要是|的话|若是|なら(?:ば)?(?![ない])|(?<!なけ)れば|たら|라면|다면|경우/u;

/** The user remarking on what they see ("…들어간거같아", "…だと思う", "…気がします"): an observation, not a rule. */
const MUSING = /(?:것|거|꺼)\s?같(?:아|아요|습니다|네|다)[.。]?\s*$|(?:と思う|と思います|気がする|気がします|気もしています|気もする)[。.]?\s*$/u;

/**
 * A problem reported ("程序总是报错", "いつもビルドでエラーになる", "항상 에러가 나요"): "always" there says
 * how often it fails, not a rule; and "以后再说", "後で", "나중에" put something off. Neither lasts.
 */
const PROBLEM = /报错|報錯|出错|出錯|错误|錯誤|失败|失敗|崩溃|崩潰|卡住|エラー|落ちる|動かない|에러|오류|실패|안\s?돼|안\s?됩니다|죽어/u;
const DEFERRED = /以后再|以後再|之后再|之後再|稍后|稍後|後で|あとで|나중에/u;

/**
 * A request that stands beyond the task at hand: it says when it applies ("PRマージ時は…", "…한 경우,",
 * "…할 때는", "每当…"), as "whenever" does in English, or it is said of a kind of thing, the topic of the
 * sentence ("コミットメッセージは英語で記述してください", "커밋 메시지는 한국어로 작성해 주세요"), not of
 * one thing in front of the user ("このファイルは…", "이 파일은…").
 */
const STANDING_REQUEST =
  /(?:時|とき|場合|際)(?:は|に|には)|(?:할|하는|될)\s?때(?:는|에는|마다)|경우(?:에는|에)?[,，]|每当|的时候|^(?!(?:この|その|あの|これ|それ|あれ|ここ|そこ|今回|今日|今))[^。、]{1,40}?は[、,]?[^。]*(?:てください|て下さい)[。]?\s*$|^(?!(?:이|그|저|이번|오늘|지금)\s)[^.,。]{2,30}?(?:은|는)\s[^.。]*주세요[.。]?\s*$/u;

/** A request for the task at hand, addressed to the assistant. */
const REQUEST =
  /帮我|幫我|帮忙|幫忙|请你|請你|^请|^請|给我|給我|麻烦|麻煩|一下|试试|試試|看看|吧[。！!]?\s*$|(?:して|て|で)(?:ください|下さい|くれ|くださ|ほしい|欲しい|もらえ|いただけ)|お願い|しよう|しましょう|やって|(?:して|て)[。！!]?\s*$|해\s?줘|해\s?주세요|해\s?줄래|해\s?주실|주세요|부탁|하자|합시다|해\s?봐|해라|줘[.。!]?\s*$/u;

/** A request to write a rule down: the rule noun and a verb of adding or writing it. */
const DICTATED_RULE =
  /(?:规则|規則|规范|規範|约定|約定|指南|准则|準則|ルール|規約|ガイド(?:ライン)?|指示|규칙|가이드(?:라인)?|지침|규약|컨벤션)[^。.!！]{0,12}(?:追加|添加|加入|加上|写|寫|記載|書|추가|작성|넣|명시)/u;

/** The assistant concludes: a recap line, a root cause. */
const CONCLUSION = /^(?:总结|總結|结论|結論|决定|決定|まとめ|要約|결론|요약|결정)\s*[:：]/u;
const ROOT_CAUSE = /根本原因|根因|原因是|原因在于|原因在於|是由于|是由於|根本的な原因|原因は|が原因|근본\s?원인|원인은|원인이었/u;

/**
 * Telling what one does next or is doing ("让我检查一下", "我正在添加…", "まず確認します", "이제 테스트를
 * 실행하겠습니다"): the assistant's narration, or the user's own doing.
 */
const NARRATION =
  /^(?:让我|讓我|我来|我來|我先|我将|我將|我会|我會|我正在|我已经|我已經|我刚|我剛|接下来|接下來|现在|現在|首先|まず|次に|では|それでは|続いて|먼저|이제|다음으로)|(?:します|しますね|してみます|いたします|しましょう)[。.]?\s*$|(?:하겠습니다|할게요|해볼게요|하겠다)[.。]?\s*$/u;

/** Tentative statements lower a cue's score. */
const HEDGE = /可能|也许|也許|或许|或許|大概|似乎|好像|たぶん|多分|かもしれ|ようです|みたい|아마|(?:것|거|꺼)\s?같|듯/u;
/** A proposal, not a conclusion ("建议…", "…といいでしょう", "…하면 좋겠습니다"). */
const PROPOSAL = /建议|建議|推荐|推薦|不妨|可以考虑|可以考慮|おすすめ|お勧め|といい(?:でしょう|です|かと)|と良い|검토해|제안|좋겠|좋을\s?것|추천/u;

const CUES: readonly LanguageCue[] = [
  // One way chosen over another ("…实现，而非解码目录名", "命令形で書く（…ではなく…）", "실제 값 대신 …").
  cue('decision', 0.7, /而非|而不是|ではなく|の代わりに|대신|가 아니라|이 아니라/u),
  cue('decision', 0.85, /决定|決定|定下来|選定|选定|采用|採用|改用|换成|換成|统一(?:用|使用|为|成)|統一(?:用|使用|為|成)|就用|に決め|ことにし(?:た|ました)|を採用|に統一|に切り替え|결정|채택|(?:로|으로)\s?통일|하기로|쓰기로|사용하기로/u),

  cue('constraint', 0.85, /禁止|严禁|嚴禁|不得|不准|不许|不許|不允许|不允許|必须|必須|务必|務必|一定要|绝对不|絕對不|千万不要|千萬不要|永远不要|永遠不要|厳禁|してはいけない|してはならない|しては(?:いけ|なら|ダメ|だめ)|べからず|なければ(?:なら|いけ)|絶対に|決して|금지|절대|(?:면|으면)\s?안\s?(?:돼|됩니다|된다)|반드시|않아야|말\s?것/u),
  // "Don't" before a verb of changing or using something ("别改", "不能直接推送"), not "别名" (alias)
  // or "不能运行" (does not run).
  cue('constraint', 0.75, /不要|(?:不能|不可以|别|別)(?:再|用|使用|改|修改|动|動|删|刪|碰|加|添加|提交|推送|写|寫|引入|安装|安裝|依赖|依賴|直接)|しないこと|しないで|ないこと[。]?\s*$|ないように|必ず|必須|하지\s?(?:마|말|않도록)|해야\s?(?:한다|합니다|해요|함)|필수/u),
  // "Don't …" written as a rule: 不 before a verb of doing ("不编辑生成目录", "不执行破坏性命令"), 避免
  // (avoid), "…をハードコードしない" (a plain negative after its object), "…지 마세요".
  cue('constraint', 0.75, /(?:^|[，,；;：:]\s*|并且|並且|而且|且|并|並)不(?:执行|執行|编辑|編輯|修改|提交|推送|使用|删除|刪除|引入|添加|硬编码|硬編碼|暴露|跳过|跳過|关闭|關閉)|避免|を[^。、]{1,30}しない(?:こと)?[。]?\s*$|必要が(?:ある|あります)|지\s?않기[.。]?\s*$|지\s?(?:마세요|마십시오|마라|말\s?것|말아\s?주세요)/u),
  // A limit with its number ("覆盖率不低于 80%", "50文字以内", "최대 600줄").
  cue('constraint', 0.75, /(?:不低于|不少于|不超过|不超過|至少|最多|最大|最小|최대|최소)\s*\d|\d+\s*(?:%|％|行|字|文字|个|個|줄|자|개)?\s*(?:以内|以下|以上|未満|이하|이상|이내|초과)/u),

  cue('preference', 0.8, /我(?:一直|向来|向來|总是|總是|更|比较|比較|一般|通常|个人|個人){0,3}(?:喜欢|喜歡|偏好|偏爱|偏愛|倾向|傾向|习惯|習慣|讨厌|討厭|不喜欢|不喜歡)|我的(?:偏好|习惯|習慣)|^(?:偏爱|偏愛|偏好)|(?:私|僕|俺|自分)(?:は|が)[^。]{0,20}(?:好き|好み|嫌い|好む)|(?:の方が|ほうが)(?:好き|好み|いい)|好みは|(?:저는|나는|전|난)\s?[^.。]{0,20}(?:선호|좋아|싫어)|선호(?:합니다|해요|한다|해)|제\s?취향/u, true),

  cue('convention', 0.75, /约定|約定|规范|規範|惯例|慣例|(?<!重)命名|代码风格|代碼風格|统一使用|統一使用|規約|命名規則|ルール|コーディングスタイル|スタイルガイド|で統一|규칙|컨벤션|규약|네이밍|코딩\s?스타일|스타일\s?가이드/u),
  // How a thing is done where a choice exists: "优先使用 pnpm", "尽量用相对路径", "可能な限り const を使用".
  cue('convention', 0.75, /(?:优先|優先|우선)(?!级|級|度|순위|順位)|尽量|盡量|尽可能|盡可能|可能な限り|できるだけ|なるべく|가능한\s?한|가급적|최대한/u),
  // Names, prefixes and indentation ("ブール値は is で開始", "Interface: I 접두사", "缩进使用 2 个空格").
  cue('convention', 0.75, /前缀|前綴|开头|開頭|接頭辞|プレフィックス|で(?:開始|始め|始ま)|접두사|(?:로|으로)\s?시작|缩进|縮進|インデント|들여쓰기|(?:驼峰|蛇形|帕斯卡|短横线|短橫線)|(?:キャメル|スネーク|パスカル|ケバブ)ケース|(?:카멜|스네이크|파스칼|케밥)\s?케이스/u),
  // How commit messages are written, and a practice written as "…を使用する" / "…で書く".
  cue('convention', 0.8, /(?:提交信息|提交消息|commit\s?(?:信息|消息|message)|コミットメッセージ|커밋\s?메시지)[^。.]{0,40}(?:用|使用|写|寫|格式|规范|規範|で|は|는|로|으로|작성)/u),
  cue('convention', 0.7, /を(?:使用|使う|利用)する(?:こと)?[。]?\s*$|で(?:書く|記述する|統一する)(?:こと)?[。]?\s*$/u),
  // The language things are written in: "用中文回复", "日本語で記述", "한국어로 작성".
  cue('convention', 0.8, /(?:用|使用|以)(?:中文|英文|英语|英語|日语|日語|韩语|韓語)|(?:日本語|英語|中国語|韓国語)で|(?:한국어|한글|영어|일본어|중국어)로/u),

  // The language the assistant answers in: the user's own taste, like "please always answer in Japanese".
  cue('preference', 0.85, /(?:用|使用|以)(?:中文|英文|英语|英語|日语|日語|韩语|韓語)(?:来|來)?(?:回复|回覆|回答|答复|答覆|交流|沟通|溝通)|(?:日本語|英語|中国語|韓国語)で(?:回答|返信|返答|答え|応答|会話)|(?:한국어|한글|영어|일본어|중국어)로\s?(?:답변|응답|대답|답해|대화)|(?:交流|回复|回覆|回答|输出|輸出)语言|(?:回答|応答|返信|出力)言語|(?:응답|답변|대화|출력)\s?언어/u, true),

  cue('fact', 0.75, ROOT_CAUSE),
  cue('fact', 0.75, /(?:端口|埠|ポート|포트)\s*(?:号|番号|번호)?\s*(?:是|为|為|は|:|：|=)?\s*\d{2,5}\b/u),
  cue('fact', 0.65, /(?:位于|位於|存放在|保存在|存储在|儲存在|放在)|に(?:保存|格納|配置)され|에\s?(?:저장|위치)(?:된다|됩니다|되어|돼)/u),

  cue('context', 0.7, /(?:本|这个|這個|该|該)(?:项目|項目|仓库|倉庫)(?:使用|基于|基於|采用|採用|是)|(?:この|本)(?:プロジェクト|リポジトリ)は|(?:이|본)\s?(?:프로젝트|저장소|레포)는/u),

  // A standing word alone ("클래스 메서드 외에는 항상 화살표 함수 사용", "原則 … でマージするようにします"), as
  // "from now on" is in English: a rule, though it names no category. (DURABLE's other words, "每次",
  // "모든", "必ず" …, make a rule last but are no rule by themselves.)
  cue('convention', 0.65, /以后|以後|今后|今後|从现在开始|從現在開始|一律|始终|始終|总是|總是|永远|永遠|原则上|原則|これからは|常に|いつも|앞으로|이제부터|항상|언제나|원칙적으로/u),

  cue('note', 0.65, /^(?:注意|记住|記住|覚えて|留意|참고로|기억)/u),
];

/**
 * How a CJK sentence reads, or null when it is no memory: too short, a question, a request for now,
 * the assistant's narration or a line that does not conclude, or no cue at all.
 */
export function readCjk(text: string, role: 'user' | 'assistant', concluded: boolean): LanguageReading | null {
  const t = text.trim();
  if (!longEnough(t) || QUESTION.test(t)) return null;
  const dictated = role === 'user' && DICTATED_RULE.test(t);
  if (role === 'user' && DEFERRED.test(t)) return null;
  const durable = (DURABLE.test(t) && !PROBLEM.test(t)) || dictated || (role === 'user' && STANDING_REQUEST.test(t) && !PROBLEM.test(t));
  if (role === 'user' && (REQUEST.test(t) || MUSING.test(t) || NARRATION.test(t)) && !durable) return null;
  // A root cause that names nothing to look up explains one failure, as in English (rule-extractor.ts);
  // one guessed ("…が原因のようです", "可能是…导致的") is no conclusion yet.
  const concludes = concluded || CONCLUSION.test(t) || (ROOT_CAUSE.test(t) && !namesNothing(t) && !HEDGE.test(t));
  if (role === 'assistant' && (NARRATION.test(t) || PROPOSAL.test(t) || !(concludes || durable))) return null;
  const { scores, personal } = cueScores(CUES, t);
  // A rule to write down is a convention, whatever else it names.
  if (dictated) scores.set('convention', Math.max(scores.get('convention') ?? 0, 0.8));
  if (scores.size === 0) return null;
  // A problem reported is no rule unless it also forbids or decides something ("不要忽略错误").
  if (PROBLEM.test(t) && !scores.has('constraint') && !scores.has('decision')) return null;
  // The assistant's lasting words count only for what it decided ("今後は pnpm に統一しました"): its
  // "must" and "always" explain or forecast ("모든 필수 필드를 포함한 … 작성하게 됩니다").
  if (role === 'assistant' && !concludes && !scores.has('decision')) return null;
  return reading(scores, { personal, durable, hedged: HEDGE.test(t), conditional: CONDITIONAL.test(t) });
}
