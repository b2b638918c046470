/**
 * Planted secrets generated at run time: token-shaped random values of many kinds (the shapes
 * providers publish), each embedded in the kind of session text it turns up in (a prompt, a
 * command, a tool's output, a config file, an assistant message). Nothing live-looking is
 * committed: every value is drawn from crypto.randomBytes when the test runs.
 *
 * Also a false-positive corpus: hashes, UUIDs, base64 images, lockfiles, ARNs, digests and
 * ordinary developer prose that must come through redaction byte for byte.
 */
import { randomBytes, randomInt } from 'node:crypto';

const AN = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
const B64 = `${AN}+/`;
const URL64 = `${AN}_-`;
const DIGITS = '0123456789';
const BECH = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

/** `n` random characters of `alphabet`, with at least one digit, one lower and one upper where the alphabet has them. */
export function rnd(alphabet: string, n: number): string {
  for (;;) {
    const bytes = randomBytes(n);
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[bytes[i]! % alphabet.length];
    const need = [/[0-9]/, /[a-z]/, /[A-Z]/].filter((re) => re.test(alphabet));
    if (n < 8 || need.every((re) => re.test(s))) return s;
  }
}

/** Where the text reaches the service: a hook event or a direct write. */
export type Channel = 'prompt' | 'command' | 'output' | 'stop' | 'remember' | 'rest';

export interface PlantedSecret {
  kind: string;
  /** The substring that must not survive anywhere on disk. */
  secret: string;
  /** The realistic text around it. */
  text: string;
  channel: Channel;
}

type Maker = () => { secret: string; text: string; channel: Channel };

const pem = (label: string): { secret: string; body: string } => {
  const body = Array.from({ length: 6 }, () => rnd(B64, 64)).join('\n');
  return { secret: body.split('\n')[2]!, body: `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----` };
};

const jwt = (): string =>
  `${Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ sub: rnd(DIGITS, 8), iat: 1_700_000_000 + randomInt(1e6) })).toString('base64url')}.${rnd(URL64, 43)}`;

/** One maker per kind: value shape plus the context it is typically pasted in. */
const KINDS: Record<string, Maker> = {
  aws_access_key: () => {
    const s = `AKIA${rnd(UP, 16)}`;
    return { secret: s, text: `AWS_ACCESS_KEY_ID=${s}\nAWS_DEFAULT_REGION=eu-west-1`, channel: 'output' };
  },
  aws_secret_key: () => {
    const s = rnd(B64, 40);
    return { secret: s, text: `[default]\naws_access_key_id = AKIA${rnd(UP, 16)}\naws_secret_access_key = ${s}\n`, channel: 'output' };
  },
  aws_console_csv: () => {
    const s = rnd(B64, 40);
    return { secret: s, text: `User name,Password,Access key ID,Secret access key,Console login link\ndeploy-bot,,AKIA${rnd(UP, 16)},${s},https://123456789012.signin.aws.amazon.com/console`, channel: 'output' };
  },
  gcp_api_key: () => {
    const s = `AIza${rnd(URL64, 35)}`;
    return { secret: s, text: `const maps = new google.maps.Map(el, { key: "${s}" });`, channel: 'command' };
  },
  gcp_oauth_token: () => {
    const s = `ya29.${rnd(URL64, 120)}`;
    return { secret: s, text: `$ gcloud auth print-access-token\n${s}`, channel: 'output' };
  },
  github_pat: () => {
    const s = `ghp_${rnd(AN, 36)}`;
    return { secret: s, text: `can you push with this token ${s} ? the old one expired`, channel: 'prompt' };
  },
  github_fine_grained: () => {
    const s = `github_pat_${rnd(AN, 22)}_${rnd(AN, 59)}`;
    return { secret: s, text: `export GH_TOKEN=${s}\ngh pr list`, channel: 'command' };
  },
  gitlab_token: () => {
    const s = `glpat-${rnd(URL64, 20)}`;
    return { secret: s, text: `git remote set-url origin https://oauth2:${s}@gitlab.com/acme/shop.git`, channel: 'command' };
  },
  slack_bot_token: () => {
    const s = `xoxb-${rnd(DIGITS, 12)}-${rnd(DIGITS, 13)}-${rnd(AN, 24)}`;
    return { secret: s, text: `SLACK_BOT_TOKEN=${s}`, channel: 'output' };
  },
  slack_webhook: () => {
    const s = rnd(AN, 24);
    return { secret: s, text: `Alerts go to https://hooks.slack.com/services/T${rnd(UP, 8)}/B${rnd(UP, 10)}/${s} when the deploy fails.`, channel: 'stop' };
  },
  stripe_key: () => {
    const s = `sk_live_${rnd(AN, 24)}`;
    return { secret: s, text: `stripe.api_key = '${s}'`, channel: 'output' };
  },
  openai_key: () => {
    const s = `sk-proj-${rnd(URL64, 48)}`;
    return { secret: s, text: `OPENAI_API_KEY=${s} python eval.py`, channel: 'command' };
  },
  anthropic_key: () => {
    const s = `sk-ant-api03-${rnd(URL64, 86)}AA`;
    return { secret: s, text: `I set ANTHROPIC_API_KEY to ${s} in my shell.`, channel: 'prompt' };
  },
  npm_token: () => {
    const s = `npm_${rnd(AN, 36)}`;
    return { secret: s, text: `//registry.npmjs.org/:_authToken=${s}`, channel: 'output' };
  },
  huggingface_token: () => {
    const s = `hf_${rnd(AN, 34)}`;
    return { secret: s, text: `huggingface-cli login --token ${s}`, channel: 'command' };
  },
  sendgrid_key: () => {
    const s = `SG.${rnd(URL64, 22)}.${rnd(URL64, 43)}`;
    return { secret: s, text: `SENDGRID_API_KEY: "${s}"`, channel: 'output' };
  },
  jwt: () => {
    const s = jwt();
    return { secret: s, text: `{"access_token":"${s}","expires_in":3600}`, channel: 'output' };
  },
  rsa_private_key: () => {
    const k = pem('RSA PRIVATE KEY');
    return { secret: k.secret, text: `$ cat deploy/id_rsa\n${k.body}`, channel: 'output' };
  },
  openssh_private_key: () => {
    const k = pem('OPENSSH PRIVATE KEY');
    return { secret: k.secret, text: `here is the key for the bastion:\n${k.body}`, channel: 'prompt' };
  },
  postgres_url: () => {
    const s = rnd(AN, 18);
    return { secret: s, text: `DATABASE_URL=postgres://app:${s}@db.internal:5432/shop`, channel: 'output' };
  },
  mongodb_url: () => {
    const s = rnd(AN, 16);
    return { secret: s, text: `mongosh "mongodb+srv://admin:${s}@cluster0.ab1cd.mongodb.net/prod"`, channel: 'command' };
  },
  redis_url: () => {
    const s = rnd(AN, 20);
    return { secret: s, text: `REDIS_URL=rediss://default:${s}@cache.example.net:6380`, channel: 'output' };
  },
  basic_auth_header: () => {
    const s = Buffer.from(`svc:${rnd(AN, 14)}`).toString('base64');
    return { secret: s, text: `curl -H "Authorization: Basic ${s}" https://ci.example.com/api/json`, channel: 'command' };
  },
  bearer_header: () => {
    const s = rnd(URL64, 40);
    return { secret: s, text: `> GET /v2/items HTTP/1.1\n> Authorization: Bearer ${s}\n< HTTP/1.1 200 OK`, channel: 'output' };
  },
  mailchimp_key: () => {
    const s = `${rnd(HEX, 32)}-us${randomInt(1, 21)}`;
    return { secret: s, text: `MAILCHIMP_KEY=${s}`, channel: 'output' };
  },
  pypi_token: () => {
    const s = `pypi-AgEIcHlwaS5vcmc${rnd(URL64, 70)}`;
    return { secret: s, text: `twine upload dist/* -u __token__ -p ${s}`, channel: 'command' };
  },
  docker_pat: () => {
    const s = `dckr_pat_${rnd(URL64, 27)}`;
    return { secret: s, text: `echo ${s} | docker login -u acme --password-stdin`, channel: 'command' };
  },
  putty_key: () => {
    const s = rnd(B64, 64);
    return {
      secret: s,
      text: `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n${rnd(B64, 64)}\n${rnd(B64, 20)}\nPrivate-Lines: 1\n${s}\nPrivate-MAC: ${rnd(HEX, 64)}`,
      channel: 'output',
    };
  },
  okta_ssws: () => {
    const s = `00${rnd(URL64, 40)}`;
    return { secret: s, text: `curl -H "Authorization: SSWS ${s}" https://acme.okta.com/api/v1/users`, channel: 'command' };
  },
  shopify_token: () => {
    const s = `shpat_${rnd(HEX, 32)}`;
    return { secret: s, text: `SHOPIFY_ADMIN_TOKEN=${s}`, channel: 'output' };
  },
  discord_bot_token: () => {
    const s = `M${rnd(URL64, 25)}.${rnd(URL64, 6)}.${rnd(URL64, 38)}`;
    return { secret: s, text: `client.login("${s}")`, channel: 'output' };
  },
  discord_webhook: () => {
    const s = rnd(URL64, 68);
    return { secret: s, text: `post the release notes to https://discord.com/api/webhooks/${rnd(DIGITS, 18)}/${s}`, channel: 'prompt' };
  },
  telegram_bot: () => {
    const s = `${rnd(DIGITS, 10)}:AA${rnd(URL64, 33)}`;
    return { secret: s, text: `TELEGRAM_BOT_TOKEN=${s}`, channel: 'output' };
  },
  vault_token: () => {
    const s = `hvs.${rnd(URL64, 90)}`;
    return { secret: s, text: `$ vault login\nToken (will be hidden):\nKey Value\n--- -----\ntoken ${s}\ntoken_accessor ${rnd(AN, 24)}`, channel: 'output' };
  },
  atlassian_token: () => {
    const s = `ATATT3${rnd(URL64, 186)}`;
    return { secret: s, text: `JIRA_API_TOKEN=${s}`, channel: 'output' };
  },
  grafana_token: () => {
    const s = `glsa_${rnd(AN, 32)}_${rnd(HEX, 8)}`;
    return { secret: s, text: `grafana service account token ${s} created`, channel: 'stop' };
  },
  onepassword_token: () => {
    const s = `ops_eyJ${rnd(URL64, 200)}`;
    return { secret: s, text: `export OP_SERVICE_ACCOUNT_TOKEN=${s}`, channel: 'command' };
  },
  twilio_positional: () => {
    const s = rnd(HEX, 32);
    return { secret: s, text: `client = Client("AC${rnd(HEX, 32)}", "${s}")`, channel: 'output' };
  },
  curl_user: () => {
    const s = `${rnd(AN, 10)}!${rnd(AN, 4)}`;
    return { secret: s, text: `curl -u deploy:${s} https://nexus.example.com/repository/`, channel: 'command' };
  },
  mysql_p: () => {
    const s = rnd(AN, 14);
    return { secret: s, text: `mysql -h db.internal -u root -p${s} shop < dump.sql`, channel: 'command' };
  },
  sshpass: () => {
    const s = rnd(AN, 12);
    return { secret: s, text: `sshpass -p ${s} ssh ops@10.0.3.4 uptime`, channel: 'command' };
  },
  redis_cli: () => {
    const s = rnd(AN, 16);
    return { secret: s, text: `redis-cli -h cache.internal -a ${s} INFO keyspace`, channel: 'command' };
  },
  docker_login_p: () => {
    const s = rnd(AN, 16);
    return { secret: s, text: `docker login registry.example.com -u ci -p ${s}`, channel: 'command' };
  },
  prose_password: () => {
    const s = `${rnd(AN, 9)}#${rnd(DIGITS, 2)}`;
    return { secret: s, text: `fyi the staging db password is ${s} — please don't commit it`, channel: 'prompt' };
  },
  prose_token: () => {
    const s = rnd(AN, 32);
    return { secret: s, text: `The API token for the reporting service: ${s}. Use it in the cron job.`, channel: 'remember' };
  },
  hmac_yaml: () => {
    const s = rnd(HEX, 64);
    return { secret: s, text: `webhooks:\n  provider: github\n  hmac: ${s}\n`, channel: 'output' };
  },
  material_json: () => {
    const s = rnd(B64, 44);
    return { secret: s, text: `{"keyset": {"primary": 1, "material": "${s}", "type": "AES256_GCM"}}`, channel: 'output' };
  },
  django_secret_key: () => {
    const s = `django-insecure-${rnd(AN, 12)}(${rnd(AN, 8)})#${rnd(AN, 14)}`;
    return { secret: s, text: `# settings.py\nDEBUG = False\nSECRET_KEY = '${s}'\nALLOWED_HOSTS = ['shop.example.com']`, channel: 'output' };
  },
  nginx_basic: () => {
    const s = Buffer.from(`upstream:${rnd(AN, 12)}`).toString('base64');
    return { secret: s, text: `location /api/ {\n    proxy_pass http://backend;\n    proxy_set_header Authorization "Basic ${s}";\n}`, channel: 'output' };
  },
  netrc: () => {
    const s = rnd(AN, 18);
    return { secret: s, text: `machine api.heroku.com\n  login ops@example.com\n  password ${s}\n`, channel: 'output' };
  },
  digitalocean_token: () => {
    const s = `dop_v1_${rnd(HEX, 64)}`;
    return { secret: s, text: `doctl auth init --access-token ${s}`, channel: 'command' };
  },
  linear_key: () => {
    const s = `lin_api_${rnd(AN, 40)}`;
    return { secret: s, text: `LINEAR_API_KEY=${s}`, channel: 'output' };
  },
  databricks_token: () => {
    const s = `dapi${rnd(HEX, 32)}`;
    return { secret: s, text: `databricks configure --token\nHost: https://adb-123.azuredatabricks.net\nToken: ${s}`, channel: 'output' };
  },
  doppler_token: () => {
    const s = `dp.st.prd.${rnd(AN, 40)}`.replace('.prd.', '.');
    return { secret: s, text: `DOPPLER_TOKEN=${s} doppler run -- npm start`, channel: 'command' };
  },
  newrelic_key: () => {
    const s = `NRAK-${rnd(UP, 27)}`;
    return { secret: s, text: `NEW_RELIC_API_KEY=${s}`, channel: 'output' };
  },
  tailscale_key: () => {
    const s = `tskey-auth-${rnd(AN, 12)}-${rnd(AN, 32)}`;
    return { secret: s, text: `tailscale up --authkey=${s}`, channel: 'command' };
  },
  age_key: () => {
    const s = `AGE-SECRET-KEY-1${rnd(BECH, 58)}`;
    return { secret: s, text: `# created: 2026-01-04T10:00:00Z\n# public key: age1${rnd(BECH.toLowerCase(), 58)}\n${s}`, channel: 'output' };
  },
  square_token: () => {
    const s = `EAAA${rnd(URL64, 60)}`;
    return { secret: s, text: `SQUARE_ACCESS_TOKEN=${s}`, channel: 'output' };
  },
  postman_key: () => {
    const s = `PMAK-${rnd(HEX, 24)}-${rnd(HEX, 34)}`;
    return { secret: s, text: `newman run collection.json --postman-api-key ${s}`, channel: 'command' };
  },
  pinecone_key: () => {
    const s = `pcsk_${rnd(AN, 6)}_${rnd(AN, 62)}`;
    return { secret: s, text: `pc = Pinecone(api_key="${s}")`, channel: 'output' };
  },
  langsmith_key: () => {
    const s = `lsv2_pt_${rnd(HEX, 32)}_${rnd(HEX, 10)}`;
    return { secret: s, text: `LANGCHAIN_API_KEY=${s}`, channel: 'output' };
  },
  supabase_key: () => {
    const s = `sbp_${rnd(HEX, 40)}`;
    return { secret: s, text: `supabase login --token ${s}`, channel: 'command' };
  },
  groq_key: () => {
    const s = `gsk_${rnd(AN, 52)}`;
    return { secret: s, text: `GROQ_API_KEY=${s}`, channel: 'output' };
  },
  env_db_password: () => {
    const s = rnd(AN, 20);
    return { secret: s, text: `DB_HOST=db.internal\nDB_USER=shop\nDB_PASSWORD=${s}\nDB_NAME=shop`, channel: 'output' };
  },
  yaml_password: () => {
    const s = `${rnd(AN, 12)}$${rnd(AN, 4)}`;
    return { secret: s, text: `spring:\n  datasource:\n    username: shop\n    password: ${s}\n`, channel: 'output' };
  },
  json_api_key: () => {
    const s = rnd(AN, 32);
    return { secret: s, text: `{"service": "maps", "apiKey": "${s}", "region": "eu"}`, channel: 'rest' };
  },
  azure_connection_string: () => {
    const s = `${rnd(B64, 86)}==`;
    return { secret: s, text: `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey=${s};EndpointSuffix=core.windows.net"`, channel: 'output' };
  },
  private_span: () => {
    const s = `${rnd(AN, 10)} ${rnd(AN, 8)}`;
    return { secret: s, text: `remember that the office door code is <private>${s}</private> for the weekend`, channel: 'remember' };
  },
  xml_password: () => {
    const s = rnd(AN, 16);
    return { secret: s, text: `<server>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>${s}</password>\n</server>`, channel: 'output' };
  },
  rest_prose_secret: () => {
    const s = `${rnd(AN, 12)}%${rnd(DIGITS, 3)}`;
    return { secret: s, text: `The wifi password for the lab is ${s}`, channel: 'rest' };
  },
};

/** At least `perKind` secrets of every kind, in a shuffled order. */
export function plantedSecrets(perKind = 3): PlantedSecret[] {
  const out: PlantedSecret[] = [];
  for (const [kind, make] of Object.entries(KINDS)) for (let i = 0; i < perKind; i++) out.push({ kind, ...make() });
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export const SECRET_KINDS = Object.keys(KINDS);

/** Text that looks token-like but is not secret: it must come through unchanged. */
export function benignCorpus(): string[] {
  const sha = (): string => rnd(HEX, 40);
  const uuid = (): string => crypto.randomUUID();
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(600)]).toString('base64');
  return [
    `commit ${sha()}\nAuthor: Dana <dana@example.com>\n\n    fix: retry the payment webhook`,
    `git log --oneline\n${sha().slice(0, 7)} feat: add search\n${sha().slice(0, 7)} chore: bump deps`,
    `request ${uuid()} failed after 3 retries; trace id ${uuid()}`,
    `sha256sum dist/app.tar.gz\n${rnd(HEX, 64)}  dist/app.tar.gz`,
    `<img src="data:image/png;base64,${png}" alt="logo">`,
    `"node_modules/express": {\n  "version": "4.19.2",\n  "resolved": "https://registry.npmjs.org/express/-/express-4.19.2.tgz",\n  "integrity": "sha512-${rnd(B64, 86)}=="\n}`,
    `express@^4.19.2:\n  version "4.19.2"\n  resolved "https://registry.yarnpkg.com/express/-/express-4.19.2.tgz#${sha()}"\n  integrity sha512-${rnd(B64, 86)}==`,
    `arn:aws:iam::123456789012:role/deploy-${rnd(AN, 6)}\narn:aws:s3:::acme-artifacts/builds/*\narn:aws:lambda:eu-west-1:123456789012:function:resize`,
    `image: ghcr.io/acme/api@sha256:${rnd(HEX, 64)}`,
    'The password reset flow sends a token by email; the token is valid for 15 minutes.',
    'We count tokens with tiktoken before sending; max_tokens is 4096 for this model.',
    'const token = await getAccessToken(); headers.Authorization = `Bearer ${token}`;',
    'password: process.env.DB_PASSWORD,\napiKey: config.get("maps.apiKey"),',
    'Set DB_PASSWORD in the .env file (see .env.example); never commit the real value.',
    `.button { color: #1f2937; background: #f9fafb; } /* build ${rnd(HEX, 8)} */`,
    `kubectl get pods -n shop\nNAME                      READY   STATUS    RESTARTS   AGE\napi-7d9f8b6c5d-x2x9k      1/1     Running   0          3d`,
    `npm ERR! code ERESOLVE\nnpm ERR! While resolving: shop@1.4.0\nnpm ERR! Found: react@18.3.1`,
    'Use the secret manager: aws secretsmanager get-secret-value --secret-id prod/shop/db',
    'The cache key is built from the user id and the locale: `${userId}:${locale}`.',
    `Fixed in PR #482 (merge ${sha().slice(0, 12)}); the flaky test was the retry timer.`,
    'https://github.com/acme/shop/pull/482/files#diff-3f2a',
    'Run: docker compose up -d postgres redis && npm run migrate',
    `etag: "W/${rnd(HEX, 32)}"`,
    'The API returns 401 when the key is missing and 403 when it lacks the scope.',
    'Our password policy: at least 12 characters, checked against the breach list.',
  ];
}
