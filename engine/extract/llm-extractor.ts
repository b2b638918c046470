/**
 * Optional LLM extractor: an OpenAI-compatible chat-completions endpoint (via undici) turns a
 * session's turns into candidate memories. Off unless configured; every call is charged against
 * a hard daily token budget kept on disk, and anything that goes wrong — budget spent, timeout,
 * HTTP error, malformed answer — falls back to the local extractor for that flush.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Dispatcher } from 'undici';
import { loadUndici } from '../lazy-modules.js';
import { z } from 'zod';
import { silentLogger, type Logger } from '../log.js';
import { CATEGORIES, SPACES } from '../types.js';
import { subjectOf } from './subject.js';
import type { Candidate, ExtractTurn, Extractor } from './types.js';
import { assembleLlmInput } from './llm-input.js';

export interface LlmExtractorOptions {
  /** Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Hard cap on tokens (prompt + completion) per UTC day; 0 disables calls. */
  dailyTokens: number;
  /** Where the day's usage is kept (survives restarts), unless `ledger` is given. */
  ledgerFile: string;
  /** The day's usage kept elsewhere (the server on PostgreSQL: one budget for every replica). */
  ledger?: TokenLedger;
  /** Used when the LLM cannot or may not be asked. */
  fallback: Extractor;
  /** @default 20000 */
  timeoutMs?: number;
  /** Completion tokens requested per call. @default 800 */
  maxOutputTokens?: number;
  dispatcher?: Dispatcher;
  logger?: Logger;
  now?: () => Date;
}

interface Ledger {
  day: string;
  used: number;
  calls: number;
}

/** Where the daily token use is kept: a file (default) or a database shared by several processes. */
export interface TokenLedger {
  /** Take `tokens` from `day`'s budget if they fit in it; nothing is taken when they do not. */
  reserve(day: string, tokens: number, budget: number): Promise<boolean>;
  /** Correct a reservation by `delta` tokens (actual use minus the estimate); `call` counts a call. */
  settle(day: string, delta: number, call: boolean): Promise<void>;
  /** The day's use as last known (a file reads it now; a database as of its last reserve or settle). */
  usage(day: string): { used: number; calls: number };
}

/** The ledger in one JSON file (`llm-usage.json` in the state dir). */
export class FileTokenLedger implements TokenLedger {
  constructor(private readonly file: string) {}

  async reserve(day: string, tokens: number, budget: number): Promise<boolean> {
    const l = this.read(day);
    if (l.used + tokens > budget) return false;
    this.write({ ...l, used: l.used + tokens });
    return true;
  }

  async settle(day: string, delta: number, call: boolean): Promise<void> {
    const l = this.read(day);
    this.write({ ...l, used: Math.max(0, l.used + delta), calls: l.calls + (call ? 1 : 0) });
  }

  usage(day: string): { used: number; calls: number } {
    return this.read(day);
  }

  private read(day: string): Ledger {
    try {
      const l = JSON.parse(fs.readFileSync(this.file, 'utf8')) as Ledger;
      if (l.day === day) return l;
    } catch {
      // no ledger yet
    }
    return { day, used: 0, calls: 0 };
  }

  private write(l: Ledger): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(l), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}

const SYSTEM = [
  'You extract durable memories from a coding-agent session for a memory service.',
  'Keep only what will still matter in later sessions: decisions, constraints, conventions, preferences of the user, project context and concrete facts.',
  'Ignore greetings, questions, tool chatter, code, and anything inside <memory-context> blocks.',
  'Each memory is one self-contained sentence of at most 300 characters, written as a statement.',
  `category is one of: ${CATEGORIES.join(', ')}. space is "personal" for the user's own preferences that hold in every project, else "project".`,
  'Answer with JSON only: {"memories":[{"content":"…","category":"…","space":"…"}]}. Return {"memories":[]} when nothing qualifies.',
].join('\n');

const answerSchema = z.object({
  memories: z
    .array(z.object({ content: z.string().min(3).max(400), category: z.enum(CATEGORIES), space: z.enum(SPACES) }))
    .max(50),
});

/** Characters per token for the pre-call estimate: deliberately low, so a call never overruns the budget. */
const CHARS_PER_TOKEN = 3;
/** The most of a session sent in one call. */
const MAX_PROMPT_CHARS = 24_000;

export class LlmExtractor implements Extractor {
  private readonly log: Logger;
  private readonly ledger: TokenLedger;

  constructor(private readonly opts: LlmExtractorOptions) {
    this.log = (opts.logger ?? silentLogger).child('llm-extractor');
    this.ledger = opts.ledger ?? new FileTokenLedger(opts.ledgerFile);
  }

  /** Tokens used and left today. */
  usage(): { day: string; used: number; remaining: number; calls: number } {
    const day = this.today();
    const l = this.ledger.usage(day);
    return { day, used: l.used, remaining: Math.max(0, this.opts.dailyTokens - l.used), calls: l.calls };
  }

  async extract(turns: readonly ExtractTurn[]): Promise<Candidate[]> {
    const prompt = this.prompt(turns);
    if (!prompt) return [];
    const maxOut = this.opts.maxOutputTokens ?? 800;
    const estimate = Math.ceil((SYSTEM.length + prompt.length) / CHARS_PER_TOKEN) + maxOut;
    // The estimate is taken from the budget before the call (so concurrent calls cannot overrun
    // it together) and corrected by the tokens the endpoint reports afterwards.
    const day = this.today();
    if (!(await this.ledger.reserve(day, estimate, this.opts.dailyTokens))) {
      this.log.info('daily token budget would be exceeded; extracting locally', { used: this.ledger.usage(day).used, estimate, budget: this.opts.dailyTokens });
      return this.opts.fallback.extract(turns);
    }
    let charged: { tokens: number; call: boolean } = { tokens: 0, call: false };
    try {
      const { candidates, tokens } = await this.call(prompt, maxOut, (t) => (charged = { tokens: t ?? 0, call: true }));
      charged = { tokens: tokens ?? estimate, call: true };
      return candidates;
    } catch (err) {
      this.log.warn('LLM extraction failed; extracting locally', { err });
      return this.opts.fallback.extract(turns);
    } finally {
      await this.ledger.settle(day, charged.tokens - estimate, charged.call).catch((err: unknown) => this.log.warn('could not record LLM token use', { err }));
    }
  }

  private prompt(turns: readonly ExtractTurn[]): string {
    return assembleLlmInput(turns, MAX_PROMPT_CHARS);
  }

  /** One request; `charge` records what a malformed answer still cost. */
  private async call(prompt: string, maxOut: number, charge: (tokens: number | null) => void): Promise<{ candidates: Candidate[]; tokens: number | null }> {
    const url = `${this.opts.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const timeout = this.opts.timeoutMs ?? 20_000;
    const res = await loadUndici().request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}) },
      body: JSON.stringify({
        model: this.opts.model,
        temperature: 0,
        max_tokens: maxOut,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: prompt },
        ],
      }),
      headersTimeout: timeout,
      bodyTimeout: timeout,
      ...(this.opts.dispatcher ? { dispatcher: this.opts.dispatcher } : {}),
    });
    const body = (await res.body.json()) as { choices?: { message?: { content?: string } }[]; usage?: { total_tokens?: number } };
    if (res.statusCode >= 400) throw new Error(`LLM endpoint answered ${res.statusCode}`);
    const tokens = typeof body.usage?.total_tokens === 'number' ? body.usage.total_tokens : null;
    const text = body.choices?.[0]?.message?.content ?? '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^```(?:json)?\s*|\s*```$/g, ''));
    } catch {
      charge(tokens);
      throw new Error('LLM answer is not JSON');
    }
    const answer = answerSchema.safeParse(parsed);
    if (!answer.success) {
      charge(tokens);
      throw new Error(`LLM answer does not match the schema: ${answer.error.issues[0]?.message ?? ''}`);
    }
    const candidates = answer.data.memories.map((m) => ({
      content: m.content.trim().slice(0, 300),
      category: m.category,
      space: m.space,
      confidence: 0.8,
      subject: subjectOf(m.content),
      role: 'user' as const,
    }));
    return { candidates, tokens };
  }

  private today(): string {
    return (this.opts.now?.() ?? new Date()).toISOString().slice(0, 10);
  }
}
