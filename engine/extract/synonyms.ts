/**
 * The synonym table behind subject keys: interchangeable choices share a key, so "we use npm"
 * and "we switched to pnpm" are both about the "package manager". Each value has a canonical
 * name and the spellings that mean it. Words that are also common English ("go", "less",
 * "tap", "got", "fetch") are left out on purpose.
 */

export interface SubjectGroup {
  key: string;
  /** `use X for Y` keeps Y in the key ("db for sessions"): one project has several of these. */
  scoped?: boolean;
  /** How a question names the subject itself ("which linter", "how do I lint"), case-insensitive. */
  asked?: string;
  /** Spellings are case-insensitive unless marked case-sensitive (words that are also English). */
  values: ReadonlyArray<readonly [canonical: string, spellings: string, caseSensitive?: true]>;
}

export const GROUPS: readonly SubjectGroup[] = [
  { key: 'package manager', asked: 'package managers?', values: [['pnpm', 'pnpm'], ['npm', 'npm'], ['yarn', 'yarn(?:pkg)?'], ['bun', 'bun']] },
  {
    key: 'test runner',
    asked: 'test(?:ing)? (?:runner|framework|library|tool)s?|unit[- ]test (?:framework|library)',
    values: [['vitest', 'vitest'], ['jest', 'jest'], ['mocha', 'mocha'], ['node:test', "node:test|node --test|node(?:\\.js)?(?:'s)? (?:built-in |builtin |native )?test runner"], ['ava', 'ava'], ['jasmine', 'jasmine'], ['pytest', 'pytest'], ['unittest', 'unittest']],
  },
  { key: 'e2e framework', asked: 'e2e|end[- ]to[- ]end|browser tests?', values: [['playwright', 'playwright'], ['cypress', 'cypress'], ['puppeteer', 'puppeteer'], ['selenium', 'selenium']] },
  {
    key: 'db',
    asked: 'databases?|db|datastore',
    scoped: true,
    values: [['postgres', 'postgres(?:ql)?|pg'], ['mysql', 'mysql'], ['mariadb', 'mariadb'], ['sqlite', 'sqlite3?'], ['mongodb', 'mongo(?:db)?'], ['redis', 'redis'], ['dynamodb', 'dynamo(?:db)?'], ['cockroachdb', 'cockroach(?:db)?'], ['firestore', 'firestore'], ['supabase', 'supabase']],
  },
  { key: 'runtime', asked: '(?:js |javascript )?runtime', values: [['node', 'node(?:\\.?js)?'], ['deno', 'deno']] },
  { key: 'formatter', asked: 'formatters?|code format(?:ting)?|auto-?format(?:ting|ter)?', values: [['prettier', 'prettier'], ['biome', 'biome'], ['dprint', 'dprint'], ['black', 'Black', true], ['gofmt', 'gofmt'], ['rustfmt', 'rustfmt']] },
  { key: 'linter', asked: 'lint(?:er|ers|ing)?', values: [['eslint', 'eslint'], ['tslint', 'tslint'], ['oxlint', 'oxlint'], ['ruff', 'ruff'], ['flake8', 'flake8'], ['pylint', 'pylint'], ['golangci-lint', 'golangci-lint']] },
  {
    key: 'indentation',
    asked: 'indent(?:ation|s|ing)?',
    values: [['2 spaces', '(?:2|two)[ -]spaces?'], ['4 spaces', '(?:4|four)[ -]spaces?'], ['tabs', 'tabs'], ['spaces', 'spaces']],
  },
  { key: 'quote style', asked: 'quotes?', values: [['single quotes', 'single quotes?'], ['double quotes', 'double quotes?']] },
  { key: 'bundler', asked: 'bundl(?:er|ers|ing)|build tool', values: [['esbuild', 'esbuild'], ['webpack', 'webpack'], ['rollup', 'Rollup|rollup\\.?js', true], ['vite', 'vite'], ['parcel', 'Parcel', true], ['tsup', 'tsup'], ['turbopack', 'turbopack'], ['rspack', 'rspack']] },
  { key: 'module system', asked: 'module (?:system|format|type)', values: [['esm', 'esm|es modules'], ['commonjs', 'commonjs|cjs']] },
  { key: 'http client', asked: 'http (?:client|library)|request library', values: [['axios', 'axios'], ['undici', 'undici'], ['ky', 'ky'], ['superagent', 'superagent'], ['node-fetch', 'node-fetch'], ['fetch', 'native fetch|the fetch api']] },
  { key: 'server framework', asked: '(?:server|web|backend|back-end|api|http) framework', values: [['express', 'Express(?:\\.?js)?|express\\.?js', true], ['fastify', 'fastify'], ['koa', 'koa'], ['hono', 'hono'], ['nestjs', 'nest\\.?js'], ['hapi', 'hapi']] },
  { key: 'ui framework', asked: '(?:ui|frontend|front-end|component) (?:framework|library)', values: [['react', 'React(?:\\.?js)?|react\\.?js', true], ['vue', 'vue'], ['svelte', 'svelte'], ['angular', 'angular'], ['preact', 'preact'], ['solid', 'solidjs']] },
  { key: 'orm', asked: 'orm|query builder', values: [['prisma', 'prisma'], ['typeorm', 'typeorm'], ['drizzle', 'drizzle'], ['sequelize', 'sequelize'], ['knex', 'knex'], ['mikro-orm', 'mikro-orm'], ['sqlalchemy', 'sqlalchemy']] },
  { key: 'validation', asked: '(?:schema |input )?validation (?:library|lib)|schema validation', values: [['zod', 'zod'], ['yup', 'yup'], ['joi', 'joi'], ['ajv', 'ajv'], ['valibot', 'valibot'], ['io-ts', 'io-ts']] },
  { key: 'logger', asked: 'logger|logging(?: library)?', values: [['pino', 'pino'], ['winston', 'winston'], ['bunyan', 'bunyan'], ['log4js', 'log4js']] },
  { key: 'ci', asked: 'ci|continuous integration', values: [['github actions', 'github actions'], ['gitlab ci', 'gitlab ci'], ['circleci', 'circle ?ci'], ['jenkins', 'jenkins'], ['travis', 'travis(?: ci)?'], ['buildkite', 'buildkite']] },
  { key: 'date library', asked: 'dates? (?:library|lib|handling|formatting)', values: [['date-fns', 'date-fns'], ['dayjs', 'day\\.?js'], ['moment', 'Moment(?:\\.?js)?|moment\\.?js', true], ['luxon', 'luxon']] },
  { key: 'css', asked: 'css|styling', values: [['tailwind', 'tailwind(?:css)?'], ['sass', 'sass|scss'], ['styled-components', 'styled-components'], ['css modules', 'css modules']] },
  { key: 'monorepo tool', asked: 'monorepo(?: tool)?', values: [['turborepo', '[Tt]urborepo|Turbo', true], ['nx', 'nx'], ['lerna', 'lerna']] },
  {
    key: 'state management',
    asked: 'state[- ]manage(?:ment|r)s?|store library',
    values: [['redux', 'redux(?: toolkit)?'], ['zustand', 'zustand'], ['mobx', 'mobx'], ['pinia', 'pinia'], ['vuex', 'vuex'], ['recoil', 'Recoil', true], ['jotai', 'jotai'], ['xstate', 'xstate'], ['ngrx', 'ngrx']],
  },
  {
    key: 'hosting',
    asked: 'hosting (?:provider|platform|service)|host(?:ed|ing)|deploy(?:ment)? (?:target|platform|provider)|deployed',
    scoped: true,
    values: [['render', 'Render', true], ['vercel', 'vercel'], ['netlify', 'netlify'], ['railway', 'Railway', true], ['fly.io', 'fly\\.io'], ['heroku', 'heroku'], ['cloudflare', 'cloudflare(?: pages| workers)?'], ['github pages', 'github pages'], ['digitalocean', 'digital ?ocean']],
  },
  { key: 'commit style', asked: 'commit (?:message|style|convention|format)s?', values: [['conventional commits', 'conventional commits?'], ['gitmoji', 'gitmoji']] },
];

export interface Mention {
  key: string;
  scoped: boolean;
  value: string;
  index: number;
  length: number;
}

const PATTERNS = GROUPS.flatMap((g) =>
  g.values.map(([canonical, spellings, caseSensitive]) => ({
    key: g.key,
    scoped: g.scoped === true,
    canonical,
    re: new RegExp(`(?<![\\w@/.-])(?:${spellings})(?![\\w-]|\\.\\w)`, caseSensitive ? 'g' : 'gi'),
  })),
);

/** Every mention of a known value in `text`, in order of position (longest first at a tie). */
export function mentions(text: string): Mention[] {
  const out: Mention[] = [];
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = p.re.exec(text)) !== null) out.push({ key: p.key, scoped: p.scoped, value: p.canonical, index: m.index, length: m[0].length });
  }
  out.sort((a, b) => a.index - b.index || b.length - a.length);
  // Drop mentions inside a longer one ("2 spaces" contains "spaces").
  return out.filter((m, i) => !out.slice(0, i).some((o) => m.index >= o.index && m.index < o.index + o.length));
}

/** Alternation of the case-insensitive spellings, for cue phrases that need "any known tool". */
export function toolNamesPattern(): string {
  return GROUPS.flatMap((g) => g.values.filter((v) => v[2] !== true).map((v) => v[1])).join('|');
}

/** True when `word` is a known tool name, which keeps its own casing (`pnpm`, not `Pnpm`). */
export function isKnownTool(word: string): boolean {
  return mentions(word).some((m) => m.index === 0 && m.length === word.length);
}

export interface AskedSubject {
  key: string;
  /** The words of the question that name the subject ("state management"). */
  phrase: string;
  /** The subject's known values, canonical names ("redux", "zustand", …). */
  values: string[];
}

const ASKED = GROUPS.filter((g) => g.asked).map((g) => ({ key: g.key, re: new RegExp(`(?<![\\w-])(?:${g.asked})(?![\\w-])`, 'i'), values: g.values.map(([canonical]) => canonical) }));

/**
 * The subjects a question names by what they are rather than by a value ("what do we use for state
 * management" → redux, zustand, …; "how do I lint" → eslint, ruff, …): search looks for their values
 * too, and a memory naming one of them covers the question's words for the subject.
 */
export function askedSubjects(query: string): AskedSubject[] {
  const out: AskedSubject[] = [];
  for (const a of ASKED) {
    const m = a.re.exec(query);
    if (m) out.push({ key: a.key, phrase: m[0], values: a.values });
  }
  return out;
}
