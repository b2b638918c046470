/**
 * The default extractor: local and deterministic. Sentences that survive the noise filters are
 * scored by cue phrases per category; with an embedder, similarity to per-category prototypes
 * nudges the scores (±0.1) and breaks near-ties between categories. No cue, no memory.
 *
 * Roles: user sentences count as stated; assistant sentences only when they state a conclusion
 * ("Decision: …", "I've switched … because …", "From now on …", bullets under a Summary
 * heading), a finding (a root cause), or belong to Claude Code's compaction summary; tool turns
 * only through the conservative rules of tool-facts.ts. Answers are resolved against the
 * question they answer (answers.ts). A request for now or an approval is never a memory; a
 * preference goes to the personal space only when durable or habitual and not conditional.
 */
import type { Embedder } from '../embed/types.js';
import { normalizeContent } from '../text/content.js';
import { words } from '../text/tokenize.js';
import type { Category } from '../types.js';
import { cleanContent } from './clean.js';
import { isCjkSentence, readCjk } from './cjk.js';
import { europeanLanguage, readEuropean } from './european.js';
import type { LanguageReading } from './lang-cues.js';
import { bestOf, CONCLUSION, scoreSentence, STATES_DECISION } from './cues.js';
import { hedgePenalty, isAcknowledgement, isNarration, isQuestion, withoutIdioms } from './noise.js';
import { PrototypeScorer } from './prototypes.js';
import { MAX_SENTENCE_CHARS, plainQuotes, sentences, stripPastedOutput } from './segment.js';
import { answerDrafts, takesBackAnswer } from './answers.js';
import { FINDING_CONFIDENCE, findings, type Finding } from './findings.js';
import { lastingSummary } from './compact-summary.js';
import { itemHead } from './list-items.js';
import { reversedValues } from './reversals.js';
import { asksLeave, decidedVerdict, handsOver, isApprovedPlan, isForecast, NAMES_A_PATH, namesNothing, picksAtHand } from './shapes.js';
import { subjectOf } from './subject.js';
import { toolFacts } from './tool-facts.js';
import type { Candidate, ExtractTurn, Extractor } from './types.js';

export interface RuleExtractorOptions {
  /** Blends prototype similarity into scores when given and ready; null = rules only. @default null */
  embedder?: Embedder | null;
  /** Candidates scoring below this are dropped. @default 0.5 */
  minConfidence?: number;
}

/** Shorter fragments carry no self-contained statement. */
const MIN_WORDS = 3;
const MIN_CHARS = 12;
const MAX_CONTENT_CHARS = 300;
/** The assistant reports; the user decides. */
const ASSISTANT_DISCOUNT = 0.05;
/** Similarity 0.5 is neutral; 0 or 1 moves a score by ∓/± EMBED_WEIGHT / 2. */
const EMBED_WEIGHT = 0.2;
/** Categories within this of the best rule score compete on prototype similarity. */
const NEAR_TIE = 0.1;
/**
 * Words that make a statement last beyond the moment: a rule, not a request. A personal
 * preference needs one to be stored for every repository. "Any more" counts where it means
 * "anymore" (at a clause's end: "we don't use npm any more"), not as a comparative ("not any more
 * efficient") or a quantity ("any more tests").
 */
export const DURABLE =
  /\b(?:always|never|from now on|going forward|in (?:the )?future|every ?time|whenever|by default|as a rule|in general|generally|usually|only|instead|anymore|(?:any more|any longer)(?=\s*(?:[.,;:!?)]|$|(?:and|but|so|because|since|either|too|now)\b))|each time)\b/i;
/**
 * A request for now ("make it so", "go ahead and …", "create the plan!", "use the staging database
 * for this test", "don't commit yet", "don't push until I say so", "… must be reverted
 * immediately"): never a memory without a
 * durability cue.
 */
const ONE_OFF =
  /\b(?:make it so|go ahead|do it|do that|right now|right away|immediately|for now|this time|for the (?:moment|time being)|for today|asap|create the plan|proceed|ship it|lets do|let's do|try (?:it|again|that)|let(?:'s|s| us) now|now let(?:'s|s| us)|until (?:i|we) (?:say so|tell you|confirm|check|review)|for (?:this|that) (?:one|test|task|run|pr|ticket|issue|bug|fix|change|commit|branch|session|step|case|file|demo|release|round|experiment))\b|\bfor (?:this|that)[.!]*$|^(?:(?:ok(?:ay)?|so|and|but|please)[\s,]+)*(?:don'?t|do not|no need to)\b.*\byet[.!]*$|(?:^|\s)now[.!]*$|!\s*$|\blet(?:'s|s| us) (?:go with|use|keep|drop|pick|stick with|take|remove|delete|merge) (?:anything|everything|whatever|it|that|this|these|those|them|all of (?:it|them|these|those))\b/i;
/**
 * A request that the task at hand leave everything as it is ("Do NOT modify any state", "don't make
 * any changes to the system; this is a documentation task", "… without touching any files"): it
 * says the task is read-only and names nothing a rule could protect. A lasting prohibition names
 * what it protects ("don't modify the generated clients").
 */
const READ_ONLY_TASK =
  /\b(?:do not|don'?t|without)\s+(?:make|making|modify|modifying|change|changing|edit|editing|touch|touching|alter|altering)\s+(?:anything|any(?: (?:state|changes?|files?|code))?)(?:\s+(?:to|in|on) (?:the |this )?(?:system|machine|code(?:base)?|repo(?:sitory)?|project|anything))?\s*(?:[.;:,!)]|$)/i;
/** An approval of what the assistant proposed ("I like your rec", "sounds good"). */
const APPROVAL = /^(?:i (?:like|love) (?:your|the|that|this|it)\b|(?:that |this |it )?(?:sounds|looks) (?:good|great|fine|right)\b|lgtm\b|approved\b)/i;
/**
 * Liking what is in front of the user ("I tried it and I love it so much", "I really like this", "I
 * like how you thought through the model"):
 * a reaction to the moment anywhere in the sentence, not a taste ("I like it when tests are fast" is one).
 */
const APPRECIATION = /\bi (?:really |just |absolutely |so |totally )?(?:like|love|enjoy|adore) (?:(?:it|this|that)(?! when\b| if\b| that\b| whenever\b)|these|those|them|your|(?:how|the way) (?:you|it|this|that|they)\b)\b/i;
/** A taste stated as a habit ("I prefer tabs", "my style is …"): it holds beyond this repository. */
const HABITUAL = /\bi (?:really |strongly |generally |usually )?(?:prefer|like|love|hate|dislike|can't stand|cannot stand)\b|\bmy (?:personal )?(?:preference|preferred|favou?rite|style)\b|\bi (?:always|never|only) want\b/i;
/**
 * A preference hedged by circumstance ("I would prefer … where possible", "… even if max recordings
 * is zero"): this project's call, not a taste.
 */
const CONDITIONAL = /\bi(?:'d| would)\b|\bwhere possible\b|\bif\b|\bunless\b|\bin this (?:repo|project|codebase)\b/i;
/** Conversational openers before a request ("ok, so I want you to …"). */
const OPENERS = String.raw`(?:(?:ok(?:ay)?|so|now|and|also|but|then|alright|hey|well|right)[\s,]+)*`;
/** A request addressed to the assistant ("I want you to …", "can you …"). */
const REQUEST = new RegExp(String.raw`^${OPENERS}(?:i (?:really )?(?:want|need|would like|'d like) you to|i want to|can you|could you|would you|please)\b`, 'i');
/**
 * The frame of a request addressed to the assistant ("I want you to …", "I'd like you to …"): what
 * follows is what the user asks for. It is for now unless it says it lasts ("I want you to always
 * run the linter first"): then it is the rule it states, as if the user had said "please always …".
 */
const ADDRESSED = new RegExp(String.raw`^${OPENERS}i (?:really )?(?:want|need|would like|'d like) you to\s+`, 'i');
const RULE_NOUN = String.raw`(?:instructions?|rules?|guidelines?|guidance|polic(?:y|ies)|conventions?|directives?)`;
/**
 * A request to write a rule down ("I want to create instructions that state that it is not allowed
 * to …", "add a rule that …", "I want the guidelines to say that …"): the rule it dictates is the
 * memory, whatever the request around it.
 */
const DICTATED_RULE = new RegExp(
  String.raw`^${OPENERS}(?:(?:(?:i|we) (?:really )?(?:want|need|would like|'d like)(?: you)? to |let'?s |please |(?:can|could|would) you )?(?:create|write|add|make|put|set up|include|draft)\s+(?:(?:an?|the|some|new|clear|explicit|short|strict)\s+)*${RULE_NOUN}\b[^;:]{0,40}?\b(?:that|which|saying|stating|to say|to state)\s+(?:(?:says?|states?|specif(?:y|ies)|requires?|makes? (?:it )?clear)\s+)?|(?:i|we) (?:really )?(?:want|need|would like|'d like) (?:the |our |an? )?${RULE_NOUN}\b[^;:]{0,40}?\bto (?:say|state|specify|require|make (?:it )?clear)\s+)(?:that\s+)?(?=\S)`,
  'i',
);
/**
 * What the user wants (or needs) a thing of the project to be ("I want the instructions to live in
 * AGENTS.md, not a skill, because …", "we need the kernels to be fused or …"): want or need, the
 * thing (a noun phrase of a few words, not "you", "me" or "it") and what it should do. Only a stated
 * reason, a rejected alternative or a durability cue makes it a lasting decision (or requirement);
 * otherwise it is what the user wants done now.
 */
const WANTED_STATE = /(?:^|["')\]]\s+)(?:(?:ok(?:ay)?|so|and|also|but|then|well)[\s,]+)*(?:i|we) (?:really )?(want|need|would like|'d like) (?!(?:you|u|me|us|it|this|that|them|him|her|to|a|an|some|more|something|anything)\b)((?:[\w./@`'-]+ ){0,5}?[\w./@`'-]+) to (\w.*)$/i;
/** A rejected alternative beside a choice ("…, not a skill", "instead of …", "rather than …"). */
const CONTRAST = /(?:,|\s[-–—])\s*not\b|\binstead of\b|\brather than\b/i;
/** A reason given for a statement. */
const REASON = /\b(?:because|since|so that|otherwise|or else|due to)\b/i;
/** What a state the user wants a thing in scores as a decision or requirement (a reason adds the usual bonus). */
const WANTED_STATE_SCORE = 0.75;

/**
 * The lasting content of a user's request, when it has one: the rule a request to write one down
 * dictates, the state a user wants a thing of the project in (with a reason, an alternative rejected
 * or a durability cue), or a durable request to the assistant. Null: the sentence is not one of these
 * (the request filters then decide).
 */
function requestContent(sentence: string): { text: string; read: string; as: 'rule' | 'decision' | 'requirement' | 'asked' } | null {
  const dictated = DICTATED_RULE.exec(sentence);
  if (dictated) {
    const body = sentence.slice(dictated[0].length);
    return { text: body, read: body, as: 'rule' };
  }
  const wanted = WANTED_STATE.exec(sentence);
  if (wanted && (REASON.test(wanted[3]!) || CONTRAST.test(wanted[3]!) || DURABLE.test(wanted[3]!))) {
    const text = `${wanted[2]!} ${wanted[1]!.toLowerCase() === 'need' ? 'must' : 'should'} ${wanted[3]!}`;
    return { text, read: text, as: wanted[1]!.toLowerCase() === 'need' ? 'requirement' : 'decision' };
  }
  const addressed = ADDRESSED.exec(sentence);
  if (addressed) {
    const body = sentence.slice(addressed[0].length);
    if (DURABLE.test(body)) return { text: body, read: `please ${body}`, as: 'asked' };
  }
  return null;
}
/**
 * A task handed to the assistant in the imperative ("Ultrathink and come up with a chain of …",
 * "Build a simple timer app …", "ok now find the timeline component"): what to do now, not how the
 * project works. Fillers and thinking keywords may lead ("ok", "now", "ultrathink and"). A
 * prohibition ("don't add …") is not one; verbs that state a practice ("use", "keep", "put",
 * "name", "write", "prefix", "format") are left to the cues, and so is a verb read as a noun that
 * a statement is about ("Commit messages follow …", "Build output goes to dist").
 */
const TASK_REQUEST =
  /^(?:(?:ok(?:ay)?|so|now|then|and|also|just|first|next|alright|hey|pls|plz|ultrathink|megathink|think(?: (?:hard(?:er)?|deeply|carefully|step by step))?)(?:[\s,.:;!–—-]+|$))*(?:come up with|create|build|make|add|implement|fix|find|look (?:at|into|for)|search|explore|investigate|analy[sz]e|review|explain|describe|summari[sz]e|show|tell|give|list|generate|check|update|change|refactor|rename|remove|delete|move|read|continue|redo|rewrite|draft|design|plan|set up|install|deploy|commit|push|merge|edit|modify|convert|compare|debug|help|figure out|research|brainstorm|propose|suggest|prepare|clean up|translate)\b(?!(?: [\w./-]+){0,2} (?:is|are|was|were|has|have|must|should|can|will|go|goes|live|lives|follow|follows|need|needs|run|runs|use|uses|stay|stays|belong|belongs|start|starts|end|ends|take|takes|get|gets)\b)/i;
/** A prohibition beside a task ("fix the flaky test, we must not skip it") is a rule of its own. */
const PROHIBITION = /\b(?:must(?:n't| not)|shall not|do not|don'?t|may not|cannot|can'?t)\b/i;
/** Assistant findings that hold beyond the turn (a root cause, the cause of a failure). */
const FINDING = /\broot cause\b|\b(?:was|is) caused by\b/i;
/**
 * An assistant's change-log line ("Replaced inline styles with CSS classes", "Designed a parallel
 * code path to avoid breaking X", "Pinned prettier in package.json"): what was done in the turn,
 * which its episode records, with or without the reason it was done that way. It becomes a memory
 * only when stated as the project's rule (a durability cue: "… from now on", "… instead of …") or
 * when it says where something now lives ("Moved the fixtures to test/fixtures").
 */
const CHANGE_LOG =
  /^(?:(?!(?:decision|decided|conclusion|outcome|summary|root cause)\b)[\w ]{1,30}:\s+)?(?:i |we )?(?:successfully )?(?:started|restarted|launched|ran|replaced|added|updated|removed|deleted|renamed|moved|changed|created|rewrote|refactored|extracted|converted|wrapped|split|merged|bumped|tweaked|adjusted|cleaned up|wired|hooked up|designed|implemented|introduced|pinned|installed|configured|set up|enabled|disabled|upgraded|downgraded|relocated)\b/i;
/**
 * The speaker reporting what they have just done ("I've git init'd", "I pushed the fix", "we just
 * merged it"), not a decision they made ("we decided …", "I switched us to pnpm").
 */
const OWN_DOING =
  /^(?:i|we)(?:'ve| have| had)?\s+(?:just |already |now |also |finally )?(?:[a-z]+\s+)?(?!(?:decided|agreed|settled|chose|switched|standardi[sz]ed|moved|migrated|pinned)\b)(?:[a-z]+(?:ed|'d)|made|done|built|ran|run|set up|got|wrote|written|sent|put|pushed|began|begun|did)\b/i;
/** A change-log line that moves something somewhere: where it now lives is worth keeping. */
const RELOCATION = /^(?:i |we )?(?:moved|renamed|relocated|extracted|split)\b[^.]*\b(?:to|into|under|in)\s/i;
/**
 * The user thinking aloud at the assistant ("As a user I do not actually see why and when you
 * decided …", "I wonder if …", "why did you …"): a reaction to what the assistant did, not the
 * project's decision, even when it holds a decision word.
 */
const MUSING =
  /\bi (?:do not|don'?t|did not|didn'?t|can'?t|cannot) (?:really |actually |quite |fully |even )?(?:see|understand|get|follow|know|remember|tell)\b|\bi(?:'m| am) (?:not sure|wondering|curious|confused)\b|\bi wonder\b|\b(?:why|when|how) (?:did |do |would |have )?you (?:decided?|chose|choose|picked?|changed?|went|go|made|make)\b|\byou(?:'ve| have)? (?:decided|chose|picked)\b/i;
/**
 * Replies to numbered points typed inline, two or more ("1, yes 2, drop it", "1) your call, 2) the
 * separate agent"): no statement of their own without the points they answer.
 */
const NUMBERED_REPLIES = /^\W*\d{1,2}\s*[,)]\s+\S.*?[\s,;]\d{1,2}\s*[,)]\s+\S/;
/** A personal preference goes to every repository only at or above this confidence (and durable). */
const PERSONAL_MIN_CONFIDENCE = 0.7;

/** A following sentence that gives the reason belongs to the memory it explains. */
const REASON_START = /^(?:because|since|that's because|this is because|the reason is|reason:)/i;
/**
 * A prohibition that names only what it forbids ("Do NOT use "export default".", "Never use `any`."):
 * the rule the next sentence states says where it holds ("PostCSS config must use module.exports."),
 * and the two are one memory. Alone, it forbids something nowhere in particular.
 */
const BARE_PROHIBITION = /^(?:(?:please|and|also|but|so)[\s,]+)?(?:do not|don'?t|never|avoid)\s+(?:use|using|add|adding|call|calling|import|importing|write|writing|rely on|include|including)\s+(?:"[^"]+"|`[^`]+`|'[^']+'|[\w.@/-]+)(?:\s+(?:syntax|statements?|calls?|imports?|exports?|anywhere|here|there))?\s*[.!]?$/i;
/**
 * What the step before it does, told with a pronoun for the step ("Run: pnpm install" then "This
 * regenerates the lockfile compatible with pnpm 9."): the step's effect, for the task at hand.
 */
const STEP_EFFECT = /^(?:this|that|it|doing so|doing this|running (?:this|that|it))\s+(?:will\s+|should\s+)?(?:re)?(?:generates?|creates?|installs?|builds?|compiles?|writes?|downloads?|fetches|updates?|removes?|deletes?|resets?|produces?|populates?|seeds?|syncs?|refreshes|clears?|cleans?)\b/i;
/**
 * An attempt the sentence itself says failed ("Switched context to `default`, both failed.", "Tried
 * pinning 9.1, but it didn't work."): what was tried, not what the project does.
 */
const ATTEMPT_FAILED = /(?:,|\bbut|\band|;)\s+(?:(?:both|all(?: of them)?|it|that|this|which|they|each|neither)\s+)?(?:also\s+|still\s+)?(?:failed|did(?:n't| not) (?:work|help)|had no effect|made no difference|to no avail)\s*[.!]?$/i;

interface Draft {
  content: string;
  /** What the session said after this statement (the rest of its turn, the turns after it). */
  later?: string;
  role: ExtractTurn['role'];
  scores: Map<Category, number>;
  best: Category;
  personalCue: boolean;
  /** A preference that may go to every repository: durable or habitual, and not conditional. */
  personalOk: boolean;
  /** An answer the user's next prompt took back ("actually, let's go with …"). */
  takenBack?: boolean;
}

export class RuleExtractor implements Extractor {
  private readonly embedder: Embedder | null;
  private readonly scorer: PrototypeScorer | null;
  private readonly minConfidence: number;

  constructor(opts: RuleExtractorOptions = {}) {
    this.embedder = opts.embedder ?? null;
    this.scorer = this.embedder ? new PrototypeScorer(this.embedder) : null;
    this.minConfidence = opts.minConfidence ?? 0.5;
  }

  async extract(input: readonly ExtractTurn[]): Promise<Candidate[]> {
    const turns = input.map((t) => ({ ...t, text: plainQuotes(t.text) }));
    const drafts: Draft[] = [];
    let lastAssistant = '';
    // The drafts of the user's last answer, until the next prompt: a change of mind takes them back.
    let lastAnswer: Draft[] = [];
    for (const [ti, turn] of turns.entries()) {
      // A parent agent's task for a subagent is not the user's words, and a subagent's report is
      // findings for the task at hand: both stay in the episode, searchable, never a memory.
      if (turn.kind === 'task' || turn.kind === 'report') continue;
      const from = drafts.length;
      if (turn.role === 'tool') {
        for (const f of toolFacts(turn)) {
          drafts.push({ content: f.content, role: 'tool', scores: new Map([[f.category, f.confidence]]), best: f.category, personalCue: false, personalOk: false });
        }
        continue;
      }
      if (turn.role === 'user') {
        if (turn.kind !== 'answer' && takesBackAnswer(turn.text)) for (const d of lastAnswer) d.takenBack = true;
        // Answers to the assistant's questions (AskUserQuestion, numbered options) say what was chosen.
        const answers: Draft[] = answerDrafts(turn, lastAssistant).map((a) => ({ content: a.content, role: 'user', scores: new Map([['decision', a.confidence]]), best: 'decision', personalCue: false, personalOk: false }));
        drafts.push(...answers);
        lastAnswer = answers;
      } else if (turn.kind !== 'summary') {
        lastAssistant = turn.text;
      }
      drafts.push(...proseDrafts(turn));
      // What follows each statement: the rest of its turn, then every later turn of the batch.
      const rest = turns
        .slice(ti + 1)
        .map((t) => t.text)
        .join('\n');
      for (const d of drafts.slice(from)) {
        const at = turn.text.indexOf(d.content.slice(0, 40));
        d.later = `${at >= 0 ? turn.text.slice(at + Math.min(40, d.content.length)) : ''}\n${rest}`;
      }
    }
    await this.blend(drafts);
    const found = findingsOf(turns);

    const out: Candidate[] = [];
    const at = new Map<string, number>();
    for (const d of drafts) {
      const confidence = Math.round((d.scores.get(d.best) ?? 0) * 1000) / 1000;
      if (confidence < this.minConfidence) continue;
      // Reversed later in the session ("requires go 1.24.0" … "changed go 1.24.0 → 1.21"), or an
      // answer the user took back at once: no longer true.
      if (d.takenBack || (d.later && reversedValues(d.content, d.later).length > 0)) continue;
      const candidate: Candidate = {
        content: d.content,
        category: d.best,
        // Personal (injected in every repository) only when it says it lasts and is confident.
        space: d.personalCue && d.best === 'preference' && d.personalOk && confidence >= PERSONAL_MIN_CONFIDENCE ? 'personal' : 'project',
        confidence,
        subject: subjectOf(d.content),
        role: d.role,
      };
      // The same statement twice in one batch is one candidate, at its best confidence.
      const key = normalizeContent(d.content);
      const prev = at.get(key);
      if (prev === undefined) {
        at.set(key, out.length);
        out.push(candidate);
      } else if (out[prev]!.confidence < confidence) {
        out[prev] = candidate;
      }
    }
    // Findings: what an answer established about the questions it was asked (findings.ts).
    for (const f of found) {
      const key = normalizeContent(f.content);
      if (at.has(key)) continue;
      at.set(key, out.length);
      out.push({ content: f.content, category: 'fact', space: 'project', confidence: FINDING_CONFIDENCE, subject: f.subject, role: 'assistant' });
    }
    return out;
  }

  /** Only a ready embedder is used, so extraction never waits for a model download. */
  private async blend(drafts: Draft[]): Promise<void> {
    if (!this.scorer || !this.embedder || drafts.length === 0 || this.embedder.state().status !== 'ready') return;
    let sims: Map<Category, number>[];
    try {
      sims = await this.scorer.score(drafts.map((d) => d.content));
    } catch {
      return; // The rules alone still give a full answer.
    }
    drafts.forEach((d, i) => {
      const sim = sims[i]!;
      const top = Math.max(...d.scores.values());
      const blended = new Map<Category, number>();
      for (const [cat, s] of d.scores) {
        if (s < top - NEAR_TIE) continue;
        blended.set(cat, Math.max(0, Math.min(1, s + EMBED_WEIGHT * ((sim.get(cat) ?? 0.5) - 0.5))));
      }
      d.best = bestOf(blended);
      d.scores = blended;
    });
  }
}

/**
 * The findings of a batch: each prompt the user typed paired with the assistant's last message
 * before the next request. A subagent's work (task, report, own transcript) is the parent's raw
 * material: it stays in the episode (findings taken from it named a labelled fact 2 times in 16).
 */
function findingsOf(turns: readonly ExtractTurn[]): Finding[] {
  const out: Finding[] = [];
  let request: string | null = null;
  let answer = '';
  const close = (): void => {
    if (request && answer) out.push(...findings(request, answer));
  };
  for (const t of turns) {
    if (t.role === 'user' && t.kind !== 'answer' && t.kind !== 'summary') {
      close();
      request = t.kind === 'task' ? null : t.text;
      answer = '';
    } else if (t.role === 'assistant' && t.kind !== 'summary' && t.text.trim()) {
      answer = t.text;
    }
  }
  close();
  return out;
}

/**
 * An AskUserQuestion answer that is one of the options offered: its label (which may end in a short
 * note of its own, "Postgres (Recommended)"), then its description in parentheses.
 */
const PICKED_OPTION = /^[^()\n]{1,80}(?: \([^()\n]{1,30}\))? \((?:[^()]|\([^()]*\))+\)$/;

/**
 * The text of a turn the cues read: the compaction summary's lasting sections, the user's words
 * without pasted output, and of an AskUserQuestion turn only the answers (the questions are the
 * assistant's words; answers.ts reads each pair).
 */
function proseOf(turn: ExtractTurn): string {
  if (turn.kind === 'summary') return lastingSummary(turn.text);
  // An option picked ("→ localhost:3000 (Standard localhost detection …)": the label, then the
  // option's description) is read with its question only (answers.ts): label and description are the
  // assistant's words, and without the question they state nothing. What the user typed is read.
  if (turn.kind === 'answer')
    return turn.text
      .split('\n')
      .map((line) => /→\s*(.+)$/.exec(line)?.[1] ?? line)
      .filter((answer) => !PICKED_OPTION.test(answer))
      .join('\n\n');
  return turn.role === 'user' ? stripPastedOutput(turn.text) : turn.text;
}

function proseDrafts(input: ExtractTurn): Draft[] {
  const turn: ExtractTurn = input.role === 'user' && isApprovedPlan(input.text) ? { ...input, role: 'assistant' } : input;
  const list = sentences(proseOf(turn));
  const out: Draft[] = [];
  // The assistant asking leave to go on ("Should I proceed with …?"): what it calls its decision is a proposal.
  const proposes = turn.role === 'assistant' && asksLeave(turn.text);
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    let text = s.text;
    // Chinese, Japanese and Korean (cjk.ts); Spanish, Portuguese, French, German and Russian (european.ts).
    const lang = isCjkSentence(text) ? 'cjk' : europeanLanguage(text);
    if (lang && turn.role !== 'tool') {
      const concluded = s.concluded || turn.kind === 'summary';
      const read = lang === 'cjk' ? readCjk(text, turn.role, concluded) : text.length >= MIN_CHARS && words(text).length >= MIN_WORDS ? readEuropean(text, lang, turn.role, concluded) : null;
      const draft = languageDraft(text, turn.role, read);
      if (draft) out.push(draft);
      continue;
    }
    if (text.length > MAX_SENTENCE_CHARS || text.length < MIN_CHARS || words(text).length < MIN_WORDS || handsOver(text)) continue;
    if (isAcknowledgement(text) || APPROVAL.test(text)) continue;
    // A list item without a subject of its own takes its list's lead-in as one, or is no memory.
    const head = s.lead === undefined ? '' : itemHead(text, s.lead);
    if (head === null) continue;
    // What the cues read: the sentence without idioms that hold a cue word ("Never mind, I pushed").
    let read = withoutIdioms(text);
    // A user's request whose content lasts (a rule to write down, a decision with its reason, a
    // durable request): that content is the memory, read and stored without the request around it.
    const framed = turn.role === 'user' ? requestContent(read) : null;
    if (framed) {
      text = framed.text;
      read = framed.read;
    }
    if (APPRECIATION.test(read) && !DURABLE.test(read)) continue;
    if (isQuestion(text) && !STATES_DECISION.test(text)) continue;
    // The compaction summary is Claude Code's recap of the conversation: every line is a conclusion.
    if (turn.role === 'assistant' && (!(s.concluded || turn.kind === 'summary' || CONCLUSION.test(text) || FINDING.test(text)) || isNarration(text))) continue;
    const durable = DURABLE.test(read) || (framed !== null && framed.as !== 'asked');
    if (turn.role === 'assistant' && CHANGE_LOG.test(text) && !durable && !(RELOCATION.test(text) && NAMES_A_PATH.test(text))) continue;
    // A verdict ("Decision: ACCEPT - …"), a proposal, a forecast ("X will … going forward"): no rule.
    const verdict = decidedVerdict(text);
    if (verdict === true || (verdict === false && proposes) || (turn.role === 'assistant' && isForecast(read))) continue;
    if (turn.role === 'user' && MUSING.test(read) && !durable) continue;
    if (picksAtHand(read)) continue;
    // Replies to the assistant's numbered points, one after another ("1, your recommendation works, 2,
    // let's go with the separate agent"): each means something only with its point (answers.ts).
    if (turn.role === 'user' && NUMBERED_REPLIES.test(text)) continue;
    // A request for now is not a memory, however it is phrased ("I want you to … make it so!",
    // "Ultrathink and come up with …"), unless it says it lasts ("always …", "from now on …").
    if (!durable && (ONE_OFF.test(read) || READ_ONLY_TASK.test(read) || REQUEST.test(read) || (turn.role === 'user' && TASK_REQUEST.test(read) && !PROHIBITION.test(read)))) continue;
    // A root cause that names nothing to look up explains one failure, not how the project works.
    if (turn.role === 'assistant' && FINDING.test(read) && namesNothing(text)) continue;
    if (ATTEMPT_FAILED.test(read) || (STEP_EFFECT.test(read) && !durable)) continue;
    const scored = framed?.as === 'decision' || framed?.as === 'requirement' ? wantedState(read, framed.as === 'decision' ? 'decision' : 'constraint') : scoreSentence(read);
    if (!scored) continue;
    // "FYI, I've git init'd", "heads up, I just merged the PR": the user telling what they did, no note to keep.
    if (turn.role === 'user' && scored.best === 'note' && !durable && OWN_DOING.test(cleanContent(text))) continue;
    const next = list[i + 1];
    if (next && ((REASON_START.test(next.text) && !scoreSentence(next.text)) || (BARE_PROHIBITION.test(text) && scoreSentence(next.text) && next.lead === undefined))) {
      text = `${text} ${next.text}`;
      i++;
    }
    const content = cleanContent(`${head}${text}`);
    if (content.length > MAX_CONTENT_CHARS || words(content).length < MIN_WORDS) continue;
    const discount = turn.role === 'assistant' ? ASSISTANT_DISCOUNT : 0;
    const scores = new Map([...scored.scores].map(([k, v]) => [k, Math.max(0, v - discount)] as const));
    const personalOk = (durable || HABITUAL.test(read)) && !CONDITIONAL.test(read);
    out.push({ content, role: turn.role, scores, best: scored.best, personalCue: scored.personal, personalOk });
  }
  return out;
}

/** A sentence in another language than English as a draft, from how its language's cues read it. */
function languageDraft(text: string, role: 'user' | 'assistant', read: LanguageReading | null): Draft | null {
  if (!read || text.length > MAX_SENTENCE_CHARS || isAcknowledgement(text)) return null;
  const content = cleanContent(text);
  if (content.length > MAX_CONTENT_CHARS) return null;
  const discount = role === 'assistant' ? ASSISTANT_DISCOUNT : 0;
  const scores = new Map([...read.scores].map(([k, v]) => [k, Math.max(0, v - discount)] as const));
  return { content, role, scores, best: read.best, personalCue: read.personal, personalOk: read.durable && !read.conditional };
}

/**
 * A state the user wants a thing in, with its reason or the alternative it rejects: a decision
 * ("I want …") or a requirement ("we need …") at WANTED_STATE_SCORE, unless a stronger cue says otherwise.
 */
function wantedState(text: string, category: 'decision' | 'constraint'): ReturnType<typeof scoreSentence> {
  const scores = new Map(scoreSentence(text)?.scores ?? []);
  const score = Math.max(0, Math.min(0.95, WANTED_STATE_SCORE + (REASON.test(text) ? 0.05 : 0) - hedgePenalty(text)));
  scores.set(category, Math.max(scores.get(category) ?? 0, score));
  return { scores, best: bestOf(scores), personal: false };
}
