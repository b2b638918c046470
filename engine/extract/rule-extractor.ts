/**
 * The default extractor: local and deterministic. Sentences that survive the noise filters are
 * scored by cue phrases per category; with an embedder, similarity to per-category prototypes
 * nudges the scores (±0.1) and breaks near-ties between categories. No cue, no memory.
 *
 * Roles: user sentences count as stated; assistant sentences only when they state a conclusion
 * ("Decision: …", "I've switched … because …", "From now on …", bullets under a Summary
 * heading); tool turns only through the conservative rules of tool-facts.ts.
 */
import type { Embedder } from '../embed/types.js';
import { normalizeContent } from '../text/content.js';
import { words } from '../text/tokenize.js';
import type { Category } from '../types.js';
import { cleanContent } from './clean.js';
import { bestOf, CONCLUSION, scoreSentence, STATES_DECISION } from './cues.js';
import { isAcknowledgement, isNarration, isQuestion } from './noise.js';
import { PrototypeScorer } from './prototypes.js';
import { sentences } from './segment.js';
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
/** Longer sentences are pasted text or rambling, not a memory. */
const MAX_SENTENCE_CHARS = 400;
const MAX_CONTENT_CHARS = 300;
/** The assistant reports; the user decides. */
const ASSISTANT_DISCOUNT = 0.05;
/** Similarity 0.5 is neutral; 0 or 1 moves a score by ∓/± EMBED_WEIGHT / 2. */
const EMBED_WEIGHT = 0.2;
/** Categories within this of the best rule score compete on prototype similarity. */
const NEAR_TIE = 0.1;
/** A following sentence that gives the reason belongs to the memory it explains. */
const REASON_START = /^(?:because|since|that's because|this is because|the reason is|reason:)/i;

interface Draft {
  content: string;
  role: ExtractTurn['role'];
  scores: Map<Category, number>;
  best: Category;
  personalCue: boolean;
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

  async extract(turns: readonly ExtractTurn[]): Promise<Candidate[]> {
    const drafts: Draft[] = [];
    for (const turn of turns) {
      if (turn.role === 'tool') {
        for (const f of toolFacts(turn)) {
          drafts.push({ content: f.content, role: 'tool', scores: new Map([[f.category, f.confidence]]), best: f.category, personalCue: false });
        }
      } else {
        drafts.push(...proseDrafts(turn));
      }
    }
    await this.blend(drafts);

    const out: Candidate[] = [];
    const at = new Map<string, number>();
    for (const d of drafts) {
      const confidence = Math.round((d.scores.get(d.best) ?? 0) * 1000) / 1000;
      if (confidence < this.minConfidence) continue;
      const candidate: Candidate = {
        content: d.content,
        category: d.best,
        space: d.personalCue && d.best === 'preference' ? 'personal' : 'project',
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

function proseDrafts(turn: ExtractTurn): Draft[] {
  const list = sentences(turn.text);
  const out: Draft[] = [];
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    let text = s.text;
    if (text.length > MAX_SENTENCE_CHARS || text.length < MIN_CHARS || words(text).length < MIN_WORDS) continue;
    if (isAcknowledgement(text)) continue;
    if (isQuestion(text) && !STATES_DECISION.test(text)) continue;
    if (turn.role === 'assistant' && (!(s.concluded || CONCLUSION.test(text)) || isNarration(text))) continue;
    const scored = scoreSentence(text);
    if (!scored) continue;
    const next = list[i + 1];
    if (next && REASON_START.test(next.text) && !scoreSentence(next.text)) {
      text = `${text} ${next.text}`;
      i++;
    }
    const content = cleanContent(text);
    if (content.length > MAX_CONTENT_CHARS || words(content).length < MIN_WORDS) continue;
    const discount = turn.role === 'assistant' ? ASSISTANT_DISCOUNT : 0;
    const scores = new Map([...scored.scores].map(([k, v]) => [k, Math.max(0, v - discount)] as const));
    out.push({ content, role: turn.role, scores, best: scored.best, personalCue: scored.personal });
  }
  return out;
}
