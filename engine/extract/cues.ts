/**
 * Cue phrases per category with scores. A sentence's score for a category is its strongest
 * cue, plus a little for a stated reason, minus a hedge penalty. Weights: 0.85–0.9 explicit
 * ("Decision:", "decided to", "must not"), 0.75–0.8 clear phrasing, 0.6–0.7 weaker signals
 * that need no competing cue to win. A sentence without any cue is never a memory.
 */
import type { Category } from '../types.js';
import { hedgePenalty } from './noise.js';
import { toolNamesPattern } from './synonyms.js';

interface Cue {
  category: Category;
  weight: number;
  re: RegExp;
  /** The cue speaks about the user's own taste: the memory goes to the personal space. */
  personal?: boolean;
}

/** "We use Yarn Berry…": a team statement about a tool the synonym table knows. */
const KNOWN_TOOL_IN_USE = new RegExp(`\\bwe (?:use|run|build with|deploy with|rely on)\\s+(?:\\w+\\s+)?(?:${toolNamesPattern()})\\b`, 'i');

const cue = (category: Category, weight: number, re: RegExp, personal = false): Cue => ({ category, weight, re, personal });

/**
 * Work the user keeps for themselves ("I will run commands like git init and git commit myself",
 * "I'll handle the commits myself"): how they work, not a task for now. Like any preference, it
 * goes to every repository only when said to last ("I always commit myself").
 */
const SELF_HANDLED =
  /\bi(?:'ll| will| always| usually|'d rather| prefer to| like to| want to)?\s+(?:run|do|handle|make|manage|take care of)\s+(?:(?:all|any|the|my own)\s+)?(?:commands|git\b|commits?|committing|pushes|pushing|merges|merging|releases|deploys|deployments|installs|installing|migrations|builds)\b[^.;!?]{0,60}\bmyself\b/i;

/**
 * After "decided" or "agreed": the decision only referred to, in a clause about something else
 * ("except the folders we already decided to omit)", "the plan we agreed on."): its verb has no
 * object, so what was decided is not in the sentence.
 */
const ONLY_REFERRED = String.raw`(?!\s+(?:to\s+\w+|on|upon)\s*(?:[).,;!?]|$))`;

const CUES: readonly Cue[] = [
  cue('decision', 0.9, /^(?:decision|decided)\s*[:–-]/i),
  cue('decision', 0.85, new RegExp(String.raw`\b(?:i|we)(?:'ve| have)? (?:finally |just |now )?decided\b${ONLY_REFERRED}|\bdecided${ONLY_REFERRED} (?:to|on|that|against)\b`, 'i')),
  cue('decision', 0.85, new RegExp(String.raw`\b(?:we|i)(?:'ve| have)? (?:all )?agreed\b${ONLY_REFERRED}|\bagreed${ONLY_REFERRED} (?:to|on|that)\b`, 'i')),
  cue('decision', 0.8, /\blet'?s (?:go with|use|switch|stick with|move to|adopt|keep|drop|pick|standardi[sz]e on|migrate)\b/i),
  // Not on what is in front of the user ("then we will deploy it", "we'll keep that for now").
  cue('decision', 0.75, /\bwe(?:'ll| will|'re going to| are going to| shall)\s+(?:\w+ly\s+)?(?:use|go with|switch|stick with|move|adopt|keep|drop|migrate|standardi[sz]e|store|expose|deploy|replace|rely on)\b(?!\s+(?:it|this|that|them)\b\s*(?:[.!?,;]|$|(?:then|now|later|first|for now|when|once|after|afterwards|too|as well)\b))/i),
  cue('decision', 0.65, /\bwe should (?:use|go with|switch|stick with|move|adopt|keep|drop|migrate)\b/i),
  cue('decision', 0.75, /\b(?:we|i)(?:'re| are|'m| am|'ve| have)? ?(?:switching|switched|moving|moved|migrating|migrated|replacing|replaced)\b[^.]{0,60}?\b(?:to|with|from|over)\b/i),
  cue('decision', 0.75, /\b(?:going|went) with\b|\bopted (?:for|to)\b|\bsettled on\b|\bwe (?:chose|picked)\b/i),
  cue('decision', 0.7, /\b(?:use|using|go with|switch to)\b[^.]{1,60}\binstead of\b/i),
  cue('decision', 0.7, /^(?:switched|migrated|moved|replaced|dropped|adopted|pinned)\b[^.]{0,60}\b(?:to|with|from|for)\b/i),

  cue('constraint', 0.85, /\bmust(?:n't| not| never)\b|\bshall not\b/i),
  cue('constraint', 0.75, /\bmust (?:be|stay|remain|support|run|work|use|have|pass|keep|go|only|never)\b/i),
  cue('constraint', 0.8, /\b(?:has|have|need|needs) to (?:support|run on|work|stay|be compatible|remain|target|keep working|build on)\b/i),
  cue('constraint', 0.8, /\b(?:can(?:'|no)?t|cannot|can not|may not|(?:are|is|aren't|isn't) not allowed to|(?:aren't|isn't) allowed to) (?:use|add|depend|ship|import|call|expose|store|log|touch|change|require|break|bump|upgrade)\b/i),
  cue('constraint', 0.75, /\b(?:not allowed|forbidden|prohibited|not permitted)\b/i),
  cue('constraint', 0.75, /^(?:(?:and |also |but )?(?:please )?never|under no circumstances)\b/i),
  cue('constraint', 0.7, /\b(?:we|you) (?:should |must )?never\b/i),
  cue('constraint', 0.7, /^(?:(?:and |also |but )?(?:please )?always)\b/i),
  // "we always …", "you should always …": a practice kept, wherever it sits in the sentence.
  cue('constraint', 0.7, /\b(?:we|you)(?: should| must)? always\b|\b(?:should|must) always\b/i),
  cue('constraint', 0.7, /^(?:do not|don't|dont) (?:add|use|import|commit|push|touch|modify|change|expose|store|log|call|edit|delete|remove|bump|upgrade|merge|deploy|disable|skip|rename)\b/i),
  cue('constraint', 0.7, /\b(?:requires?|depends on) (?:node|python|java|go|ruby|rust|at least|a minimum)\b|\bat least (?:node|python|version|v?\d)/i),
  cue('constraint', 0.65, /\bonly (?:\w+ ){0,3}(?:is|are) (?:allowed|supported|permitted)\b|\b(?:is|are) mandatory\b/i),
  cue('constraint', 0.7, /\bcompatib(?:le|ility) with\b|\bbackwards?[ -]compatib/i),
  // "dont block the commit, instead redact …": typed without an apostrophe as often as with.
  cue('constraint', 0.75, /\b(?:don'?t|do not|never)\b[^.!?]{0,100}?\binstead\b/i),

  // "I want you to …" asks the assistant for something now: a request, not a taste (rule-extractor.ts).
  cue('preference', 0.8, /\bi (?:really |strongly |much |generally |usually )?(?:prefer|like|love|hate|dislike|can't stand|cannot stand|don't like|do not like)\b/i, true),
  cue('preference', 0.8, /\bi(?:'d| would) (?:much )?(?:rather|prefer)\b/i, true),
  cue('preference', 0.75, /\bmy (?:personal )?(?:preference|preferred|favou?rite|style)\b/i, true),
  cue('preference', 0.8, /^(?:please )?(?:don'?t|do not|never) ever\b[^.]*\b(?:me|my|you|your|replies|answers|responses|explanations|messages)\b/i, true),
  cue('preference', 0.75, /^please (?:always|never|don't|do not)\b[^.]*\b(?:me|my|reply|replies|answer|answers|respond|responses|explain|explanations|summar)/i, true),
  cue('preference', 0.7, /\bi (?:always|usually|never|tend to)\b/i, true),
  cue('preference', 0.75, /\bi (?:only|just) want\b/i, true),
  cue('preference', 0.75, SELF_HANDLED, true),
  // prefer, preferably, and how it is often typed (perfer, perferably, prefered, perference); not the
  // noun spelled right, which names anyone's ("the client's preference for reduced data usage"):
  // the speaker's own is "my preference" above, "our preference" below.
  cue('preference', 0.7, /\bp(?:re|er)f[ea]r+(?:ed|ably|s)?\b|\b(?!preference)p(?:re|er)f[ea]r+ences?\b/i, true),
  cue('preference', 0.7, /\bwe (?:prefer|like|favou?r)\b|\bour (?:preference|preferred)\b/i),

  cue('convention', 0.8, /\bwe (?:always |usually |generally |typically |consistently )?(?:use|indent with|write|format with)\b[^.]{0,40}\b(?:tabs?|spaces|indentation|camel ?case|snake[_ ]case|kebab[- ]case|pascal ?case|single quotes|double quotes|semicolons|trailing commas|named exports|default exports|conventional commits|prefix|suffix)\b/i),
  cue('convention', 0.8, /\bcommit messages?\b[^.]{0,30}\b(?:follow|use|start|must|should|are|need)\b/i),
  cue('convention', 0.75, /\b(?:named|naming|name (?:them|it|files)|file ?names?)\b[^.]{0,40}\b(?:camel|snake|kebab|pascal|lower|upper)[ _-]?case\b|\b(?:camel|snake|kebab|pascal)[ _-]?case\b/i),
  cue('convention', 0.75, /\b(?:tests?|specs?|fixtures|migrations|components|docs|scripts|types|configs?|helpers|utils|mocks|stories|assets|hooks)\b (?:all )?(?:live|go|belong|are kept|sit|are placed|are stored|are located)\b (?:in|under|next to|beside|alongside|inside)\b/i),
  // The style guide as a rule or a place ("per the style guide", "the style guide says …", "… lives in
  // docs/"), not merely mentioned ("I looked at the style guide yesterday").
  cue('convention', 0.75, /\bby convention\b|\b(?:our|the) convention\b|\bconvention is\b|\b(?:per|according to|follows?|following|in line with)\s+(?:the |our )?style guide\b|\bstyle guide\b[^.!?]{0,40}?\b(?:says|said|requires|mandates|prescribes|wants|lives|is (?:in|at|under)\b|is `?[\w.-]*\/)/i),
  cue('convention', 0.7, /^(?:please )?(?:use|write|keep|put|name|prefix|format)\b[^.]*\b(?:everywhere|always|from now on|throughout|in this (?:repo|project|codebase)|for all|across the)\b/i),
  cue('convention', 0.75, /\b(?:branch|file|folder|tag|release|package|variable|function|class|table|column|topic|queue|bucket) names?\b[^.]{0,30}\b(?:look like|follow|start with|end with|must|should|are always)\b/i),
  cue('convention', 0.65, /\b(?:prefixed|suffixed) with\b|\b(?:formatted|linted) with\b/i),
  // How code is commented is the codebase's convention, even when said as a prohibition ("it is not
  // allowed to write elaborate comments", "comments must not restate the code"): above "must not".
  cue('convention', 0.87, /\b(?:code |doc |inline )?(?:comments?|docstrings?)\b[^.]{0,60}\b(?:must|should|shall|only|never|always|(?:not )?allowed)\b|\b(?:must(?:n't| not)?|should(?:n't| not)?|never|always|only|(?:not )?allowed to|don'?t|do not) (?:\w+ ){0,3}(?:comments?|docstrings?)\b/i),
  cue('convention', 0.65, /\b(?:from now on|going forward|as a rule)\b/i),

  cue('context', 0.75, /\b(?:this|the|our) (?:repo|repository|project|monorepo|codebase|app|application|service|backend|frontend|api|cli|site|product|stack)\b[^.]{0,40}\b(?:uses|is built (?:with|on)|is written in|is a|runs on|depends on|talks to|is deployed|consists of)\b/i),
  cue('context', 0.75, /\b(?:is|are) (?:written|built|implemented|developed) (?:in|with|on)\b/i),
  cue('context', 0.75, /\bdeploy(?:s|ments?|ed|ing)?\b[^.]{0,30}\b(?:go(?:es)? through|via|run on|happen|(?:are|is) done (?:via|through|with|by|from|on)|through)\b/i),
  cue('context', 0.6, /\b(?:runs?|hosted|deployed|lives?) (?:on|in|at)\b/i),
  cue('context', 0.6, /\bwe(?:'re| are) (?:building|migrating|using|running)\b/i),
  cue('context', 0.65, KNOWN_TOOL_IN_USE),
  cue('context', 0.6, /\b(?:ships?|shipped|released|publish(?:es|ed)?) (?:to|on|via)\b/i),

  cue('fact', 0.75, /\bport\s*(?:number\s*)?(?:is\s*|=\s*|:\s*)?\d{2,5}\b|\blocalhost:\d{2,5}\b/i),
  cue('fact', 0.7, /\b(?:is|are|gets?) (?:reset|rotated|backed up|refreshed|wiped|cleared|purged|rebuilt|redeployed|recreated|restarted)\b[^.]{0,40}\b(?:every|daily|nightly|weekly|hourly|each|at \d)/i),
  cue('fact', 0.65, /\b(?:every (?:night|day|hour|week|morning|evening)|nightly|daily at|at \d{1,2}:\d{2})\b/i),
  cue('fact', 0.7, /\b(?:run|runs|are run|is run|start|starts|is started|build|builds|is built) (?:with|via|using) `[^`]+`/i),
  cue('fact', 0.65, /\b(?:is|are|lives?) (?:at|on) (?:https?:\/\/|`)/i),
  cue('fact', 0.6, /\bis (?:pinned|locked) (?:to|at)\b/i),
  // A root cause holds beyond the turn; "the issue is that …" mid-debugging usually does not.
  cue('fact', 0.75, /\broot cause\b[^.!?]{0,40}?(?:\bis\b|\bwas\b|:)|\b(?:was|is) caused by\b/i),
  cue('fact', 0.65, /\b(?:is|are) (?:served|hosted|exposed|mounted|available|reachable) (?:from|at|on|under) (?:\/|https?:\/\/|`)/i),
  cue('fact', 0.6, /\b(?:is|are) (?:limited|capped|rate[- ]limited) (?:to|at)\b|\btimes? out after\b/i),

  // "Note the App ID" is a step to follow, not a note: "note" opens one only before a colon, dash or "that".
  cue('note', 0.65, /^(?:note\b\s*(?:[:,\-–—]|that\b|well\b)|(?:nb|fyi|heads up|important|remember|reminder|keep in mind)\b)/i),
  cue('note', 0.65, /\bremember that\b|\bkeep in mind\b|\bfor the record\b|\bworth noting\b|\bnote that\b/i),
];

/** Cues strong enough that a question carrying them still states something ("We decided on X, right?"). */
export const STATES_DECISION = /\b(?:decided|agreed|let'?s go with|we(?:'ll| will) use|going with|settled on)\b/i;

/** Assistant sentences count only when they state a conclusion. */
export const CONCLUSION =
  /^(?:decision|decided|summary|conclusion|outcome|to summari[sz]e|in summary|in short|going forward|from now on|note for (?:later|the future)|for future reference)\b|\b(?:i'?ve|i have|we'?ve|we have) (?:now )?(?:switched|changed|moved|migrated|replaced|standardi[sz]ed|pinned|settled|decided|agreed|converted|upgraded|downgraded)\b|\bwe (?:agreed|decided|settled|chose|went with)\b|\b(?:from now on|going forward)\b/i;

const RATIONALE = /\b(?:because|since|so that|otherwise|due to|as it)\b/i;

/** Priority among equal scores: the more specific, actionable category first. */
const PRIORITY: readonly Category[] = ['decision', 'constraint', 'preference', 'convention', 'fact', 'context', 'note'];

export interface CueScores {
  /** Score per category that has a cue (0..1). */
  scores: Map<Category, number>;
  /** Best category by score, ties by PRIORITY. */
  best: Category;
  personal: boolean;
}

export function scoreSentence(sentence: string): CueScores | null {
  const scores = new Map<Category, number>();
  let personal = false;
  let personalWeight = 0;
  for (const c of CUES) {
    if (!c.re.test(sentence)) continue;
    if ((scores.get(c.category) ?? 0) < c.weight) scores.set(c.category, c.weight);
    if (c.personal && c.weight > personalWeight) {
      personal = true;
      personalWeight = c.weight;
    }
  }
  if (scores.size === 0) return null;
  const bonus = RATIONALE.test(sentence) ? 0.05 : 0;
  const penalty = hedgePenalty(sentence);
  for (const [k, v] of scores) scores.set(k, Math.max(0, Math.min(0.95, v + bonus - penalty)));
  const best = bestOf(scores);
  return { scores, best, personal: personal && best === 'preference' };
}

export function bestOf(scores: ReadonlyMap<Category, number>): Category {
  let best: Category = 'note';
  let top = -1;
  for (const cat of PRIORITY) {
    const s = scores.get(cat);
    if (s !== undefined && s > top) {
      top = s;
      best = cat;
    }
  }
  return best;
}
