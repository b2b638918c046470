/**
 * Answers resolved against the question they answer. A terse reply ("Option A for sure",
 * "1.A 3. B", "b") means nothing alone: it is matched to the options the assistant listed in its
 * previous message and becomes the chosen option as a decision. An AskUserQuestion answer (the
 * transcript reader's "Question? → Answer (description)") is a decision when the question asked for
 * a choice about the work (which tool, how should users …, what naming): a question about how
 * things are right now ("Is the router powered on?", "Do you have SSH access already?", "What is
 * the server's IP?") or about the next step ("X isn't responding. How should I access it?" → "Try
 * the web UI") is answered for the moment. Those answers stay in the turn's episode, where a
 * question about them still finds them, but never become a decision.
 */
import { cleanContent } from './clean.js';
import type { ExtractTurn } from './types.js';

export interface AnswerDraft {
  content: string;
  confidence: number;
}

/** What the user chose: stated, so it ranks with explicit decisions. */
const ANSWER_CONFIDENCE = 0.8;
/** Replies longer than this are statements of their own, not a pick from a list. */
const MAX_TERSE_CHARS = 120;
const MAX_CONTENT = 300;

/**
 * `Option A: …`, `**A)** …`, `1. …`, `- B - …` lines of the assistant's message, by label: the
 * first line of each label, except that a line named an option ("## Option 2: …") wins over the
 * numbered steps of an option before it ("1. Connects to …", "2. Forwards …").
 */
function optionsOf(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const named = new Set<string>();
  const re = /^[ \t]*(?:[-*•]\s+|#{1,6}\s+)?(?:\*\*|__)?(option|choice|approach|plan|alternative)?\s*\(?([A-Za-z]|\d{1,2})[).:–-](?:\*\*|__)?\s+(.{8,})$/gim;
  for (const m of text.matchAll(re)) {
    const label = m[2]!.toUpperCase();
    const isNamed = m[1] !== undefined;
    if (out.has(label) && (named.has(label) || !isNamed)) continue;
    out.set(label, m[3]!.replace(/\*\*|__|`/g, '').trim());
    if (isNamed) named.add(label);
  }
  return out;
}

/** Option labels a terse reply picks, in order: "option a", "A", "1.A" (question 1, option A). */
function picks(reply: string): { question: string | null; option: string }[] {
  const out: { question: string | null; option: string }[] = [];
  for (const m of reply.matchAll(/\b(\d{1,2})\s*[.)]\s*([A-Da-d])\b/g)) out.push({ question: m[1]!, option: m[2]!.toUpperCase() });
  if (out.length > 0) return out;
  const named = /\b(?:option|choice|approach|plan|alternative)\s+([A-Za-z]|\d{1,2})\b/i.exec(reply);
  if (named) return [{ question: null, option: named[1]!.toUpperCase() }];
  const bare = /^\s*\(?([A-Da-d]|\d)\)?(?:[.!,)]|\s|$)/.exec(reply);
  return bare ? [{ question: null, option: bare[1]!.toUpperCase() }] : [];
}

/**
 * Words of a question that asks for a choice (what to use, how it should be, what is preferred),
 * alternatives offered side by side ("function-only or all doc comments?"), or a way of working
 * proposed for a yes or no ("Include _test.go files in the sweep?").
 */
const CHOICE =
  /\b(?:which|should|prefer(?:red)?|want|would you like|choose|pick|options?|approach|strategy|default|convention|naming|style|format|policy)\b|\bwhat (?:kind|type|sort|level|scope|name)\b|\w\s+or\s+\w[^?]*\?\s*$|^(?:include|exclude|use|keep|apply|support|allow|cover|enforce|require)\b/i;
/**
 * A question that asks how something is to be ("What stack does the server run on?", "Where does
 * the truth come from?", "How do we make the guard bind?"): under AskUserQuestion, whose options
 * are the candidates, a choice among them. Not a request for information ("What is the address of
 * the staging host?"), which is answered for now.
 */
const ASKS_FOR = /^(?:(?:what|which)\s+(?!(?:is|are|was|were)\b)[\w-]+|where|how)\s+(?:does|do|should|will|would|shall)\b/i;
/** A yes/no question about the present state ("Is …", "Do you have …", "Did it …"), not a choice. */
const STATE_QUESTION = /^(?:is|are|was|were|has|have|had|does|did|do you have|can you (?:see|access|reach|connect)|could you (?:see|access|reach))\b/i;
/** The moment: how things are now, something failing or in need of rework now, what to do next, in which order, or by when (tonight, tomorrow). */
const MOMENT = /\b(?:currently|right now|at the moment|at this point|already|still|yet|next|first|for now|this time|today|tonight|tomorrow|this (?:morning|afternoon|evening|week)|sequence|in (?:what|which) order|(?:is|are|isn't|aren't|is not|are not) (?:responding|running|working|reachable|available|up|down|on|online|offline)|not responding|(?:doesn't|does not|didn't|did not|won't|can't|cannot) (?:work|respond|connect|start|load|build|run)|fail(?:s|ed|ing)?|broken|(?:an? |the )?error|needs? (?:rework(?:ing)?|fixing|changing|changes|more work|attention)|what(?:'s| is) (?:wrong|missing|off))\b/i;
/** An option bound to the work at hand ("Drive-by fix in this PR", "Subagent-Driven (this session)"). */
const AT_HAND = /\bthis (?:pr|pull request|session|branch|commit|task|run)\b/i;
/** An option that says when or in which order ("Fix the import first", "Do it later"). */
const WHEN = /\b(?:first|next|now|later|for now|this time|today|tonight|tomorrow|afterwards)\b/i;
/**
 * An option that says what the assistant would do ("Subagent-Driven — I dispatch a fresh subagent
 * per task"): how the work at hand gets done, not how the project is to be.
 */
const ASSISTANT_ACTS = /(?:^|[\s(—–:-])I(?:'ll| will| would| can)? (?!(?:think|believe|feel|guess|recommend|suggest|prefer|like|love|want|need|mean|agree)\b)[a-z]{2,}/;
/** An answer that is an action for now ("Try the web UI", "Skip it", "Later"). */
const ACTION_NOW = /^(?:try|retry|skip|wait|later|not now|continue|proceed|go ahead|stop|cancel|abort|restart|reboot|check)\b/i;

/**
 * An answer that leaves the choice open or hands it back ("help me decide here", "you decide", "not
 * sure yet", "what would you recommend?", "explain the options first"): nothing was chosen.
 */
const DEFERS =
  /^\W*(?:(?:please|pls|ok(?:ay)?|hmm+|so)[\s,]+)*(?:help me (?:decide|choose|pick|think)|(?:you|u) (?:decide|choose|pick)|(?:your|ur) (?:call|choice|pick)|up to you|(?:i'?m |i am )?(?:not sure|unsure|undecided)|i (?:don'?t|do not) know|no idea|(?:whatever|what) (?:you think|do you (?:think|recommend|suggest))|what would you (?:do|recommend|suggest|pick)|(?:explain|tell me more|more (?:info|details)|compare)\b|(?:let'?s |we'?ll )?(?:discuss|decide later|revisit|think about it)\b)/i;

/**
 * Whether an AskUserQuestion answer decides something that lasts: the question asks for a choice
 * (and not about the state of things now or the next step), and the answer is not an action for now,
 * nor bound to the work at hand, nor what the assistant is to do ("You do both (I restart the bot,
 * then run the migration)"), as an option offered in prose is not either.
 */
export function decidesLastingChoice(question: string, answer: string): boolean {
  const q = question.trim();
  // The option's label, not the description after it ("Security writes only (… out of scope for this branch)").
  const label = answer.replace(/\s*\(.*$/s, '');
  if (!(CHOICE.test(q) || ASKS_FOR.test(q)) || MOMENT.test(q) || ACTION_NOW.test(answer.trim()) || AT_HAND.test(label) || ASSISTANT_ACTS.test(answer) || DEFERS.test(label)) return false;
  return !STATE_QUESTION.test(q) || /\b(?:want|prefer|should)\b/i.test(q);
}

function clip(text: string): string {
  return text.length > MAX_CONTENT ? `${text.slice(0, MAX_CONTENT - 1).trimEnd()}…` : text;
}

export function answerDrafts(turn: ExtractTurn, previousAssistant: string): AnswerDraft[] {
  if (turn.role !== 'user') return [];
  if (turn.kind === 'answer') {
    return turn.text
      .split('\n')
      .map((line) => /^(.+?)\s*→\s*(.+)$/.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null && decidesLastingChoice(m[1]!, m[2]!))
      .map((m) => ({ content: clip(cleanContent(`${m[1]!.replace(/\?\s*$/, '')}: ${m[2]!}`)), confidence: ANSWER_CONFIDENCE }));
  }
  const reply = turn.text.trim();
  if (reply.length > MAX_TERSE_CHARS || !previousAssistant) return [];
  const chosen = picks(reply);
  if (chosen.length === 0) return [];
  const options = optionsOf(previousAssistant);
  // Options offered for the moment ("How should I access it now?", "1. Fix the import first") say
  // what to do next, not how the project is to be.
  const asked = /[^.!?\n]*\?\s*$/.exec(previousAssistant.trim())?.[0] ?? '';
  if (MOMENT.test(asked)) return [];
  const out: AnswerDraft[] = [];
  for (const p of chosen) {
    const text = options.get(p.option) ?? (p.question ? options.get(p.question) : undefined);
    if (!text || WHEN.test(text) || AT_HAND.test(text) || ACTION_NOW.test(text) || ASSISTANT_ACTS.test(text)) continue;
    out.push({ content: clip(cleanContent(`Decision: ${text}`)), confidence: ANSWER_CONFIDENCE });
  }
  return out;
}

/** A prompt opening with a change of mind. */
const CHANGE_OF_MIND = /^\s*(?:actually|on second thoughts?|second thoughts|on reflection|scratch that|change of plans?|wait|no,)\b/i;
/** Words that name another choice ("go with", "use", "instead"), unlike a new request ("actually, also add a test"). */
const ANOTHER_CHOICE = /\b(?:go with|going with|use|using|choose|pick|prefer|instead|rather|switch|option|approach|let'?s do)\b/i;
/** An option's letter or number closing the prompt ("on second thought, B"). */
const OPTION_LABEL_LAST = /(?:^|[\s,:;(])(?:[A-D]|\d)[.!)]?\s*$/;

/**
 * Whether a prompt takes back the answer the user just gave ("actually lets go with the API key
 * approach you recommended", "on second thought, B"): a change of mind that names another choice.
 * The answer no longer holds; the prompt says what holds instead, and is read as a statement of its own.
 */
export function takesBackAnswer(prompt: string): boolean {
  return CHANGE_OF_MIND.test(prompt) && (ANOTHER_CHOICE.test(prompt) || OPTION_LABEL_LAST.test(prompt));
}
