/** Public surface of the engine. Other folders import only from this file. */
export { MemoryEngine } from './engine.js';
export { encodeCursor, decodeCursor } from './list-page.js';
export { RELEVANCE_FLOOR, relevance, isRelevant, relevantCandidates, informativeTerms, form as termForm, type RelevanceFloor, type Relevance } from './search/relevance.js';
export type { EngineOptions, AddInput, PatchInput, SearchInput, SearchHit, SearchOutput, ListInput, EngineStatus, ChangeListener, PurgeListener } from './engine-types.js';
export { currentRows, deriveHistory, rowsAsOf, validAt, representative, transactions } from './bitemporal.js';
export type { PlannedRow } from './bitemporal.js';
export { sequenceTransaction, renumberAfter, checkTransaction } from './replica.js';
export type { SequenceOutcome } from './replica.js';
export type { ReplicaWriter } from './replica-writer.js';
export { systemClock, ManualClock } from './clock.js';
export type { Clock } from './clock.js';
export { CONFIG_SCHEMA, loadConfig, configTableRows, ConfigError } from './config.js';
export { DEFAULT_CONTEXT_TOKENS, DEFAULT_MAX_CONTENT_CHARS } from './config-keys/plugin.js';
export type { Config, ConfigKey, Env } from './config.js';
export { RENAMED_ENV } from './config.js';
export { checkSetting, comparableSettings, configFilePath, describeSettings, envWithConfigFile, loadConfigWithFile, readConfigFile, settingName, writeConfigFile } from './config-file.js';
export { DATA_SCHEMA_VERSION, resolvePaths, socketPath } from './paths.js';
export type { Paths } from './paths.js';
export { EngineError, notFound } from './errors.js';
export type { EngineErrorCode } from './errors.js';
export { uuidv7, isUuid } from './ids.js';
export { createLogger, silentLogger } from './log.js';
export { fileSink } from './log-file.js';
export { tightenTree } from './private-tree.js';
export type { TightenReport } from './private-tree.js';
export type { FileSinkOptions } from './log-file.js';
export type { Logger, LogLevel, LogRecord } from './log.js';
export { memoryJson, versionJson, exportLine, iso } from './record-json.js';
export type { MemoryJson, VersionJson, ExportLine } from './record-json.js';
export { parseImportLine, parseVersionRecord } from './import-line.js';
export { InMemoryStore } from './store/memory-store.js';
export { LanceStore } from './store/lance-store.js';
export { DEFAULT_RESIDENT_ROWS, ResidentBudget } from './store/resident-budget.js';
export { ConcurrencyGate } from './concurrency-gate.js';
export type { LanceStoreOptions } from './store/lance-options.js';
export type { LanceDiagnostics } from './store/lance-diagnostics.js';
export type { MemoryStore, StoreSearch, StoreHit, StoreStats, MaintenanceReport, VectorUpdate } from './store/types.js';
export { matchesFilter } from './store/filter.js';
export { FakeEmbedder } from './embed/fake.js';
export { TransformersEmbedder } from './embed/transformers.js';
export { WorkerEmbedder } from './embed/worker-embedder.js';
export { resolveModelSpec, type ModelDtypeChoice } from './embed/model-spec.js';
export { createEmbedder } from './embed/factory.js';
export type { ModelSpec } from './embed/model-spec.js';
export type { Embedder, EmbedderState } from './embed/types.js';
export { scopeFilter, mergeFilters, repoScope } from './search/scope.js';
export { confidentForgetMatch, requiredCoverage, splitForgetMatches, termCoverage, FORGET_ALL_TERMS_UP_TO, FORGET_MIN_COVERAGE, FORGET_MIN_SCORE } from './search/forget-floor.js';
export type { ScopeContext } from './search/scope.js';
export { contentHash, normalizeContent, splitBlocks, squeeze } from './text/content.js';
export { summaryRecap } from './extract/compact-summary.js';
export { terms, words } from './text/tokenize.js';
export { cosine } from './vector.js';
export { CATEGORIES, SPACES, SCOPES, SOURCE_KINDS } from './types.js';
export type {
  Category,
  Space,
  Scope,
  Source,
  SourceKind,
  Metadata,
  MemoryFields,
  VersionRow,
  MemoryVersion,
  MemoryFilter,
  FilterValue,
  TimeRange,
  AsOf,
  BlockLink,
  VersionEvent,
} from './types.js';
export { assembleContext, estimateTokens, joinContext, CONTEXT_OPEN, CONTEXT_CLOSE } from './recall/assemble.js';
export type { ContextItem, ContextSection, AssembleOptions } from './recall/assemble.js';
export { redact, containsSecret } from './redact/redact.js';
export { redactValue } from './redact/deep.js';
export { isoTimeMs } from './iso-time.js';
export type { RedactResult, RedactFinding } from './redact/redact.js';
export type { IngestBase, IngestResult } from './ingest.js';
export { RuleExtractor } from './extract/rule-extractor.js';
export type { RuleExtractorOptions } from './extract/rule-extractor.js';
export type { ExtractTurn, Candidate, Extractor } from './extract/types.js';
export { decide, sameFamily, NEAR_JACCARD, NEAR_SIMILARITY } from './extract/consolidate.js';
export type { Neighbor, Decision } from './extract/consolidate.js';
export { subjectOf } from './extract/subject.js';
export { isNarration, isQuestion } from './extract/noise.js';
export { sentences } from './extract/segment.js';
export { termJaccard } from './text/tokenize.js';
export { LlmExtractor } from './extract/llm-extractor.js';
export { extractorFor, extractorInfo } from './extract/factory.js';
export type { LlmExtractorOptions, TokenLedger } from './extract/llm-extractor.js';
export { salvageLanceVersions } from './store/lance-salvage.js';
export type { SalvageReport } from './store/lance-salvage.js';
export { PgStore, PURGE_CHANNEL, storeChangesSql } from './store/pg-store.js';
export { STORE_MIGRATIONS } from './store/pg-schema.js';
export type { PgStoreOptions, VersionsWriting } from './store/pg-store.js';
export { pgPoolClient } from './store/sql-client.js';
export { loadUndici } from './lazy-modules.js';
export type { SqlClient, SqlQueryable, SqlResult } from './store/sql-client.js';
export { ensurePgvector, migrate } from './store/pg-migrate.js';
export { filterSql, SqlParams, validSql } from './store/pg-filter.js';
