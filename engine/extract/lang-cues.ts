/**
 * What the cue readers of other languages than English share (cjk.ts, european.ts): how a sentence
 * reads, the cue table's shape, and scoring a sentence by its strongest cue per category, with a
 * bonus for lasting words and a penalty for a hedge, as cues.ts does for English.
 */
import type { Category } from '../types.js';
import { bestOf } from './cues.js';

export interface LanguageReading {
  scores: Map<Category, number>;
  best: Category;
  /** A taste of the speaker's own ("我更喜欢…", "prefiero…"). */
  personal: boolean;
  /** Says it lasts ("以后", "siempre", "immer") or is a rule to write down. */
  durable: boolean;
  /** Hedged by a circumstance ("如果…", "si …", "wenn …"): this project's call, not a taste. */
  conditional: boolean;
}

export interface LanguageCue {
  category: Category;
  weight: number;
  re: RegExp;
  /** The cue speaks about the speaker's own taste. */
  personal?: boolean;
}

export const languageCue = (category: Category, weight: number, re: RegExp, personal = false): LanguageCue => ({ category, weight, re, personal });

/** A lasting word adds this to every cue's score; a hedge takes HEDGE_PENALTY off. */
const DURABLE_BONUS = 0.05;
const HEDGE_PENALTY = 0.15;

/** The strongest cue per category a sentence holds, and whether one of them is a taste. */
export function cueScores(cues: readonly LanguageCue[], text: string): { scores: Map<Category, number>; personal: boolean } {
  const scores = new Map<Category, number>();
  let personal = false;
  for (const c of cues) {
    if (!c.re.test(text)) continue;
    if ((scores.get(c.category) ?? 0) < c.weight) scores.set(c.category, c.weight);
    if (c.personal) personal = true;
  }
  return { scores, personal };
}

/** The reading of scored cues: bonus, penalty, the best category, the flags. */
export function reading(scores: Map<Category, number>, o: { personal: boolean; durable: boolean; hedged: boolean; conditional: boolean }): LanguageReading {
  const shift = (o.durable ? DURABLE_BONUS : 0) - (o.hedged ? HEDGE_PENALTY : 0);
  for (const [k, v] of scores) scores.set(k, Math.max(0, Math.min(0.95, v + shift)));
  const best = bestOf(scores);
  return { scores, best, personal: o.personal && best === 'preference', durable: o.durable, conditional: o.conditional };
}
