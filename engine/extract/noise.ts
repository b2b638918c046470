/**
 * Line and sentence filters: what is never a memory. Code, logs, stack traces, progress
 * output, acknowledgements, questions. Each test is a cheap regex over one line or sentence.
 */
import { CJK, words } from '../text/tokenize.js';

const CODE_KEYWORD_START =
  /^(?:import|export|const|let|var|function|class|interface|type|enum|def|return|if|elif|else|for|while|switch|case|package|public|private|protected|async|await|fn|impl|struct|pub|use|from|try|catch|throw|new)\b/;
const CODE_PUNCT = /[;{}=()<>[\]]/;
const CODE_END = /(?:[;{}]|=>|\\)$/;
const CODE_TOKENS = /=>|===|!==|&&|\|\||::|\+\+|<\/\w+>|\w+\([^)]*\)\s*[;{]/;
const SYMBOLS = /[{}[\]();=<>$|&*\\]/g;
/** A run of Chinese, Japanese or Korean characters long enough to be words, not a label. */
const CJK_WORDS = new RegExp(`(?:${CJK.source}){4,}`, 'u');

/** A line of source code, markup, data or a shell command rather than prose. */
export function isCodeLine(line: string): boolean {
  const t = line.trim();
  if (/^(?:\/\/|\/\*|\*\s|\*\/|#!|<[a-z][\w-]*[\s>/]|<\/|\$ |>>> |\w+@[\w.-]+:[~/])/.test(t)) return true;
  // One token without spaces is code or a name, but Chinese and Japanese write whole sentences so.
  if (/^"[^"]+"\s*:/.test(t) || /^[\w.-]+:\s*\S+$/.test(t) || (/^\S+$/.test(t) && !CJK_WORDS.test(t))) return true;
  if (CODE_END.test(t) && !/[.!?]$/.test(t)) return true;
  if (CODE_TOKENS.test(t)) return true;
  if (CODE_KEYWORD_START.test(t) && CODE_PUNCT.test(t)) return true;
  const symbols = t.match(SYMBOLS)?.length ?? 0;
  return t.length >= 10 && symbols / t.length > 0.1;
}

const LOG_LINE =
  /^(?:\[[^\]]{1,24}\]\s|\d{4}-\d\d-\d\d[T ]\d\d:|(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL)\b[:\s]|npm (?:ERR!|WARN|notice)|(?:PASS|FAIL)\s|(?:not )?ok \d+\b|#\s*(?:tests|pass|fail|suites|duration|skipped|todo|cancelled)\b|[✓✔✗✘×•·▶►⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏])/;
const TRACE_LINE =
  /^(?:at\s+\S.*(?:\(.+:\d+(?::\d+)?\)|:\d+:\d+)$|Traceback \(most recent call last\)|File ".+", line \d+|[\w.]*(?:Error|Exception)(?::\s|$)|Caused by:|panic:|goroutine \d+)/;
const PROGRESS =
  /^(?:running|reading|writing|searching|checking|installing|building|compiling|downloading|fetching|loading|analy[sz]ing|updating|creating|executing|looking|scanning|listing|starting|waiting|generating|resolving|linking|applying|editing)\b[^.!?]{0,100}(?:\.\.\.|…)$|^(?:all\s+)?\d+\s+(?:tests?\s+)?(?:passed|failed|passing|failing)\b|\d{1,3}%\s*(?:\||\]|complete|done)/i;

/** A line of a drawn file tree ("├── agent-child-1.jsonl", "│   └── subagents/"). */
const TREE_LINE = /[├└│┌┐┘┬┴┼]\s*─|^[│├└]/;

/** Tool chatter: logs, test reporters, stack traces, progress lines, drawn file trees. */
export function isChatterLine(line: string): boolean {
  const t = line.trim();
  return LOG_LINE.test(t) || TRACE_LINE.test(t) || PROGRESS.test(t) || TREE_LINE.test(t);
}

const ACK = new Set(
  (
    'ok okay k sure thanks thank thx ty you great cool nice perfect sounds good got it lgtm yes yep yeah yup no nope ' +
    'awesome alright right fine done hi hello hey please agreed exactly correct works that this makes sense will do ' +
    'go ahead love wonderful excellent amazing much so lol haha hmm wow oh ah'
  ).split(' '),
);

/** Greetings, thanks and acknowledgements ("ok", "thanks!", "sounds good, go ahead"). */
export function isAcknowledgement(sentence: string): boolean {
  const w = words(sentence);
  return w.length === 0 || w.every((x) => ACK.has(x));
}

const QUESTION_START =
  /^(?:what|why|how|when|where|which|who|whose|whom)\b|^(?:can|could|would|should|shall|will|do|does|did|is|are|am|was|were|have|has|may|might)\s+(?:we|you|i|it|they|this|that|there|the|our|my|your|anyone|someone)\b/i;

/**
 * A question typed without its question mark at the end of a statement ("I just want the reviewers
 * to have more context, do they need the ast"): a comma, then an auxiliary and its subject.
 */
const TRAILING_QUESTION = /,\s*(?:(?:and|or|but|so)\s+)?(?:can|could|would|should|shall|will|do|does|did|is|are|was|were|have|has)\s+(?:we|you|i|it|they|this|that|these|those|there)\b[^,;:.!]*$/i;

export function isQuestion(sentence: string): boolean {
  const t = sentence.trim();
  return t.endsWith('?') || QUESTION_START.test(t) || TRAILING_QUESTION.test(t);
}

/** Assistant narration of its next step ("Let me read…", "I'll now run…"): never a conclusion. */
export function isNarration(sentence: string): boolean {
  return /^(?:let me|let's (?:see|look|check|try|run|read|start|take)|i'll|i will|i'm going to|i am going to|i'm now|now (?:i'll|let me|i will)|next,? (?:i'll|let me)|first,? (?:i'll|let me)|i need to|i can see|i see|looking at|i found|i notice|i'm|here's|here is)\b/i.test(
    sentence.trim(),
  );
}

/** What a guess at the state of things costs a cue: more than a hedge, so a fact's cue (0.6–0.75) falls below 0.5. */
const POSSIBILITY = 0.3;

/** Tentative or hypothetical statements; they lower a cue's score rather than veto it. */
export function hedgePenalty(sentence: string): number {
  let p = 0;
  if (/\b(?:maybe|perhaps|might|not sure|i wonder|probably|could try|what if|thinking about|considering|leaning)\b/i.test(sentence)) p += 0.25;
  // A guess at what is the case ("the application may not be listening on port 5000", "it could have
  // failed"). "May not" alone forbids ("you may not use X") and stays a cue.
  else if (/\b(?:may|could) (?:not |well )?(?:be \w+ing|have (?:been|\w+ed))\b/i.test(sentence)) p += POSSIBILITY;
  if (/^(?:if|unless|whether|in case)\b/i.test(sentence.trim())) p += 0.3;
  // A plan for some day ("we should migrate to ESM at some point") is no decision yet.
  if (/\b(?:at some point|some ?day|one day|down the (?:road|line)|in the long run|sooner or later)\b/i.test(sentence)) p += 0.25;
  return p;
}

/**
 * Idioms that hold a rule's cue word without stating a rule. The cue word (never, always, only,
 * must, don't, can't) does not quantify a practice there: it is a discourse marker ("never mind",
 * "nevermind", "as always"), the speaker's mind or experience ("I never thought …", "never heard of
 * it", "I don't know", "can't wait", "don't worry"), a pleasantry ("always happy to help", "no
 * worries"), a guess ("it must have been the cache") or a hedge or wish ("not always", "if only",
 * "only just").
 */
const IDIOM = new RegExp(
  [
    // Discourse markers and set phrases.
    String.raw`\bnever ?mind(?: (?:that|this|it|then))?\b`,
    String.raw`\b(?:as|like) (?:always|ever|usual)\b`,
    String.raw`\bnow or never\b`,
    String.raw`\bnever say never\b`,
    String.raw`\bbetter late than never\b`,
    String.raw`\bno worries\b`,
    // A cue word over a verb of the mind, of experience or of waiting: a state of the speaker.
    String.raw`\bnever (?:really |even |actually |once )?(?:thought|knew|heard|noticed|realized|realised|expected|imagined|guessed|seen|saw|cared|understood|dreamed|dreamt)\b`,
    String.raw`\b(?:don'?t|do not|didn'?t|did not|can'?t|cannot|couldn'?t|could not) (?:really |even |actually |quite )?(?:mind|worry|know|remember|recall|understand|believe|wait|imagine|care)\b`,
    String.raw`\b(?:always|never) (?:wanted|wondered|liked the idea)\b`,
    // What keeps happening to the speaker, not what they keep doing ("we always end up fighting the linter").
    String.raw`\balways (?:end(?:s|ed)? up|seems?|seemed|forgets?|forgot|runs? into|ran into|gets? stuck|got stuck|breaks?|broke|fails?|failed)\b`,
    // A pleasantry: always glad to, always a pleasure.
    String.raw`\balways (?:happy|glad|pleased|keen|eager|willing|nice|fun|a pleasure)\b`,
    // A guess about a cause ("must have been", "must've changed").
    String.raw`\bmust(?:'ve| have) (?:been|had|[a-z]+ed)\b`,
    // Hedges and wishes.
    String.raw`\bnot always\b`,
    String.raw`\bif only\b`,
    String.raw`\bonly just\b`,
  ].join('|'),
  'gi',
);

/**
 * The sentence as the cues should read it: its idioms blanked (see IDIOM), and what is left of
 * its start trimmed so that cues anchored at the start still find it ("Never mind, always run …").
 * The memory keeps the sentence as typed.
 */
export function withoutIdioms(sentence: string): string {
  return sentence
    .replace(IDIOM, ' ')
    .replace(/\s{2,}/g, ' ')
    .replace(/^[\s,.;:!–—-]+/, '')
    .trim();
}
