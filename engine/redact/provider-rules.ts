/**
 * More provider tokens recognizable by their own format (prefixes and fixed shapes published by
 * each provider or by secret scanners). Kept apart from token-rules.ts, which holds the cloud and
 * VCS formats; both run before the context and assignment rules, so their types win.
 */
import { regexRule, type Found, type SecretRule } from './rule.js';

const L = '(?<![A-Za-z0-9_-])';
const R = '(?![A-Za-z0-9_-])';

function token(type: string, body: string): SecretRule {
  return regexRule(type, new RegExp(`${L}(?:${body})${R}`, 'g'));
}

/**
 * A token whose distinctive part comes after a fixed-length head (`<32 hex>-us12`,
 * `<14 alnum>.atlasv1.<…>`): find the distinctive part, then check the head before it. A regex
 * starting with the head would be tried at every position of every long word.
 */
function headed(type: string, head: RegExp, headLength: number, rest: RegExp): SecretRule {
  const pattern = new RegExp(rest.source, 'g');
  return {
    type,
    find(text) {
      const out: Found[] = [];
      pattern.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = pattern.exec(text)) !== null) {
        const start = m.index - headLength;
        if (start >= 0 && head.test(text.slice(start, m.index)) && !/[A-Za-z0-9_-]/.test(text[start - 1] ?? '')) out.push({ start, end: m.index + m[0].length });
      }
      return out;
    },
  };
}

export const PROVIDER_RULES: readonly SecretRule[] = [
  // PuTTY private key files: from the header to the MAC line (or the end, when cut).
  regexRule('private_key', /PuTTY-User-Key-File-\d+:[^\n]*\n[\s\S]*?(?:Private-MAC:[^\n]*|$)/g),
  token('age_secret_key', 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}'),
  // Anchored on the rare `-us<dc>` suffix, then 32 hex before it (a hex-first regex would try every hex run).
  headed('mailchimp_key', /^[0-9a-f]{32}$/, 32, /-us\d{1,2}(?![A-Za-z0-9_-])/),
  token('mailgun_key', 'key-[0-9a-f]{32}'),
  token('pypi_token', 'pypi-AgE[A-Za-z0-9_-]{50,}'),
  token('docker_token', 'dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}'),
  regexRule('okta_token', /\bSSWS\s+(00[A-Za-z0-9_-]{38,})/g, { groups: [1] }),
  token('shopify_token', 'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}'),
  token('discord_token', '[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}'),
  regexRule('discord_webhook', /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/([A-Za-z0-9_-]{30,})/g, { groups: [1] }),
  token('telegram_token', '\\d{8,10}:AA[A-Za-z0-9_-]{32,34}'),
  token('vault_token', 'hv[sbr]\\.[A-Za-z0-9_-]{24,}'),
  token('atlassian_token', 'ATATT3[A-Za-z0-9_=-]{100,}|ATCTT3[A-Za-z0-9_=-]{100,}'),
  token('grafana_token', 'glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}'),
  token('onepassword_token', 'ops_eyJ[A-Za-z0-9+/=_-]{50,}'),
  token('twilio_key', 'SK[0-9a-f]{32}'),
  token('square_token', 'sq0(?:atp|csp|idp)-[A-Za-z0-9_-]{22,43}|EAAA[A-Za-z0-9_-]{60}'),
  token('braintree_token', 'access_token\\$production\\$[0-9a-z]{16}\\$[0-9a-f]{32}'),
  token('digitalocean_token', 'do[opr]_v1_[a-f0-9]{64}'),
  token('linear_key', 'lin_(?:api|oauth)_[A-Za-z0-9]{40}'),
  token('notion_token', 'ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}'),
  token('figma_token', 'figd_[A-Za-z0-9_-]{40,}'),
  token('postman_key', 'PMAK-[a-f0-9]{24}-[a-f0-9]{34}'),
  token('databricks_token', 'dapi[a-f0-9]{32}(?:-\\d)?'),
  token('doppler_token', 'dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9]{40,44}'),
  token('pulumi_token', 'pul-[a-f0-9]{40}'),
  headed('terraform_token', /^[A-Za-z0-9]{14}$/, 14, /\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_=-])/),
  token('newrelic_key', 'NR(?:AK|II|JS)-[A-Za-z0-9]{27,32}'),
  token('sentry_token', 'sntry[su]_[A-Za-z0-9+/=_-]{40,}'),
  token('flyio_token', 'fo1_[A-Za-z0-9_-]{43}|fm2_[A-Za-z0-9+/=_-]{40,}'),
  token('supabase_key', 'sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,}'),
  token('replicate_token', 'r8_[A-Za-z0-9]{37}'),
  token('groq_key', 'gsk_[A-Za-z0-9]{48,52}'),
  token('xai_key', 'xai-[A-Za-z0-9]{70,90}'),
  token('perplexity_key', 'pplx-[A-Za-z0-9]{48}'),
  token('google_refresh_token', '1//0[A-Za-z0-9_-]{40,}'),
  token('airtable_token', 'pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}'),
  token('contentful_token', 'CFPAT-[A-Za-z0-9_-]{43}'),
  token('dynatrace_token', 'dt0c01\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}'),
  token('mapbox_token', 'sk\\.eyJ[A-Za-z0-9_-]{20,}\\.[A-Za-z0-9_-]{20,}'),
  token('buildkite_token', 'bkua_[a-f0-9]{40}'),
  token('circleci_token', 'CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}'),
  token('netlify_token', 'nfp_[A-Za-z0-9]{36}'),
  token('render_key', 'rnd_[A-Za-z0-9]{32}'),
  token('prefect_key', 'pnu_[A-Za-z0-9]{36}'),
  token('langsmith_key', 'lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}'),
  token('pinecone_key', 'pcsk_[A-Za-z0-9]{5,6}_[A-Za-z0-9]{50,}'),
  token('tailscale_key', 'tskey-(?:auth|api|client|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}'),
  token('resend_key', 're_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}'),
  token('adafruit_key', 'aio_[A-Za-z0-9]{28}'),
  token('salesforce_token', '00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}'),
  token('cloudflare_origin_key', 'v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}'),
  token('elevenlabs_key', 'sk_[a-f0-9]{48}'),
  token('clickup_token', 'pk_\\d{6,10}_[A-Z0-9]{32}'),
  token('heroku_key', 'HRKU-[A-Za-z0-9_-]{60}'),
];
