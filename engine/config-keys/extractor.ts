/** Configuration keys of the optional LLM extractor. Part of CONFIG_SCHEMA (engine/config.ts), in its order. */
import type { Entry } from './entry.js';

export const EXTRACTOR_KEYS = {
  llmBaseUrl: {
    env: 'SERVICE_LLM_BASE_URL',
    kind: 'url',
    default: '',
    defaultLabel: 'unset (off)',
    group: 'extractor',
    description: 'OpenAI-compatible endpoint for the optional LLM extractor. Unset keeps extraction local.',
  },
  llmModel: {
    env: 'SERVICE_LLM_MODEL',
    kind: 'string',
    default: 'gpt-4o-mini',
    group: 'extractor',
    description: 'Model name sent to the LLM extractor endpoint.',
  },
  llmApiKey: {
    env: 'SERVICE_LLM_API_KEY',
    kind: 'secret',
    default: '',
    defaultLabel: 'none',
    group: 'extractor',
    description: 'Bearer key for the LLM extractor endpoint.',
  },
  llmDailyTokens: {
    env: 'SERVICE_LLM_DAILY_TOKENS',
    kind: 'int',
    default: 200_000,
    min: 0,
    max: 100_000_000,
    group: 'extractor',
    description: 'Hard cap on LLM extractor tokens per day; past it, extraction stays local until midnight UTC.',
  },
} as const satisfies Record<string, Entry>;
