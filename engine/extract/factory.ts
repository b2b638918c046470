/** The extractor a host uses: the LLM extractor when one is configured, else the local rules. */
import path from 'node:path';
import type { Config } from '../config.js';
import type { Embedder } from '../embed/types.js';
import type { Logger } from '../log.js';
import { LlmExtractor, type TokenLedger } from './llm-extractor.js';
import { RuleExtractor } from './rule-extractor.js';
import type { Extractor } from './types.js';

/** `ledger` keeps the daily token use elsewhere than `llm-usage.json` in `stateDir` (the server on PostgreSQL). */
export function extractorFor(config: Pick<Config, 'llmBaseUrl' | 'llmApiKey' | 'llmModel' | 'llmDailyTokens'>, stateDir: string, embedder: Embedder | null, logger: Logger, ledger?: TokenLedger): Extractor {
  const rules = new RuleExtractor({ embedder });
  if (!config.llmBaseUrl || config.llmDailyTokens === 0) return rules;
  return new LlmExtractor({
    baseUrl: config.llmBaseUrl,
    apiKey: config.llmApiKey,
    model: config.llmModel,
    dailyTokens: config.llmDailyTokens,
    ledgerFile: path.join(stateDir, 'llm-usage.json'),
    fallback: rules,
    logger,
    ...(ledger ? { ledger } : {}),
  });
}

/** What status shows about extraction. */
export function extractorInfo(extractor: Extractor): Record<string, unknown> {
  if (extractor instanceof LlmExtractor) return { kind: 'llm', ...extractor.usage() };
  return { kind: 'rules' };
}
