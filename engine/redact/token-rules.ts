/**
 * Secrets recognizable by their own format, wherever they appear: provider tokens with fixed
 * prefixes, private key blocks, JWTs. Listed most specific first; the redactor gives an
 * earlier rule's type to spans several rules find.
 */
import { regexRule, type SecretRule } from './rule.js';
import { isPlaceholderToken } from './value-shape.js';

// Token edges: a format match must not be the middle of a longer word.
const L = '(?<![A-Za-z0-9_-])';
const R = '(?![A-Za-z0-9_-])';

function token(type: string, body: string, accept?: (v: string) => boolean): SecretRule {
  return regexRule(type, new RegExp(`${L}(?:${body})${R}`, 'g'), accept ? { accept } : {});
}

/** Random tokens mix digits with both cases; prose and kebab-case identifiers do not. */
function mixed(v: string): boolean {
  const body = v.replace(/^[a-z]+-(?:[a-z]+-)?/, '');
  return /\d/.test(body) && /[a-z]/.test(body) && /[A-Z]/.test(body);
}

const KEY_LABEL = '(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?';

export const TOKEN_RULES: readonly SecretRule[] = [
  // A service-account JSON: the key block and its id. Before private_key so the type is specific.
  regexRule('gcp_service_account', /"private_key"\s*:\s*"([^"]*BEGIN[^"]*)"/g, { groups: [1] }),
  regexRule('gcp_service_account', /"private_key_id"\s*:\s*"([0-9a-f]{16,})"/g, { groups: [1] }),
  // PEM blocks (PKCS#8, RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP). Unclosed: to the end of the text,
  // because a truncated key is still a key.
  regexRule('private_key', new RegExp(`-----BEGIN ${KEY_LABEL}-----[\\s\\S]*?(?:-----END ${KEY_LABEL}-----|$)`, 'g')),
  token('aws_access_key', '(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}'),
  regexRule(
    'aws_secret_key',
    /(?:aws[_-]?)?secret[_-]?(?:access[_-]?)?key["']?\s*(?:=>|[:=])\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    { groups: [1] },
  ),
  // An access key id and its secret side by side, as credential CSVs and `id,secret` lists hold them.
  regexRule('aws_secret_key', /\b(?:AKIA|ASIA)[A-Z0-9]{16}["']?\s*[,;:\t|]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/g, { groups: [1] }),
  token('gcp_api_key', 'AIza[0-9A-Za-z_-]{35}'),
  token('gcp_oauth_token', 'ya29\\.[0-9A-Za-z_-]{20,}'),
  token('gcp_client_secret', 'GOCSPX-[0-9A-Za-z_-]{20,}'),
  regexRule('azure_connection_string', /\b(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{20,}={0,2})/g, { groups: [1] }),
  regexRule('azure_connection_string', /\bSharedAccessSignature\s*=\s*([^;\s"']+)/g, { groups: [1] }),
  regexRule('azure_storage_key', /(?:azure|storage)[\w.-]*?key["']?\s*[:=]\s*["']?([A-Za-z0-9+/]{86}==)/gi, { groups: [1] }),
  regexRule('azure_sas_token', /\.windows\.net\/[^\s"']*?[?&]sig=([A-Za-z0-9%+/=]{20,})/g, { groups: [1] }),
  token('github_token', 'gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{40,255}'),
  token('gitlab_token', '(?:glpat|gldt|glrt|glptt|glsoat|glcbt)-[A-Za-z0-9_-]{20,}'),
  regexRule('slack_webhook', /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{10,}/g),
  // Not "xoxb-your-bot-token", the placeholder Slack's own setup guides write.
  token('slack_token', 'xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\\d-[A-Za-z0-9-]{10,}', (v) => !isPlaceholderToken(v)),
  token('stripe_key', '(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}'),
  token('anthropic_key', 'sk-ant-[A-Za-z0-9_-]{20,}'),
  token('openai_key', 'sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}', mixed),
  token('npm_token', 'npm_[A-Za-z0-9]{36}'),
  token('huggingface_token', 'hf_[A-Za-z0-9]{34}'),
  token('sendgrid_key', 'SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}'),
  token('jwt', 'eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}'),
];
