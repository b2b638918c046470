/**
 * Secrets recognized by where they stand rather than by their own format: credentials inside
 * URLs, connection strings, Authorization headers. Only the secret part is redacted, so
 * `postgres://app:[REDACTED:connection_string]@db:5432/app` still says where the database is.
 */
import { regexRule, type SecretRule } from './rule.js';
import { isHighEntropy, isLiteralValue } from './value-shape.js';

const DB_SCHEMES = 'postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|couchdb|neo4j(?:\\+s)?';

/**
 * `scheme://user:password@host`. The password may itself contain `@` (greedy up to the last `@`
 * of the authority). `user` may be empty (`redis://:pw@host`).
 */
function urlCredentials(type: string, schemes: string): SecretRule {
  const re = new RegExp(`\\b(?:${schemes}):\\/\\/[^\\s:/?#@'"\`]*:([^\\s/'"\`<>]+)@`, 'gi');
  return regexRule(type, re, { groups: [1], accept: (v) => v.length > 0 && !v.startsWith('[REDACTED:') });
}

/** ADO.NET / ODBC style: a `Password=` field of a string that also names a server or user. */
const ADO_CONTEXT = /(?:Server|Data Source|Host|Address|Initial Catalog|Database|User ID|UID|Driver)\s*=/i;

function adoAccept(value: string, text: string, start: number): boolean {
  if (!isLiteralValue(value)) return false;
  const lineStart = text.lastIndexOf('\n', start) + 1;
  const lineEnd = text.indexOf('\n', start);
  const line = text.slice(Math.max(lineStart, start - 400), lineEnd === -1 ? Math.min(text.length, start + 400) : lineEnd);
  return ADO_CONTEXT.test(line) && line.includes(';');
}

export const CONTEXT_RULES: readonly SecretRule[] = [
  urlCredentials('connection_string', DB_SCHEMES),
  regexRule('connection_string', /(?<![\w.-])(?:Password|Pwd)\s*=\s*([^;"'\n]*[^;"'\s])/gi, { groups: [1], accept: adoAccept }),
  urlCredentials('url_credentials', '[a-z][a-z0-9+.-]{1,20}'),
  // `Authorization: Basic …`, and nginx's `proxy_set_header Authorization "Basic …";` (no colon).
  regexRule('basic_auth', /\bAuthorization["']?(?:\s*[:=]\s*|\s+)["']?Basic\s+([A-Za-z0-9+/]{8,}={0,2})/gi, { groups: [1] }),
  regexRule('bearer_token', /\bAuthorization["']?(?:\s*[:=]\s*|\s+)["']?(?:Bearer|Token)\s+([A-Za-z0-9._~+/-]{8,}=*)/gi, {
    groups: [1],
    accept: (v) => !v.startsWith('[REDACTED:'),
  }),
  // A bare `Bearer <token>` outside a header only when the token looks machine-made.
  regexRule('bearer_token', /\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)/g, { groups: [1], accept: isHighEntropy }),
  // .netrc: `machine host login me password s3cret`.
  regexRule('password', /\b(?:machine|default)\b[^\n]*?\bpassword[ \t]+([^\s]+)/gi, { groups: [1], accept: isLiteralValue }),
  // <password>…</password> and friends in XML configs.
  regexRule('password', /<([A-Za-z_:-]*?(?:password|passwd|secret|token|apikey|api_key))>([^<\n]{3,200})<\/\1>/gi, {
    groups: [2],
    accept: isLiteralValue,
  }),
];
