/**
 * List items that lean on their list for a subject. An item that opens with a modal or a verb in
 * the third person ("Must be controlled by configuration, default to 'off'", "Should stay under
 * 200 lines", "Defaults to 5m") states something about a thing named elsewhere: in the line that
 * introduced its list ("The config loader:", "## Checkpoint summaries"), the parent item ("- Cache:")
 * or an item before it. Stored alone it says nothing a later reader can place, and it answers any
 * prompt that shares its words. With a lead-in that names a thing, the lead-in becomes its subject
 * ("The config loader: Must not read the environment."); under a lead-in that names no thing
 * ("brainstorm:", "I want:", "Next steps:") or none at all, the item is no memory.
 *
 * Imperatives ("Never push to main", "Use pnpm") are addressed to the reader and keep their own
 * subject; so does every item that names one ("The cache must …").
 */
import { informativeTerms } from '../search/relevance.js';
import { isQuestion } from './noise.js';

/** An item that starts with a modal, or a verb in the third person, has no subject of its own. */
const SUBJECTLESS =
  /^(?:must|mustn't|should|shouldn't|shall|ought to|needs? to|has to|have to|may|might|can|cannot|can't|could|will|won't|would|is|isn't|are|aren't|was|were|defaults? to|requires|needs|uses|runs|lives|stays|belongs|depends|supports|returns|stores|keeps|handles|contains|accepts|expects|falls back)\b/i;
/** A lead-in made of at most this many words can be a subject ("The config loader", "Checkpoint summaries"). */
const MAX_LEAD_WORDS = 6;
/**
 * A lead-in that states, asks or addresses rather than names (a verb, a person), or that names no
 * thing but the kind of list that follows (a brainstorm, ideas, steps, options, questions …).
 */
const NOT_A_SUBJECT =
  /\b(?:i|we|you|me|us|let'?s|please|is|are|was|were|be|should|must|will|can|could|would|need|needs|want|wants|have|has|do|does|here|following|below|brainstorm\w*|ideas?|todos?|to-?do|tasks?|steps?|plan|options?|questions?|examples?|notes?|e\.g|for example|such as|like|summary|outcome|changes?|done)\b/i;

/** Whether a list item opens without a subject of its own. */
export function isSubjectless(item: string): boolean {
  return SUBJECTLESS.test(item.trim());
}

/** A lead-in that names the thing its items are about. */
function namesASubject(lead: string): boolean {
  const words = lead.split(/\s+/).filter(Boolean);
  return words.length > 0 && words.length <= MAX_LEAD_WORDS && !isQuestion(lead) && !NOT_A_SUBJECT.test(lead) && informativeTerms(lead).length > 0;
}

/**
 * What heads a list item, given the lead-in of its list (segment.ts `Sentence.lead`): nothing ('')
 * when the item has a subject of its own, its lead-in ("The config loader: ") when that names the
 * subject, or null when it has neither and the item is no memory.
 */
export function itemHead(item: string, lead: string | null): string | null {
  if (!isSubjectless(item)) return '';
  return lead !== null && namesASubject(lead) ? `${lead}: ` : null;
}
