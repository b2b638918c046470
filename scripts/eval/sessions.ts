/**
 * `npm run eval:sessions`: real, public Claude Code transcripts (test/fixtures/transcripts)
 * replayed through the installed plugin's hooks.json commands, as Claude Code fires them, into a
 * fresh daemon; then scored against the hand labels beside each transcript.
 *
 * 1. Replay: `service plugin install claude-code` into a temp HOME; per fixture (oldest first),
 *    transcript lines are appended as Claude Code writes them and SessionStart, UserPromptSubmit,
 *    PostToolUse(Failure), Stop and SessionEnd fire between them (async hooks not awaited).
 * 2. Restart the daemon (`service daemon stop`, `service daemon start`) and ask, from a new
 *    session in each fixture's repository, the labelled questions: through the recall hook
 *    (UserPromptSubmit) and `service search --json`.
 * 3. Score: facts recovered (an extracted memory states it, or an episode answering its question
 *    is in the top 5), extracted-memory precision, question hit@5, junk share of injected items,
 *    one-off and cross-repository injections, transcript turns kept. Held-out fixtures (never
 *    looked at while tuning the rules) are reported separately.
 *
 *   npm run eval:sessions                      all fixtures; writes the `sessions` section of BENCHMARKS.md
 *   options: --fixtures a,b  --sets tuned,holdout,unseen,newest,<a labels file's "set">  --quick (the small fixtures)  --no-write  --json  --keep DIR (copy the replayed data dir there)
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DaemonClient } from '../../daemon/client.js';
import { readTranscript } from '../../daemon/transcript.js';
import { resolvePaths } from '../../engine/index.js';
import { ClaudeCodeSim, type HookRun } from '../../test/helpers/claude-code.js';
import { cli } from '../../test/helpers/daemon.js';
import { pluginUser } from '../../test/helpers/plugin.js';
import { tempDir } from '../../test/helpers/tmp.js';
import { table, writeBenchSection } from '../bench/markdown.js';
import { isAgentTranscript, loadFixtures, replaySteps, type Fixture, type LabelQuestion, type Labels } from './session-replay.js';
import { containsAll, emptyScores, fixtureRepoName, injectedItems, isJunk, isOneOff, matchesAFact, pct, statesFact, type Injected, type SetScores, type StoredMemory } from './session-score.js';
import { census } from './transcript-census.js';

/** Small fixtures for --quick and for the test in the normal suite. */
export const QUICK_FIXTURES = ['vsla-2cba43de', 'vsla-069508a5', 'vsla-9cc4a4b0', 'reliability-coverage-test-fix', 'reliability-stop-hook-reflection-first-stop'];

/**
 * The fixture sets reported apart. A labels file names its set in `set` ("blind-1" → a column of
 * its own, named after it); the older files carry flags instead, mapped to today's set names: tuned
 * on, held out, held out and added after the first tuning ("new", whose misses were then studied),
 * held out and added after the second ("newest").
 */
export type SetName = string;
/** The sets named by the legacy flags, in column order. */
export const LEGACY_SETS: readonly SetName[] = ['tuned', 'holdout', 'unseen', 'newest'];
/** Sets shown even when they have no fixtures (every other set only when it has some). */
const ALWAYS_SHOWN: ReadonlySet<SetName> = new Set(['tuned', 'holdout']);
/** Column heads of the legacy sets; any other set is headed by its own name. */
const LEGACY_HEADS: Readonly<Record<string, string>> = { tuned: 'tuned fixtures', holdout: 'held out (looked at since)', unseen: 'held out (new, looked at since)', newest: 'held out (newest)' };

export function setOf(labels: Pick<Labels, 'holdout' | 'unseen' | 'newest' | 'set'>): SetName {
  const named = labels.set?.trim();
  if (named) return named;
  return labels.newest ? 'newest' : labels.unseen ? 'unseen' : labels.holdout ? 'holdout' : 'tuned';
}

/**
 * The set a stored memory is scored in: that of the fixture whose replayed session wrote it (two
 * sets may hold sessions of one repository); one written otherwise, that of its repository's
 * fixtures (`repoName`: the labels' name of its repository), else tuned.
 */
export function memorySets(fixtures: readonly Pick<Fixture, 'name' | 'labels'>[]): (m: Pick<StoredMemory, 'session'>, repoName: string | null) => SetName {
  const setOfRepo = new Map<string, SetName>();
  for (const f of fixtures) if (!setOfRepo.has(f.labels.repo) || f.labels.holdout === false) setOfRepo.set(f.labels.repo, setOf(f.labels));
  const setOfSession = new Map(fixtures.map((f) => [`eval-${f.name}`, setOf(f.labels)]));
  return (m, repoName) => setOfSession.get(m.session ?? '') ?? (repoName ? (setOfRepo.get(repoName) ?? 'tuned') : 'tuned');
}

/** The sets to report, in column order: the legacy ones first, then the others by name. */
export function setColumns(sets: Readonly<Record<SetName, SetScores>>): SetName[] {
  const others = Object.keys(sets)
    .filter((n) => !LEGACY_SETS.includes(n))
    // blind-2 before blind-10: numbers in names compare as numbers.
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return [...LEGACY_SETS, ...others].filter((n) => ALWAYS_SHOWN.has(n) || (sets[n]?.fixtures ?? 0) > 0);
}

export function setHead(name: SetName): string {
  return LEGACY_HEADS[name] ?? name;
}

/** One labelled question as each path answered it (--json, for inspection). */
/** A fixture's questions by language, English (no `lang`) first: each is asked in a session of its own. */
export function byLanguage(questions: readonly LabelQuestion[]): [string | null, LabelQuestion[]][] {
  const groups = new Map<string | null, LabelQuestion[]>();
  for (const q of questions) groups.set(q.lang ?? null, [...(groups.get(q.lang ?? null) ?? []), q]);
  return [...groups].sort(([a], [b]) => (a === null ? -1 : b === null ? 1 : a.localeCompare(b)));
}

export interface QuestionOutcome {
  fixture: string;
  set: SetName;
  q: string;
  /** The language it was asked in, when not English (LabelQuestion.lang). */
  lang?: string;
  expect: string[];
  search: boolean;
  recall: boolean;
  /** Shown to this session before the question (SessionStart, earlier prompts), holding the answer. */
  shownBefore: boolean;
  injected: string[];
  /** `service search`'s top 5 (heads; episodes marked), for inspection. */
  searchTop: string[];
}

export interface EvalResult {
  /** Scores per fixture set (`setOf`): every set that has a fixture, and tuned and holdout always. */
  sets: Record<SetName, SetScores>;
  questions: QuestionOutcome[];
  /**
   * After the daemon restart: sessions asked, those whose first prompt injected something (or whose
   * SessionStart printed something), and of the rest those a warm repeat of the same first prompt (a
   * new session, after every question was asked) injected something for: recall that was cold.
   */
  firstRecall: { sessionStart: number; prompt: number; sessions: number; cold?: number };
  memories: StoredMemory[];
  /** Injected items counted as junk, for inspection (--json). */
  junk: (Injected & { crossRepo: boolean; oneOff: boolean })[];
  ms: number;
}

function contextOf(run: HookRun): string {
  if (!run.stdout.trim()) return '';
  try {
    return (JSON.parse(run.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
  } catch {
    return '';
  }
}

function makeRepoDir(root: string, name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.git', 'config'), `[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:fixtures/${name}.git\n`);
  return dir;
}

function logTail(logFile: string, lines: number): string {
  return fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n') : '(no log)';
}

async function settled(client: DaemonClient, logFile: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  let still = 0;
  for (;;) {
    const s = await client.status<{ journal: { pending_events: number } }>();
    if (s.journal.pending_events === 0) return;
    // An event captured while its session's last flush ran waits for the idle flush: flush now,
    // as `service flush` would.
    if (++still % 20 === 0) await client.flush();
    if (Date.now() > deadline) {
      throw new Error(`the daemon did not flush: ${JSON.stringify(s.journal)}\n${logTail(logFile, 15)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function currentMemories(exportText: string): StoredMemory[] {
  const last = new Map<string, { version: number; line: Record<string, unknown> }>();
  for (const raw of exportText.split('\n')) {
    if (!raw.trim()) continue;
    const l = JSON.parse(raw) as Record<string, unknown> & { memory_id: string; version: number };
    const prev = last.get(l.memory_id);
    if (!prev || prev.version < l.version) last.set(l.memory_id, { version: l.version, line: l });
  }
  const out: StoredMemory[] = [];
  for (const { line } of last.values()) {
    if (line.deleted === true || line.valid_to) continue;
    const meta = (line.metadata ?? {}) as Record<string, unknown>;
    const session = (line.source as { session_id?: unknown } | undefined)?.session_id;
    out.push({
      memory_id: String(line.memory_id),
      content: String(line.content),
      category: String(line.category),
      space: String(line.space),
      repo: (line.repo as string | null) ?? null,
      episode: meta.kind === 'episode',
      ...(typeof meta.speaker === 'string' ? { speaker: meta.speaker } : {}),
      ...(typeof session === 'string' ? { session } : {}),
    });
  }
  return out;
}

export async function evaluate(fixtures: readonly Fixture[], log: (s: string) => void = () => {}, opts: { keepData?: string } = {}): Promise<EvalResult> {
  const user = pluginUser({ env: { SERVICE_RECALL_TIMEOUT_MS: '2500', SERVICE_RECALL_DEADLINE_MS: '2000' } });
  try {
    return await evaluateAs(user, fixtures, log);
  } catch (err) {
    // What the daemon logged says what failed inside it (an INTERNAL error names only a request id).
    log(`the daemon's log ends:\n${logTail(path.join(resolvePaths(user.data).logDir, 'daemon.log'), 40)}`);
    throw err;
  } finally {
    // Whatever happened, no daemon of this run outlives it.
    await cli(['daemon', 'stop'], user.env).catch(() => {});
    // The replayed data dir, for inspection (`SERVICE_HOME=<dir> service search …`).
    if (opts.keepData) fs.cpSync(user.data, opts.keepData, { recursive: true });
  }
}

async function evaluateAs(user: ReturnType<typeof pluginUser>, fixtures: readonly Fixture[], log: (s: string) => void): Promise<EvalResult> {
  const t0 = performance.now();
  const installed = await cli(['plugin', 'install', 'claude-code', '--json'], user.env);
  if (installed.code !== 0) throw new Error(`plugin install failed: ${installed.stderr}`);
  const pluginRoot = (JSON.parse(installed.stdout) as { dir: string }).dir;
  const scratch = tempDir('eval-sessions-');
  const repos = new Map<string, string>();
  const repoDir = (name: string): string => {
    let d = repos.get(name);
    if (!d) repos.set(name, (d = makeRepoDir(path.join(scratch, 'repos'), name)));
    return d;
  };
  const client = new DaemonClient({ socketPath: resolvePaths(user.data).socket, timeoutMs: 60_000 });
  const injected: { set: SetName; item: Injected }[] = [];
  const scores: Record<SetName, SetScores> = { tuned: emptyScores(), holdout: emptyScores() };
  for (const f of fixtures) scores[setOf(f.labels)] ??= emptyScores();
  const questions: QuestionOutcome[] = [];

  // 1. Replay every session through hooks.json.
  for (const f of fixtures) {
    const cwd = repoDir(f.labels.repo);
    const transcript = path.join(scratch, 'projects', `${f.name}.jsonl`);
    fs.mkdirSync(path.dirname(transcript), { recursive: true });
    const sim = new ClaudeCodeSim(pluginRoot, user.env, cwd);
    const base = { session_id: `eval-${f.name}`, cwd, transcript_path: transcript };
    for (const step of replaySteps(f.text, base)) {
      if ('append' in step) {
        const file = step.to ?? transcript;
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.appendFileSync(file, step.append.map((l) => `${l}\n`).join(''));
        continue;
      }
      const runs = await sim.fire(step.hook, step.payload);
      for (const r of runs) for (const item of injectedItems(contextOf(r))) injected.push({ set: setOf(f.labels), item: { repo: f.labels.repo, ...item } });
    }
    await sim.settle();
    await sim.close();
    await settled(client, path.join(resolvePaths(user.data).logDir, 'daemon.log'));
    const s = scores[setOf(f.labels)]!;
    s.fixtures++;
    const agent = isAgentTranscript(f.text.split('\n').filter((l) => l.trim()));
    const present = census(f.text, { agent });
    s.turnsPresent += present.total;
    s.turnsRewound += present.rewound;
    s.turnsKept += readTranscript(f.file, 0, { agent }).turns.length;
    log(`replayed ${f.name}`);
  }

  // 2. A restarted daemon answers the questions.
  const stop = await cli(['daemon', 'stop'], user.env);
  if (stop.code !== 0) throw new Error(`daemon stop failed: ${stop.stderr}`);
  const start = await cli(['daemon', 'start'], user.env);
  if (start.code !== 0) throw new Error(`daemon start failed: ${start.stderr}`);
  const memories = currentMemories(await client.exportAll());
  const firstRecall = { sessionStart: 0, prompt: 0, sessions: 0, cold: 0 };
  const emptyFirst: { f: Fixture; q: string }[] = [];
  const byRepo = new Map<string, Labels[]>();
  for (const f of fixtures) byRepo.set(f.labels.repo, [...(byRepo.get(f.labels.repo) ?? []), f.labels]);
  // Remotes are normalized to lower case: compare repository names that way.
  const labelRepo = new Map(fixtures.map((f) => [f.labels.repo.toLowerCase(), f.labels.repo]));
  const repoNameOf = (repo: string | null): string | null => fixtureRepoName(repo, labelRepo);
  const recoveredByEpisode = new Set<string>();
  for (const f of fixtures) {
    for (const [lang, asked] of byLanguage(f.labels.questions)) {
      const cwd = repoDir(f.labels.repo);
      const sim = new ClaudeCodeSim(pluginRoot, user.env, cwd);
      const session = `ask-${f.name}${lang ? `-${lang}` : ''}`;
      const base = { session_id: session, cwd, transcript_path: path.join(scratch, 'projects', `${session}.jsonl`) };
      const s = scores[setOf(f.labels)]!;
      const startRuns = await sim.fire('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' });
      const startItems = startRuns.flatMap((r) => injectedItems(contextOf(r)));
      firstRecall.sessions++;
      if (startItems.length > 0) firstRecall.sessionStart++;
      for (const item of startItems) injected.push({ set: setOf(f.labels), item: { repo: f.labels.repo, ...item } });
      const shown = startItems.map((i) => i.content);
      let first = true;
      for (const q of asked) {
        s.questions++;
        const runs = await sim.fire('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: q.q });
        const items = runs.flatMap((r) => injectedItems(contextOf(r)));
        if (first && items.length > 0) firstRecall.prompt++;
        else if (first) emptyFirst.push({ f, q: q.q });
        first = false;
        for (const item of items) injected.push({ set: setOf(f.labels), item: { repo: f.labels.repo, ...item } });
        const recalled = items.some((i) => containsAll(i.content, q.expect));
        const shownBefore = shown.some((c) => containsAll(c, q.expect));
        if (recalled) s.recallHitsThisPrompt++;
        if (recalled || shownBefore) s.recallHits++;
        const found = await cli(['search', q.q, '--json', '--top-k', '5'], user.env, cwd);
        const hits = found.code === 0 ? ((JSON.parse(found.stdout) as { results: { content: string; memory_id: string }[] }).results ?? []).slice(0, 5) : [];
        const searched = hits.some((h) => containsAll(h.content, q.expect));
        if (searched) s.searchHits++;
        if (lang) {
          s.ownLanguageQuestions++;
          if (searched) s.ownLanguageSearchHits++;
          if (recalled || shownBefore) s.ownLanguageRecallHits++;
        }
        questions.push({ fixture: f.name, set: setOf(f.labels), q: q.q, ...(lang ? { lang } : {}), expect: q.expect, search: searched, recall: recalled, shownBefore, injected: items.map((i) => i.content.slice(0, 160)), searchTop: hits.map((h) => `${memories.find((m) => m.memory_id === h.memory_id)?.episode ? '[episode] ' : ''}${h.content.replace(/\s+/g, ' ').slice(0, 160)}`) });
        shown.push(...items.map((i) => i.content));
        if (q.fact && hits.some((h) => containsAll(h.content, q.expect) && memories.find((m) => m.memory_id === h.memory_id)?.episode)) recoveredByEpisode.add(`${f.name}:${q.fact}`);
      }
      await sim.settle();
      await sim.close();
    }
  }
  // A first prompt that injected nothing, asked again in a new session once everything is warm:
  // injecting something now means the first recall was cold, not that nothing was relevant.
  for (const { f, q } of emptyFirst) {
    const cwd = repoDir(f.labels.repo);
    const sim = new ClaudeCodeSim(pluginRoot, user.env, cwd);
    const base = { session_id: `warm-${f.name}`, cwd, transcript_path: path.join(scratch, 'projects', `warm-${f.name}.jsonl`) };
    await sim.fire('SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' });
    const runs = await sim.fire('UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: q });
    if (runs.some((r) => injectedItems(contextOf(r)).length > 0)) firstRecall.cold++;
    await sim.settle();
    await sim.close();
  }
  await cli(['daemon', 'stop'], user.env);

  // 3. Score what was stored and injected.
  for (const f of fixtures) {
    const s = scores[setOf(f.labels)]!;
    const mine = memories.filter((m) => repoNameOf(m.repo) === f.labels.repo || m.space === 'personal');
    for (const fact of f.labels.facts) {
      s.facts++;
      const asMemory = mine.some((m) => !m.episode && statesFact(m.content, fact));
      if (asMemory) s.factsAsMemory++;
      if (asMemory || recoveredByEpisode.has(`${f.name}:${fact.id}`)) s.factsRecovered++;
    }
  }
  const setOfMemory = memorySets(fixtures);
  for (const m of memories) {
    const name = repoNameOf(m.repo);
    const set = setOfMemory(m, name);
    const s = scores[set]!;
    const labels = name ? (byRepo.get(name) ?? []) : [...byRepo.values()].flat();
    if (m.episode) {
      s.episodes++;
      continue;
    }
    s.extracted++;
    if (matchesAFact(m.content, labels)) s.extractedMatching++;
    if (isOneOff(m.content, labels.flatMap((l) => l.oneOff))) s.oneOffStored++;
    if (m.space === 'personal') s.personalStored++;
  }
  const junk: EvalResult['junk'] = [];
  for (const { set, item } of injected) {
    const s = scores[set]!;
    s.injected++;
    const j = isJunk(item, memories, repoNameOf, (r) => byRepo.get(r) ?? []);
    if (j.junk) {
      s.injectedJunk++;
      junk.push({ ...item, crossRepo: j.crossRepo, oneOff: j.oneOff });
    }
    if (j.crossRepo) s.crossRepoInjected++;
    if (j.oneOff) s.oneOffInjected++;
  }
  return { sets: scores, questions, firstRecall, memories, junk, ms: performance.now() - t0 };
}

export function renderTables(r: EvalResult, command: string, fixtureCount: number): string {
  const sets = setColumns(r.sets);
  const row = (name: string, target: string, f: (s: SetScores) => string): string[] => [name, target, ...sets.map((n) => f(r.sets[n] ?? emptyScores()))];
  return [
    '## Real Claude Code sessions (`npm run eval:sessions`)',
    '',
    table(
      ['measure', 'target', ...sets.map(setHead)],
      [
        row('fixtures (sessions)', '—', (s) => String(s.fixtures)),
        row('transcript turns kept by the reader', '≥ 98%', (s) => `${pct(s.turnsKept, s.turnsPresent)} (${s.turnsKept}/${s.turnsPresent}${s.turnsRewound ? `; ${s.turnsRewound} on rewound branches left out` : ''})`),
        row('durable facts recovered (memory, or episode in top 5)', '≥ 70%', (s) => `${pct(s.factsRecovered, s.facts)} (${s.factsRecovered}/${s.facts}; ${s.factsAsMemory} as extracted memories)`),
        row('extracted-memory precision (states a labelled fact)', '≥ 80%', (s) => `${pct(s.extractedMatching, s.extracted)} (${s.extractedMatching}/${s.extracted})`),
        row('one-off requests stored', '0', (s) => String(s.oneOffStored)),
        row('personal memories stored', '—', (s) => String(s.personalStored)),
        row('episodes stored', '—', (s) => String(s.episodes)),
        row('question hit@5, `service search`', '≥ 70%', (s) => `${pct(s.searchHits, s.questions)} (${s.searchHits}/${s.questions})`),
        row('question hit@5, recall hook: answer in the agent’s context (this prompt, or shown earlier in the session and not repeated)', '≥ 70%', (s) => `${pct(s.recallHits, s.questions)} (${s.recallHits}/${s.questions})`),
        row('… of which injected for this very prompt (UserPromptSubmit)', '—', (s) => `${pct(s.recallHitsThisPrompt, s.questions)} (${s.recallHitsThisPrompt}/${s.questions})`),
        row('… questions asked in the user’s own language (Chinese, Japanese, Korean, Russian: `lang` in the labels; a session of their own): search / recall hook', '—', (s) =>
          s.ownLanguageQuestions ? `${pct(s.ownLanguageSearchHits, s.ownLanguageQuestions)} / ${pct(s.ownLanguageRecallHits, s.ownLanguageQuestions)} (${s.ownLanguageSearchHits}, ${s.ownLanguageRecallHits}/${s.ownLanguageQuestions})` : '—',
        ),
        row('junk share of injected items', '≤ 10%', (s) => `${pct(s.injectedJunk, s.injected)} (${s.injectedJunk}/${s.injected})`),
        row('one-off requests injected', '0', (s) => String(s.oneOffInjected)),
        row('project memories injected in another repository', '0', (s) => String(s.crossRepoInjected)),
      ],
    ),
    '',
    `After a daemon restart, the first prompt of ${r.firstRecall.sessions} new sessions injected something in ${r.firstRecall.prompt} (SessionStart runs in the background and prints nothing: its project block opens the first prompt's recall; it printed something in ${r.firstRecall.sessionStart}); of the ${r.firstRecall.sessions - r.firstRecall.prompt} that injected nothing, the same prompt asked again once warm injected something in ${r.firstRecall.cold ?? 0} (a cold first recall), nothing in the others (nothing relevant, and nothing confident enough to open the session).`,
    '',
    `${fixtureCount} real transcripts, random-weight lexical model (../shared/models/random-bert-tiny), rule extractor; \`${command}\`, ${(r.ms / 1000).toFixed(0)} s.`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { fixtures: { type: 'string' }, sets: { type: 'string' }, quick: { type: 'boolean', default: false }, 'no-write': { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, keep: { type: 'string' } } });
  const names = values.fixtures ? values.fixtures.split(',') : values.quick ? QUICK_FIXTURES : undefined;
  const sets = values.sets?.split(',');
  const loaded = loadFixtures(undefined, names);
  const known = [...new Set(loaded.map((f) => setOf(f.labels)))];
  const unknown = sets?.find((x) => !known.includes(x));
  if (unknown) throw new Error(`--sets takes set names of the fixtures (${known.join(', ')}), not '${unknown}'`);
  const fixtures = loaded.filter((f) => !sets || sets.includes(setOf(f.labels)));
  const r = await evaluate(fixtures, (s) => console.error(s), values.keep ? { keepData: path.resolve(values.keep) } : {});
  const command = `npm run eval:sessions${values.quick ? ' -- --quick' : ''}`;
  const md = renderTables(r, command, fixtures.length);
  if (values.json) console.log(JSON.stringify({ sets: r.sets, firstRecall: r.firstRecall, memories: r.memories.filter((m) => !m.episode), junk: r.junk, questions: r.questions }, null, 1));
  console.log(md);
  if (!values['no-write'] && !values.quick && !values.fixtures && !values.sets) {
    const file = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', '..', 'BENCHMARKS.md');
    writeBenchSection(file, 'sessions', md);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
