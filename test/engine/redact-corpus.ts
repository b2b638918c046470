/**
 * Planted-secret corpus for the redactor. Every value is fake (most carry FAKE or EXAMPLE) but
 * has the format of the real thing, so a rule that stops matching real secrets fails here.
 *
 * A case: `input` as it would reach the service, `secret` the substring that must not survive,
 * `type` the placeholder type expected in the output.
 */
export interface SecretCase {
  name: string;
  input: string;
  secret: string;
  type: string;
}

const PEM_BODY = 'I42+41IBoS3oK+NfCYhaAMBrGLPpa/FAKE3wqWDTjYf3c6jO2Z1LoZcPv6Ul3nF3';
const PEM_BODY2 = 'ZkYNRCQvjoySSsEnsGzwtjw/75POEXAMPLEt4i84MJhTjN75ehVKjlX7f5yP8th5';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlLXVzZXItMTIzIiwibmFtZSI6IkV4YW1wbGUgT25seSIsImlhdCI6MTcwMDAwMDAwMH0.PWL63moB35D0R6Z1mO2FAKEOGVt8ilkl3mVqhQp0T2g';
const JWT2 =
  'eyJhbGciOiJSUzI1NiIsImtpZCI6ImZha2UifQ.eyJpc3MiOiJodHRwczovL2F1dGguZXhhbXBsZS5jb20iLCJzdWIiOiI0MiJ9.KNTnBt9CnSVoJC2dIdxINRSFAKEaxsZisdlBW16RuVNPkgtugk';
const AZURE_KEY = 'q8vH2BzNZV45pFCiRcDCajhDieQjEJ+Bq8F80ymFAKEKEYm3T207gmhZRnFyy5r2xJ7Fj4mgblEv0+9BZhvWaX==';
const AZURE_KEY2 = 'H6K2+tyLBhhOhg9uhkxiiEZpFfk1OHAOEHYqM6OEXAMPLEjb6mjBHqSiFVKu4MbMnrHontIKARAH+Ggl2JfaQq==';

function pem(label: string, body: string, closed = true): string {
  const lines = [`-----BEGIN ${label}-----`, body, body.split('').reverse().join(''), body.slice(0, 40)];
  if (closed) lines.push(`-----END ${label}-----`);
  return lines.join('\n');
}

export const SECRET_CASES: readonly SecretCase[] = [
  // AWS
  { name: 'aws access key id in export', input: 'export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE', secret: 'AKIAIOSFODNN7EXAMPLE', type: 'aws_access_key' },
  { name: 'aws temporary key id in prose', input: 'The job used ASIA9OUDOCFAKEUZRENU from the dev profile and then failed.', secret: 'ASIA9OUDOCFAKEUZRENU', type: 'aws_access_key' },
  { name: 'aws secret in credentials file', input: '[default]\nregion = eu-west-1\naws_secret_access_key = odJFCrnl2edlBDdzFAKEKEY1C5Jau2RJtBRnlWmT\n', secret: 'odJFCrnl2edlBDdzFAKEKEY1C5Jau2RJtBRnlWmT', type: 'aws_secret_key' },
  { name: 'aws secret in sts json', input: '{"Credentials": {"AccessKeyId": "ASIA9OUDOCFAKEUZRENU", "SecretAccessKey": "SHf6pWkLUyifDLkDEXAMPLEmWJ6UuVTAIjvFu7WI"}}', secret: 'SHf6pWkLUyifDLkDEXAMPLEmWJ6UuVTAIjvFu7WI', type: 'aws_secret_key' },
  // GCP
  { name: 'gcp api key in code', input: 'const maps = new Maps({ key: "AIzaB-Y6sHrFH2ZUCr-FAKElgotu2iXW7GboIRo" });', secret: 'AIzaB-Y6sHrFH2ZUCr-FAKElgotu2iXW7GboIRo', type: 'gcp_api_key' },
  { name: 'gcp api key in env', input: 'GOOGLE_MAPS_API_KEY=AIzaL3u6aHwnMztVuaEXAMPLEP_coUNEhEkk_iq', secret: 'AIzaL3u6aHwnMztVuaEXAMPLEP_coUNEhEkk_iq', type: 'gcp_api_key' },
  {
    name: 'gcp service account private key',
    input: `{\n  "type": "service_account",\n  "project_id": "demo-fake",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n${PEM_BODY}\\n-----END PRIVATE KEY-----\\n",\n  "client_email": "ci@demo-fake.iam.gserviceaccount.com"\n}`,
    secret: PEM_BODY,
    type: 'gcp_service_account',
  },
  { name: 'gcp service account key id', input: '"private_key_id": "3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a",', secret: '3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a', type: 'gcp_service_account' },
  { name: 'gcp oauth access token', input: 'gcloud printed ya29.1m_0JeVB44EUmVThYJyp6lBcgQFqFAKEAiABDQsaJsqGwodqbTEPcwHgq1oi for the session', secret: 'ya29.1m_0JeVB44EUmVThYJyp6lBcgQFqFAKEAiABDQsaJsqGwodqbTEPcwHgq1oi', type: 'gcp_oauth_token' },
  { name: 'gcp oauth client secret', input: 'client id is 123-fake.apps.googleusercontent.com, secret GOCSPX-85Un5CfM6dh9FAKEZ2n_4jkPsiqJ', secret: 'GOCSPX-85Un5CfM6dh9FAKEZ2n_4jkPsiqJ', type: 'gcp_client_secret' },
  // Azure
  { name: 'azure storage connection string', input: `AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=devstorefake;AccountKey=${AZURE_KEY};EndpointSuffix=core.windows.net"`, secret: AZURE_KEY, type: 'azure_connection_string' },
  { name: 'azure storage key', input: `AZURE_STORAGE_KEY: "${AZURE_KEY2}"`, secret: AZURE_KEY2, type: 'azure_storage_key' },
  { name: 'azure service bus connection string', input: 'Endpoint=sb://fake-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=Hu42bojteVs3qfNUfTAFAKEFnT0tEuw0dwQ0FIunWe8=', secret: 'Hu42bojteVs3qfNUfTAFAKEFnT0tEuw0dwQ0FIunWe8=', type: 'azure_connection_string' },
  { name: 'azure sas url', input: 'curl "https://fakeacct.blob.core.windows.net/backups/db.tar?sv=2022-11-02&sp=r&se=2030-01-01&sig=om06Dwt0Y3oobQmzvrFAKE3e9XrwPGzR1Iv8bh4q%2BlL9qcg%3D"', secret: 'om06Dwt0Y3oobQmzvrFAKE3e9XrwPGzR1Iv8bh4q', type: 'azure_sas_token' },
  // GitHub
  { name: 'github classic pat in clone url', input: 'git clone https://ghp_MBwUYuBMGhy5KmqcFAKETBaH7ZIRU8VVQmxB@github.com/acme/app.git', secret: 'ghp_MBwUYuBMGhy5KmqcFAKETBaH7ZIRU8VVQmxB', type: 'github_token' },
  { name: 'github oauth token in yaml', input: 'env:\n  GITHUB_TOKEN: gho_e8Q6vNuQ2hU5tGtQFAKEAuzSsJimAQ8yRV5l\n', secret: 'gho_e8Q6vNuQ2hU5tGtQFAKEAuzSsJimAQ8yRV5l', type: 'github_token' },
  { name: 'github user token in prose', input: 'I pasted ghu_NKtzJ1atsnBYLMPuFAKEDCCRnGEY59YVkQfs into the app config by mistake.', secret: 'ghu_NKtzJ1atsnBYLMPuFAKEDCCRnGEY59YVkQfs', type: 'github_token' },
  { name: 'github app token in remote url', input: 'origin https://x-access-token:ghs_GQONvf08WpRtoZmjFAKEbcpEN2XeDA4OKmTS@github.com/acme/app (fetch)', secret: 'ghs_GQONvf08WpRtoZmjFAKEbcpEN2XeDA4OKmTS', type: 'github_token' },
  { name: 'github refresh token', input: 'refresh with ghr_yFzpjPSa5W3X4gXBFAKEolZ9SHDdJp62hDiZ before it expires', secret: 'ghr_yFzpjPSa5W3X4gXBFAKEolZ9SHDdJp62hDiZ', type: 'github_token' },
  { name: 'github fine-grained pat', input: 'gh auth login --with-token <<< github_pat_11379U2619FAKE2K42QPR7_FOprCeTsprvu5IfijoySjTneAAvFAKEIDAdn1Ay5XL8Sb24WKyEa8wtWy25', secret: 'github_pat_11379U2619FAKE2K42QPR7_FOprCeTsprvu5IfijoySjTneAAvFAKEIDAdn1Ay5XL8Sb24WKyEa8wtWy25', type: 'github_token' },
  // GitLab
  { name: 'gitlab pat in npmrc', input: '//gitlab.example.com/api/v4/projects/12/packages/npm/:_authToken=glpat-1C_CI3_dFAKEXRZv7qdY', secret: 'glpat-1C_CI3_dFAKEXRZv7qdY', type: 'gitlab_token' },
  { name: 'gitlab pat in remote url', input: 'git remote set-url origin https://oauth2:glpat-LKQbfPBiFAKE3Dldqyun@gitlab.com/acme/app.git', secret: 'glpat-LKQbfPBiFAKE3Dldqyun', type: 'gitlab_token' },
  // Slack
  { name: 'slack bot token', input: 'SLACK_BOT_TOKEN=xoxb-755646417080-5310033092327-QhK8nDSqXxFAKEkMM9VThX0k', secret: 'xoxb-755646417080-5310033092327-QhK8nDSqXxFAKEkMM9VThX0k', type: 'slack_token' },
  { name: 'slack user token in curl', input: 'curl -H "Authorization: Bearer xoxp-419049663193-149190586518-5067165726284-987241c281864afake94f9052422a0c1" https://slack.com/api/auth.test', secret: 'xoxp-419049663193-149190586518-5067165726284-987241c281864afake94f9052422a0c1', type: 'slack_token' },
  { name: 'slack legacy app token', input: 'token xoxa-2-678377701436-SptQLxEJHwFAKEBVJvwSDrtq is from the old app', secret: 'xoxa-2-678377701436-SptQLxEJHwFAKEBVJvwSDrtq', type: 'slack_token' },
  { name: 'slack webhook', input: 'Alerts post to https://hooks.slack.com/services/TOHMUH8LM/BN4R7SGMSOX/ltaTIircdJFAKEsS8iO3WFg3 when CI fails.', secret: 'ltaTIircdJFAKEsS8iO3WFg3', type: 'slack_webhook' },
  // Stripe
  { name: 'stripe live secret key', input: "stripe.api_key = 'sk_live_aKsEECvl9dFAKEq83Eh0ezFe'", secret: 'sk_live_aKsEECvl9dFAKEq83Eh0ezFe', type: 'stripe_key' },
  { name: 'stripe test key in env', input: 'STRIPE_SECRET_KEY=sk_test_KORdjjZK8tFAKEfphJWAMMYN', secret: 'sk_test_KORdjjZK8tFAKEfphJWAMMYN', type: 'stripe_key' },
  { name: 'stripe restricted key', input: 'use the restricted key rk_live_oXHyC6Ct3LFAKEBtKNdN9Vg8 for the reporting job', secret: 'rk_live_oXHyC6Ct3LFAKEBtKNdN9Vg8', type: 'stripe_key' },
  { name: 'stripe webhook secret', input: 'endpoint secret: whsec_WnOnqQfkplJekaFAKEACSMEscosTsS3D', secret: 'whsec_WnOnqQfkplJekaFAKEACSMEscosTsS3D', type: 'stripe_key' },
  // OpenAI / Anthropic
  { name: 'openai project key', input: 'OPENAI_API_KEY=sk-proj-jDHz2oCtIsjhvNK4p7MZI-FAKE4kf3PGdlDcIfw84Jx3_l8SAvuQg2kvAS', secret: 'sk-proj-jDHz2oCtIsjhvNK4p7MZI-FAKE4kf3PGdlDcIfw84Jx3_l8SAvuQg2kvAS', type: 'openai_key' },
  { name: 'openai legacy key in python', input: "openai.api_key = 'sk-FsQ8z0WJFAKEcDfuquhXT3BlbkFJz3G0aQ3IDAdmHxNWFOCW'", secret: 'sk-FsQ8z0WJFAKEcDfuquhXT3BlbkFJz3G0aQ3IDAdmHxNWFOCW', type: 'openai_key' },
  { name: 'openai service account key', input: 'The eval runner authenticates with sk-svcacct-gAIqK4_pdEuNb0lCo7FAKEpt-LI198F6sXyriJ1R.', secret: 'sk-svcacct-gAIqK4_pdEuNb0lCo7FAKEpt-LI198F6sXyriJ1R', type: 'openai_key' },
  { name: 'anthropic key in env', input: 'export ANTHROPIC_API_KEY="sk-ant-api03-IaKM_t59SQW6PyEXD0fO8WXt-eqQFAKEm4m6bs0tj8HRYkQWO_eiEKDl3mm4-kSt5bcAA"', secret: 'sk-ant-api03-IaKM_t59SQW6PyEXD0fO8WXt-eqQFAKEm4m6bs0tj8HRYkQWO_eiEKDl3mm4-kSt5bcAA', type: 'anthropic_key' },
  { name: 'anthropic key in header', input: 'curl https://api.anthropic.com/v1/messages -H "x-api-key: sk-ant-api03-PhLTV3sF0xvwkWE-sDFAKE7G6Gb7Kuj4SM2G6MzXAA"', secret: 'sk-ant-api03-PhLTV3sF0xvwkWE-sDFAKE7G6Gb7Kuj4SM2G6MzXAA', type: 'anthropic_key' },
  // Other providers
  { name: 'npm automation token', input: '//registry.npmjs.org/:_authToken=npm_2EgpyKwKsSsb1QzrFAKEaK3RXVd6MVF155sX', secret: 'npm_2EgpyKwKsSsb1QzrFAKEaK3RXVd6MVF155sX', type: 'npm_token' },
  { name: 'hugging face token', input: 'huggingface-cli login --token hf_ZoMZwoOmNqRWUXQFAKER1iOg5OPctYCcLx', secret: 'hf_ZoMZwoOmNqRWUXQFAKER1iOg5OPctYCcLx', type: 'huggingface_token' },
  { name: 'sendgrid key', input: 'SENDGRID=SG.qlLP1wzqUFAKEIvG9LRo7j.sCYUlYbHp6VHWVnD8dPFAKECi7M0orfeM-omErX6V1t', secret: 'SG.qlLP1wzqUFAKEIvG9LRo7j.sCYUlYbHp6VHWVnD8dPFAKECi7M0orfeM-omErX6V1t', type: 'sendgrid_key' },
  // Private keys
  { name: 'rsa private key', input: `Here is the deploy key:\n${pem('RSA PRIVATE KEY', PEM_BODY)}\nadd it to the server.`, secret: PEM_BODY, type: 'private_key' },
  { name: 'openssh private key', input: pem('OPENSSH PRIVATE KEY', PEM_BODY2), secret: PEM_BODY2, type: 'private_key' },
  { name: 'ec private key', input: `key.pem:\n${pem('EC PRIVATE KEY', PEM_BODY)}`, secret: PEM_BODY.slice(0, 40), type: 'private_key' },
  { name: 'pgp private key block', input: pem('PGP PRIVATE KEY BLOCK', PEM_BODY2), secret: PEM_BODY2, type: 'private_key' },
  { name: 'encrypted pkcs8 key', input: pem('ENCRYPTED PRIVATE KEY', PEM_BODY), secret: PEM_BODY, type: 'private_key' },
  { name: 'truncated private key', input: `cat id_ed25519\n${pem('PRIVATE KEY', PEM_BODY2, false)}`, secret: PEM_BODY2, type: 'private_key' },
  // JWT
  { name: 'jwt in query string', input: `GET /callback?token=${JWT}&state=xyz 302`, secret: JWT, type: 'jwt' },
  { name: 'jwt in cookie', input: `Set-Cookie: session=${JWT2}; Path=/; HttpOnly`, secret: JWT2, type: 'jwt' },
  { name: 'jwt as bearer', input: `Authorization: Bearer ${JWT}`, secret: JWT, type: 'jwt' },
  // Passwords and secrets in assignments
  { name: 'env password', input: 'DB_PASSWORD=hunter2-Fake!', secret: 'hunter2-Fake!', type: 'password' },
  { name: 'yaml quoted password', input: 'database:\n  user: app\n  password: "correct horse battery fake"\n', secret: 'correct horse battery fake', type: 'password' },
  { name: 'yaml bare password', input: 'redis:\n  host: cache\n  password: letmein\n', secret: 'letmein', type: 'password' },
  { name: 'json password', input: '{"username": "admin", "password": "Adm1n-fake-2024"}', secret: 'Adm1n-fake-2024', type: 'password' },
  { name: 'cli flag with equals', input: 'mysql -u root --password=S3cr3tFake shop < dump.sql', secret: 'S3cr3tFake', type: 'password' },
  { name: 'cli flag with space', input: 'docker login --username ci --password Fake-Pa55word registry.example.com', secret: 'Fake-Pa55word', type: 'password' },
  { name: 'export token', input: 'export API_TOKEN=tok_9fJ2kL0pQ7sXfake', secret: 'tok_9fJ2kL0pQ7sXfake', type: 'password' },
  { name: 'yaml client secret', input: 'oauth:\n  client_id: web-app\n  client_secret: 7Fz9q-FAKE-x2LmN0pR4tV8\n', secret: '7Fz9q-FAKE-x2LmN0pR4tV8', type: 'password' },
  { name: 'js api key constant', input: 'const apiKey = "a1b2c3d4e5f6FAKE7890";', secret: 'a1b2c3d4e5f6FAKE7890', type: 'password' },
  { name: 'pgpassword prefix', input: 'PGPASSWORD=FakePgPass42 psql -h db.internal -U app', secret: 'FakePgPass42', type: 'password' },
  { name: 'single-quoted access token', input: "ACCESS_TOKEN='at-5f1e0c9a-FAKE'", secret: 'at-5f1e0c9a-FAKE', type: 'password' },
  { name: 'django secret key', input: "SECRET_KEY = 'django-insecure-fake-^x2q9!k0w@z'", secret: 'django-insecure-fake-^x2q9!k0w@z', type: 'password' },
  { name: 'go short assignment', input: 'dbPassword := "Go-Fake-Passw0rd"', secret: 'Go-Fake-Passw0rd', type: 'password' },
  { name: 'php array', input: "'password' => 'php-fake-pass-99',", secret: 'php-fake-pass-99', type: 'password' },
  { name: 'xml element', input: '<datasource><username>app</username><password>xmlFakePass77</password></datasource>', secret: 'xmlFakePass77', type: 'password' },
  { name: 'netrc', input: 'machine api.example.com login deploy password netrcFake123', secret: 'netrcFake123', type: 'password' },
  { name: 'api key header', input: 'curl -H "X-API-Key: 8f14e45fceea167a5a36dedd4bea2543" https://api.example.com/v1/items', secret: '8f14e45fceea167a5a36dedd4bea2543', type: 'password' },
  { name: 'token in query string', input: 'https://api.example.com/export?format=csv&access_token=q1w2e3r4FAKEt5y6&limit=10', secret: 'q1w2e3r4FAKEt5y6', type: 'password' },
  // Generic high-entropy values under weak names
  { name: 'high-entropy auth value', input: 'SENTRY_AUTH=Zx9fK2mQ7vL0pR4tW8yB3nC6', secret: 'Zx9fK2mQ7vL0pR4tW8yB3nC6', type: 'generic_secret' },
  { name: 'high-entropy salt', input: 'ENCRYPTION_SALT="q8Vn2LwP5zR1xT7kM4cJ9hB6"', secret: 'q8Vn2LwP5zR1xT7kM4cJ9hB6', type: 'generic_secret' },
  { name: 'hex signing key', input: 'webhook_signature: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', secret: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', type: 'generic_secret' },
  // Credentials in URLs and connection strings
  { name: 'https basic credentials', input: 'registry: https://deploy:Fake-Passw0rd@registry.example.com/v2/', secret: 'Fake-Passw0rd', type: 'url_credentials' },
  { name: 'ftp credentials', input: 'wget ftp://backup:ftpFake99@files.example.org/dump.tar', secret: 'ftpFake99', type: 'url_credentials' },
  { name: 'pip index credentials', input: 'pip install --index-url https://__token__:pypiFakeToken123@pypi.example.com/simple acme-client', secret: 'pypiFakeToken123', type: 'url_credentials' },
  { name: 'postgres url', input: 'DATABASE_URL=postgres://app:pgFakePass1@db.internal:5432/app', secret: 'pgFakePass1', type: 'connection_string' },
  { name: 'mongodb srv url', input: 'mongoose.connect("mongodb+srv://admin:M0ngoFake!@cluster0.abcde.mongodb.net/test")', secret: 'M0ngoFake!', type: 'connection_string' },
  { name: 'redis url without user', input: 'REDIS_URL=redis://:redisFakePw9@cache:6379/0', secret: 'redisFakePw9', type: 'connection_string' },
  { name: 'amqp url', input: 'broker: amqp://guest:rabbitFake77@mq.internal:5672/', secret: 'rabbitFake77', type: 'connection_string' },
  { name: 'mysql url with dollar', input: 'mysql://root:my$qlFake@127.0.0.1:3306/shop', secret: 'my$qlFake', type: 'connection_string' },
  { name: 'password containing at sign', input: 'postgresql://svc:p@ssFake9@db:5432/x?sslmode=require', secret: 'p@ssFake9', type: 'connection_string' },
  { name: 'ado connection string', input: 'Server=tcp:sql.example.net,1433;Initial Catalog=shop;User ID=app;Password=AdoFake#2024;Encrypt=True;', secret: 'AdoFake#2024', type: 'connection_string' },
  // Authorization headers
  { name: 'bearer token in curl', input: 'curl -H "Authorization: Bearer b4e6efff8b7518fa4e3811390588367f" https://api.example.com/me', secret: 'b4e6efff8b7518fa4e3811390588367f', type: 'bearer_token' },
  { name: 'token scheme header', input: "headers: { Authorization: 'Token 9a8b7c6d5e4f3a2b1c0dFAKE' }", secret: '9a8b7c6d5e4f3a2b1c0dFAKE', type: 'bearer_token' },
  { name: 'basic auth header', input: 'Authorization: Basic ZGVwbG95OmZha2UtcGFzc3dvcmQ=', secret: 'ZGVwbG95OmZha2UtcGFzc3dvcmQ=', type: 'basic_auth' },
  // <private> spans
  { name: 'private span', input: 'My address is <private>12 Example Road, Faketown</private> for the invoice template.', secret: '12 Example Road', type: 'private' },
  { name: 'private span multi-line, mixed case', input: 'notes:\n<PRIVATE>\nbank: FAKE-BANK\niban: XX00 0000 0000\n</Private>\nend', secret: 'iban: XX00', type: 'private' },
  { name: 'unclosed private span', input: 'public part. <private> everything after this is personal: diagnosis fake-123', secret: 'diagnosis fake-123', type: 'private' },
  { name: 'nested private spans', input: '<private>outer <private>inner</private> tail-secret</private> visible', secret: 'tail-secret', type: 'private' },
];

/** Benign developer text that must come out of the redactor unchanged. */
export const BENIGN_TEXTS: readonly string[] = [
  'commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the race in the flush scheduler',
  "Merge branch 'main' into feature/password-reset (abc1234)",
  'memory_id 0192f3a4-5b6c-7d8e-9f0a-1b2c3d4e5f6a was superseded by 0192f3a4-5b6c-7d8e-9f0a-1b2c3d4e5f6b',
  'We bumped typescript from 5.4.5 to 5.9.3 and eslint to 9.39.5; @types/node stays at 20.19.43.',
  'Edit src/auth/token-store.ts and test/auth/password-policy.test.ts, then run the suite.',
  'The password reset flow sends an email with a one-time link that expires in 15 minutes.',
  'const token = await getToken(req);\nif (!token) return res.status(401).end();',
  "if (password !== confirmPassword) throw new Error('passwords do not match');",
  'max_tokens: 4096\n"token_count": 128\nTOKEN_TTL_SECONDS=3600',
  'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
  '      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}',
  'export GITHUB_TOKEN=$GH_TOKEN\nexport API_KEY="${API_KEY:-}"',
  'services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: ${DB_PASSWORD}',
  'const apiKey = process.env.OPENAI_API_KEY;\nconst secret = config.get("jwt.secret");',
  'Set the API_KEY environment variable before running the CLI; see docs/auth.md.',
  'cache_key = "user:42:profile"\nsort_key: created_at\nprimary_key = ["id"]',
  'echo aGVsbG8gd29ybGQ= | base64 -d',
  'See https://github.com/acme/app/pull/1234 or clone git@github.com:acme/app.git',
  'DATABASE_URL=postgres://app@db.internal:5432/app and locally postgres://localhost:5432/app',
  '<input type="password" name="password" placeholder="Password" autocomplete="current-password">',
  'The Authorization header must be "Bearer <token>"; a Bearer token is issued at login.',
  'kind: Secret\nmetadata:\n  name: db-credentials\ntype: Opaque',
  'The .sk-button-primary-large-rounded class is defined in theme.css.',
  'Rotate the Slack token every 90 days; the token: see the team vault.',
  'Password: must be at least 12 characters long and is checked against the breach list.',
  'image: node@sha256:5f1e0c9a2b3d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789ab',
  "key: ${{ runner.os }}-node-${{ hashFiles('**/package-lock.json') }}",
  'def check_password(password: str) -> bool:\n    return bcrypt.checkpw(password.encode(), stored_hash)',
  'function login(user: string, password: string, opts?: { token: string; apiKey?: string }) {}',
  'We moved to passwordless login via magic links; the session cookie is HttpOnly.',
  'GOOGLE_APPLICATION_CREDENTIALS=./secrets/service-account.json',
  'Already redacted: password=[REDACTED:password] and https://ci:[REDACTED:url_credentials]@repo.example.com',
  // Setup instructions with the placeholders a guide writes (blind-46, dotfiles-ab98e7b7, the assistant's .env).
  'SLACK_BOT_TOKEN=xoxb-your-bot-token\nSLACK_APP_TOKEN=xapp-your-app-token\nSTRIPE_SECRET_KEY=sk_test_your_key_here',
];
