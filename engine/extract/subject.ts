/**
 * Subject keys for supersede detection: what a statement is about ("package manager", "port",
 * "db for session") and, when it can tell, the value it states ("pnpm", "8080"). Two memories
 * with the same subject and different values contradict each other; consolidation turns the
 * newer one into a new version of the older (DESIGN.md §5.5).
 *
 * Patterns, first match wins: a port; "use X for Y"; a change ("switch from X to Y", "X instead
 * of Y", "prefer X over Y", "replace X with Y"); a version ("Node 18"); a naming case; "the Y is
 * X"; any known tool after a use-verb. Keys come from the synonym table where possible, else
 * from the stemmed terms of the phrase (at most three).
 */
import { terms } from '../text/tokenize.js';
import { mentions } from './synonyms.js';

export interface SubjectValue {
  subject: string;
  /** The stated value, lowercased; null when the statement names the subject only. */
  value: string | null;
}

/** Normalized subject key of `text`, or null when it states no recognizable subject. */
export function subjectOf(text: string): string | null {
  return analyzeSubject(text)?.subject ?? null;
}

export function analyzeSubject(text: string): SubjectValue | null {
  const t = text.replace(/[`*]/g, '').replace(/\s+/g, ' ');
  return port(t) ?? command(t) ?? useFor(t) ?? change(t) ?? versionOf(t) ?? naming(t) ?? theYIsX(t, text) ?? mentioned(t);
}

function norm(phrase: string | undefined, max = 3): string | null {
  const k = terms(phrase ?? '').slice(0, max).join(' ');
  return k.length > 0 ? k : null;
}

/** A clause ends at punctuation; "node.js" and "v1.2" keep their dots. */
function clause(phrase: string): string {
  return phrase.split(/[,;:!?()]|\.(?:\s|$)|\s(?:because|since|so that|but|which|until|unless|while)\s/i)[0]!.trim();
}

const VERSION =
  /\b(node(?:\.?js)?|python|typescript|java|ruby|golang|go|postgres(?:ql)?|php|rust|react|dotnet|\.net|ubuntu|debian)\s*(?:v(?=\d)|version\s*)?(?:>=|>|\^|~|=)?\s*v?(\d+(?:\.\d+)?)/i;
const VERSION_NAMES: Record<string, string> = { nodejs: 'node', 'node.js': 'node', golang: 'go', postgresql: 'postgres', dotnet: '.net' };

function versionOf(t: string): SubjectValue | null {
  const m = VERSION.exec(t);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  const [major, minor] = m[2]!.split('.');
  return { subject: `${VERSION_NAMES[name] ?? name} version`, value: Number(major) >= 2 || minor === undefined ? major! : `${major}.${minor}` };
}

/** Version, else the first known tool of the phrase. */
function known(phrase: string): (SubjectValue & { scoped: boolean }) | null {
  const v = versionOf(phrase);
  if (v) return { ...v, scoped: false };
  const m = mentions(phrase)[0];
  return m ? { subject: m.key, value: m.value, scoped: m.scoped } : null;
}

const PORT = /\b(?:port\s*(?:number\s*)?(?:is\s*|=\s*|:\s*|to\s*|of\s*|on\s*)?|localhost:)(\d{2,5})\b/i;
const PORT_OWNER = /\b(api|web|frontend|backend|admin|db|database|metrics|dev|grpc|debug|proxy|docs|storybook|worker)\b/gi;

function port(t: string): SubjectValue | null {
  const m = PORT.exec(t);
  if (!m) return null;
  const before = t.slice(Math.max(0, m.index - 50), m.index).split(/[.;,]/).pop() ?? '';
  // The owner is the last service named before the port: "the API server" → api, "Redis" → redis.
  const word = [...before.matchAll(PORT_OWNER)].pop();
  const tool = mentions(before).pop();
  const owner = tool && (!word || tool.index > word.index!) ? tool.value : word?.[1]?.toLowerCase();
  const key = owner === 'database' ? 'db' : owner;
  return { subject: key ? `${key} port` : 'port', value: m[1]! };
}

const COMMAND =
  /\b(tests?|the test suite|lint(?:ing|er)?|(?:the )?build|format(?:ting|ter)?|type ?check(?:ing|s)?|the app|the dev server|migrations|e2e tests?)\b[^.]{0,20}?\b(?:run|runs|are run|is run|start|starts|is started)\s+(?:with|via|using)\s+(\S+(?:\s+(?!because|since|and|but|so)[\w:./-]+){0,3})/i;

/** "Tests run with `npm test`": the command for a task, not the package manager. */
function command(t: string): SubjectValue | null {
  const m = COMMAND.exec(t);
  if (!m) return null;
  const task = norm(m[1], 2);
  return task ? { subject: `${task} command`, value: clause(m[2]!).toLowerCase() } : null;
}

const USE_FOR =
  /\b(?:use|uses|using|used|go with|going with|went with|switch(?:ed|ing)? to|mov(?:e|ed|ing) to|pick(?:ed)?|cho(?:se|ose|sen)|settled on|adopt(?:ed|ing)?|stick(?:ing)? with|rely on|relies on)\s+(.{1,40}?)\s+for\s+(.{1,60}?)(?=\s+(?:because|since|as|so|but|and|instead|rather|over|which|that|to|in|on|at|with|from|until|unless|when|while|if)\b|[,.;:!?)]|$)/i;

function useFor(t: string): SubjectValue | null {
  const m = USE_FOR.exec(t);
  if (!m) return null;
  const what = known(m[1]!);
  const purpose = norm(m[2]);
  if (what) {
    if (!what.scoped || !purpose || purpose.split(' ').includes(what.subject)) return { subject: what.subject, value: what.value };
    return { subject: `${what.subject} for ${purpose}`, value: what.value };
  }
  return purpose ? { subject: purpose, value: norm(m[1]) } : null;
}

// Each pattern yields [object?, from?, to]; "to" is cut at the end of its clause.
const CHANGES: ReadonlyArray<{ re: RegExp; pick: (m: RegExpExecArray) => [string | undefined, string | undefined, string] }> = [
  {
    re: /\b(?:switch|mov|migrat|chang|convert|port|upgrad|downgrad|went|going)\w*\s+(?:(.{1,40}?)\s+)?from\s+(.{1,30}?)\s+(?:over\s+)?to\s+(.{1,40})/i,
    pick: (m) => [m[1], m[2], m[3]!],
  },
  { re: /\breplac\w*\s+(.{1,30}?)\s+(?:with|by)\s+(.{1,40})/i, pick: (m) => [undefined, m[1], m[2]!] },
  { re: /\b(?:switch|mov|migrat|chang|convert|upgrad|downgrad)\w*\s+(?:(.{1,40}?)\s+)?(?:over\s+)?to\s+(.{1,40})/i, pick: (m) => [m[1], undefined, m[2]!] },
  { re: /(\S+(?:\s+\S+){0,2})\s+(?:instead of|rather than)\s+(.{1,40})/i, pick: (m) => [undefined, m[2], m[1]!] },
  { re: /\bprefer\w*\s+(.{1,30}?)\s+(?:over|to)\s+(.{1,40})/i, pick: (m) => [undefined, m[2], m[1]!] },
];

function change(t: string): SubjectValue | null {
  for (const { re, pick } of CHANGES) {
    const m = re.exec(t);
    if (!m) continue;
    const [object, from, rawTo] = pick(m);
    const to = clause(rawTo);
    const target = known(to);
    if (target) return { subject: target.subject, value: target.value };
    const source = from ? known(clause(from)) : null;
    if (source) return { subject: source.subject, value: norm(to) };
    const obj = norm(object);
    if (obj && !/\b(?:it|them|this|that|everything)\b/i.test(object ?? '')) return { subject: obj, value: norm(to) };
  }
  return null;
}

const CASES = /\b(camel|snake|kebab|pascal|screaming[ _-]snake|upper|lower)[ _-]?case\b/i;
const NAMED_THINGS =
  /\b(files?|folders?|directories|directory|components?|functions?|methods?|variables?|class(?:es)?|types?|interfaces?|branch(?:es)?|constants?|columns?|tables?|env(?:ironment)? var(?:iable)?s?|tests?|routes?|endpoints?|packages?|modules?|hooks?)\b/i;

function naming(t: string): SubjectValue | null {
  const m = CASES.exec(t);
  if (!m) return null;
  const thing = NAMED_THINGS.exec(t)?.[1];
  const key = thing ? norm(thing, 1) : null;
  return { subject: key ? `${key} naming` : 'naming', value: m[1]!.toLowerCase().replace(/[ _-]/g, '') };
}

const Y_IS_X = /\b(?:the|our|my)\s+([a-z][\w -]{1,30}?)\s+(?:is|are)\s+(?:now\s+|still\s+|currently\s+)?([\w.:@/+-]+)/i;
const Y_ALIASES: ReadonlyArray<[RegExp, string]> = [
  [/^(?:database|db|datastore|data store)$/, 'db'],
  [/^(?:test runner|test framework|testing framework)$/, 'test runner'],
  [/^package manager$/, 'package manager'],
];

function theYIsX(t: string, original: string): SubjectValue | null {
  const m = Y_IS_X.exec(t);
  if (!m) return null;
  const y = m[1]!.toLowerCase().trim();
  const x = m[2]!.replace(/[.]+$/, '');
  const alias = Y_ALIASES.find(([re]) => re.test(y))?.[1];
  const what = known(x);
  if (what) {
    if (what.scoped && alias !== what.subject) return { subject: `${what.subject} for ${norm(y)}`, value: what.value };
    return { subject: what.subject, value: what.value };
  }
  // Only value-like words: "The default branch is `main`", not "the database is reset".
  const valueLike = /\d|[./:@]/.test(x) || /^[A-Z]/.test(x) || original.includes('`' + x + '`');
  if (!valueLike) return null;
  const subject = alias ?? norm(y);
  return subject ? { subject, value: x.toLowerCase() } : null;
}

const USE_VERB =
  /\b(?:use|uses|using|used|with|adopt\w*|on|via|through|prefer\w*|like|love|hate|standardi[sz]e on|stick with|follow|follows|in|is|are)\s+(?:\w+\s+){0,2}$/i;

/** A known tool counts only as the object of a use-like verb: "run `npm run lint`" is not about npm. */
function mentioned(t: string): SubjectValue | null {
  const m = mentions(t).find((x) => USE_VERB.test(t.slice(Math.max(0, x.index - 40), x.index)));
  return m ? { subject: m.key, value: m.value } : null;
}
