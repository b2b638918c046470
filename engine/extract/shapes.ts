/**
 * Shapes of text that state nothing lasting on their own, whatever cue they hold: a sentence cut
 * off before the list or code it leads into, a verdict on a finding, a proposal the assistant asks
 * leave to carry out, a forecast of what a change will do, a pick among what is on screen, and the
 * approved plan that starts its implementation (the assistant's words, not the user's), and a
 * statement that names nothing a later session could look up.
 */

/**
 * A sentence that hands over to what follows it ("… using TDD workflow since:", "… but the signature
 * is:", "To answer your questions:" before a list or a code block): cut off from what it says, it
 * says nothing whole.
 */
const HANDS_OVER = /\b(?:since|because|as|is|are|was|were|be|to|of|the|an?|and|or|but|that|with|for|by|from|in|on|at|like|via|than|into|following|includes?|including|follows|below|(?:your|my|the|these|those) (?:questions?|answers?|points?))\s*:\s*$/i;

/** A message that ends asking leave to go on ("Should I proceed with …?", "Want me to …?"). */
const ASKS_LEAVE = /\b(?:should i|shall i|(?:do you )?want me to|would you like me to|ok(?:ay)? to|good to|may i|can i)\b[^?\n]*\?$/i;
/** A forecast of what something will do from now on ("The installer will carry the correct config going forward"). */
const FORECAST = /\b(?:will|'ll|won't)\b[^.!?]*\b(?:going forward|from now on|in (?:the )?future)\b|\b(?:going forward|from now on|in (?:the )?future)\b[^.!?]*\b(?:will|'ll|won't)\b/i;
/** A practice stated as ours or yours to keep ("we'll always …", "you should …"): a rule, forecast or not. */
const DURABLE_PRACTICE = /\b(?:we|you)(?:'ll| will| should| must)\b|\b(?:always|never|must|should)\b/i;
/** A statement labelled as a decision or its outcome ("Decision: …", "**Outcome** - …"). */
const LABELLED_DECISION = /^(?:decision|decided|outcome|conclusion|verdict)\s*[:–—-]\s*/i;
/** A verdict word in capitals before its reason ("ACCEPT - cohesive", "DEFER: can split later"). */
const VERDICT = /^[A-Z]{3,}(?:[ _][A-Z]{2,})?\s*(?:[-–—:(]|$)/;

/**
 * The plan Claude Code's plan mode wrote, sent back as the prompt that starts its implementation:
 * the assistant's words the user approved, read as the assistant's (its conclusions count, its steps
 * and checks for the work at hand do not).
 */
const APPROVED_PLAN = /^\s*Implement the following plan:/;

export function handsOver(sentence: string): boolean {
  return HANDS_OVER.test(sentence);
}

export function asksLeave(message: string): boolean {
  return ASKS_LEAVE.test(message.trim());
}

/** Null: not labelled as a decision; else whether what follows the label is a verdict word. */
export function decidedVerdict(sentence: string): boolean | null {
  const label = LABELLED_DECISION.exec(sentence);
  return label ? VERDICT.test(sentence.slice(label[0].length)) : null;
}

/** A forecast ("… will … going forward") that states no practice of ours or yours. */
export function isForecast(sentence: string): boolean {
  return FORECAST.test(sentence) && !DURABLE_PRACTICE.test(sentence);
}

/**
 * Picking the one in front of the user ("let's use this one instead", "let's go with option B",
 * "let's do your recommendation"): a choice among what is on screen, meaningless without it and
 * whatever durability word it holds ("instead"), unless it says it lasts ("from now on").
 */
const PICKS_AT_HAND =
  /\blet(?:'s|s| us) (?:go with|use|keep|pick|stick with|take|do|choose) (?:(?:this|that|the (?:first|second|third|last|other|new|old)) one\b|(?:the |your )?(?:option|choice|approach|variant|alternative|proposal|plan) (?:[a-z]|\d{1,2}|one|two|three|four)\b|(?:your|the) (?:recommendation|suggestion|rec)\b)/i;
const LASTS = /\b(?:always|never|from now on|going forward|in (?:the )?future|every ?time|whenever|by default|as a rule)\b/i;

export function picksAtHand(sentence: string): boolean {
  return PICKS_AT_HAND.test(sentence) && !LASTS.test(sentence);
}

export function isApprovedPlan(prompt: string): boolean {
  return APPROVED_PLAN.test(prompt);
}

/**
 * A file path: a name with an extension, or segments of two characters or more around a slash
 * ("test/fixtures", "./src"); "S/I" or "I/O" is not a path.
 */
export const NAMES_A_PATH = /(?:^|[^\w/])(?:\.{1,2}\/|~\/)?[\w.-]{2,}\/[\w.-]{2,}|\b[\w-]+\.(?:[jt]sx?|mjs|py|rs|go|rb|ex|exs|java|kt|c|h|cpp|css|html|md|json|ya?ml|toml|sql|sh)\b/i;
/**
 * Something a later session can look up: a code span, a path or file, an identifier (camelCase,
 * PascalCase with two humps, snake_case, a call, a flag, key=value), quoted text, a version or a
 * code of three digits or more ("the 502 error").
 */
const NAMES_A_THING = /`[^`]+`|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Za-z0-9]+_\w+|\b\w+\(\)|(?:^|\s)--?[a-z][\w-]+|"[^"]{2,}"|\b\d{3,}\b|\b\d+\.\d+\b|\w=\w/;

/**
 * A statement that names nothing (an explanation in general words: "the root cause was prompt
 * design", "this branch was used as a scratchpad"): true of one failure, not how the project works.
 */
export function namesNothing(sentence: string): boolean {
  return !NAMES_A_THING.test(sentence) && !NAMES_A_PATH.test(sentence);
}
