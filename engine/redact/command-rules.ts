/**
 * Credentials that stand where commands and people put them rather than in a recognizable
 * format: passwords on command lines (`curl -u user:pass`, `mysql -pSECRET`, `sshpass -p`),
 * secrets stated in prose ("the password is …"), an AWS console credentials CSV, `.netrc`
 * entries spread over lines, and the auth token that follows a Twilio account SID.
 */
import { regexRule, type Found, type SecretRule } from './rule.js';
import { isLiteralValue, looksSecretish } from './value-shape.js';

// A command-line value: up to whitespace or a quote; quotes around it are skipped.
const ARG = `["']?([^\\s"'\`]{3,256})`;

function literal(v: string): boolean {
  return isLiteralValue(v) && !v.startsWith('-');
}

/** "the password is …": only values that look machine-made or contain a digit or symbol. */
function proseValue(v: string): boolean {
  return v.length >= 6 && isLiteralValue(v) && looksSecretish(v) && !/^\d{1,4}$/.test(v) && !/^https?:/.test(v);
}

const CSV_SECRET_COLUMNS = /^(?:password|secret access key|secret_access_key|client secret|api secret)$/i;

/**
 * A CSV whose header names a password or secret column (the AWS console's credentials file:
 * `User name,Password,Access key ID,Secret access key,Console login link`): the values under
 * those columns, row by row, until a blank line.
 */
const CSV_RULE: SecretRule = {
  type: 'password',
  find(text) {
    const out: Found[] = [];
    const lines = text.split('\n');
    let offset = 0;
    let header: string[] | null = null;
    for (const line of lines) {
      const cells = line.split(',');
      if (cells.length >= 2 && cells.some((c) => CSV_SECRET_COLUMNS.test(c.trim()))) {
        header = cells.map((c) => c.trim());
      } else if (header && line.trim() === '') {
        header = null;
      } else if (header && cells.length >= 2) {
        // A row lines up with the header from the left, or, when text was pasted before the
        // header on its line (its own commas too), from the right: the cells under a secret
        // column either way are taken.
        const h = header;
        const shift = h.length - cells.length;
        const nameOf = (i: number): string | undefined => (CSV_SECRET_COLUMNS.test(h[i] ?? '') ? h[i] : shift > 0 && CSV_SECRET_COLUMNS.test(h[i + shift] ?? '') ? h[i + shift] : undefined);
        let at = offset;
        cells.forEach((cell, i) => {
          const v = cell.trim().replace(/^"|"$/g, '');
          const name = nameOf(i);
          if (name && v.length >= 3) {
            const start = at + cell.indexOf(v);
            out.push({ start, end: start + v.length, type: /secret/i.test(name) ? 'aws_secret_key' : 'password' });
          }
          at += cell.length + 1;
        });
      }
      offset += line.length + 1;
    }
    return out;
  },
};

export const COMMAND_RULES: readonly SecretRule[] = [
  // curl/wget/http -u user:password, --user user:password, --user=user:password
  regexRule('password', new RegExp(`(?:^|\\s)(?:-u|--user|--proxy-user)[ =]+["']?[^\\s:"'\`]*:([^\\s"'\`@]{3,256})`, 'g'), { groups: [1], accept: literal }),
  // mysql -pSECRET (no space: that is how mysql reads it)
  regexRule('password', /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport)\b[^\n|;&]*?\s-p([^\s"'`-][^\s"'`]{2,255})/g, { groups: [1], accept: literal }),
  regexRule('password', new RegExp(`\\bsshpass\\s+(?:-[a-oq-zA-Z]\\S*\\s+)*-p\\s*${ARG}`, 'g'), { groups: [1], accept: literal }),
  regexRule('password', new RegExp(`\\bredis-cli\\b[^\\n|;&]*?\\s-a\\s+${ARG}`, 'g'), { groups: [1], accept: literal }),
  regexRule('password', new RegExp(`\\b(?:docker|podman|helm|buildah|skopeo|oras)\\s+(?:registry\\s+)?login\\b[^\\n|;&]*?\\s-p\\s+${ARG}`, 'g'), { groups: [1], accept: literal }),
  regexRule('password', new RegExp(`\\bhtpasswd\\s+(?:-\\w+\\s+)*?-\\w*b\\w*\\s+(?:-\\w+\\s+)*\\S+\\s+\\S+\\s+${ARG}`, 'g'), { groups: [1], accept: literal }),
  regexRule('password', /\b(?:smbclient|rpcclient|net\s+use)\b[^\n]*?(?:-U\s+|\/user:)[^\s%]+[%\s]([^\s"'`]{3,256})/g, { groups: [1], accept: literal }),
  regexRule('password', new RegExp(`\\b(?:psql|pg_dump|mongosh?|mongodump|mongorestore)\\b[^\\n|;&]*?\\s(?:-p|--password)\\s+${ARG}`, 'g'), { groups: [1], accept: literal }),
  // Twilio: the 32-hex auth token written after the account SID (`Client("AC…", "…")`, `-u AC…:…`).
  regexRule('twilio_key', /\bAC[0-9a-f]{32}\b[^\n]{0,40}?(?<![0-9a-f])([0-9a-f]{32})(?![0-9a-f])/g, { groups: [1] }),
  // .netrc over several lines: machine host / login me / password s3cret
  regexRule('password', /\bmachine\s+\S+(?:\s+(?:login|account)\s+\S+)*\s+password\s+([^\s]+)/g, { groups: [1], accept: isLiteralValue }),
  // Prose: "the staging password is hunter2!", "my API token for prod: abc123…"
  regexRule(
    'password',
    /(?<![\w-])(?:password|passphrase|passcode|passwd|pwd|pin code|api[ _-]?key|api token|access token|secret key|secret|token)\b(?:\s+(?:for|of|on|to|in)(?:\s+[\w.@-]{1,40}){1,3})?\s*(?:\bis\b|\bwas\b|\bwill be\b|=|:|→|->)\s*["'`“]?([^\s"'`”,;@/]*[^\s"'`”,;@/.!?:)])(?![@/])/gi,
    { groups: [1], accept: proseValue },
  ),
  CSV_RULE,
];
