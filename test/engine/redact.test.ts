import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsSecret, redact } from '../../engine/index.js';
import { BENIGN_TEXTS, SECRET_CASES } from './redact-corpus.js';

describe('redact: planted-secret corpus', () => {
  it('has at least 60 planted secrets and 20 benign texts', () => {
    assert.ok(SECRET_CASES.length >= 60, `corpus has ${SECRET_CASES.length} cases`);
    assert.ok(BENIGN_TEXTS.length >= 20, `benign set has ${BENIGN_TEXTS.length} texts`);
  });

  for (const c of SECRET_CASES) {
    it(`removes the secret and marks its type: ${c.name}`, () => {
      assert.ok(c.input.includes(c.secret), 'the case plants its secret');
      const out = redact(c.input);
      assert.ok(!out.text.includes(c.secret), `secret survived in: ${out.text}`);
      assert.ok(out.text.includes(`[REDACTED:${c.type}]`), `expected [REDACTED:${c.type}] in: ${out.text}`);
      const at = c.input.indexOf(c.secret);
      const covering = out.findings.find((f) => f.start <= at && f.end >= at + c.secret.length);
      assert.ok(covering, 'a finding covers the secret, in input coordinates');
      assert.equal(covering.type, c.type);
      assert.equal(containsSecret(c.input), true);
    });
  }
});

describe('redact: false positives', () => {
  for (const text of BENIGN_TEXTS) {
    it(`leaves benign text unchanged: ${text.slice(0, 60).replace(/\n/g, '⏎')}`, () => {
      const out = redact(text);
      assert.equal(out.text, text);
      assert.deepEqual(out.findings, []);
      assert.equal(containsSecret(text), false);
    });
  }
});

describe('redact: contract', () => {
  it('is idempotent over the whole corpus', () => {
    for (const c of SECRET_CASES) {
      const once = redact(c.input).text;
      const twice = redact(once);
      assert.equal(twice.text, once, `second pass changed: ${c.name}`);
      assert.deepEqual(twice.findings, [], `second pass found something: ${c.name}`);
    }
  });

  it('keeps scheme, user and host of a URL and redacts only the password', () => {
    const out = redact('pull from https://deploy:Fake-Passw0rd@registry.example.com/v2/ now');
    assert.equal(out.text, 'pull from https://deploy:[REDACTED:url_credentials]@registry.example.com/v2/ now');
  });

  it('keeps the host of a URL whose user name looks like a secret name', () => {
    const out = redact('origin https://x-access-token:ghs_GQONvf08WpRtoZmjFAKEbcpEN2XeDA4OKmTS@github.com/acme/app (fetch)');
    assert.equal(out.text, 'origin https://x-access-token:[REDACTED:github_token]@github.com/acme/app (fetch)');
    const lab = redact('https://oauth2:glpat-LKQbfPBiFAKE3Dldqyun@gitlab.com/acme/app.git');
    assert.equal(lab.text, 'https://oauth2:[REDACTED:gitlab_token]@gitlab.com/acme/app.git');
  });

  it('keeps the key of an assignment and redacts only its value', () => {
    assert.equal(redact('DB_PASSWORD=hunter2-Fake!').text, 'DB_PASSWORD=[REDACTED:password]');
    assert.equal(redact('{"password": "Adm1n-fake-2024"}').text, '{"password": "[REDACTED:password]"}');
  });

  it('reports findings in input coordinates and in order', () => {
    const input = 'a ghp_MBwUYuBMGhy5KmqcFAKETBaH7ZIRU8VVQmxB b <private>x</private> c AKIAIOSFODNN7EXAMPLE';
    const out = redact(input);
    assert.deepEqual(
      out.findings.map((f) => [f.type, input.slice(f.start, f.end)]),
      [
        ['github_token', 'ghp_MBwUYuBMGhy5KmqcFAKETBaH7ZIRU8VVQmxB'],
        ['private', '<private>x</private>'],
        ['aws_access_key', 'AKIAIOSFODNN7EXAMPLE'],
      ],
    );
    assert.equal(out.text, 'a [REDACTED:github_token] b [REDACTED:private] c [REDACTED:aws_access_key]');
  });

  it('merges overlapping finds into one placeholder of the most specific type', () => {
    const out = redact('GITHUB_TOKEN=ghp_MBwUYuBMGhy5KmqcFAKETBaH7ZIRU8VVQmxB');
    assert.equal(out.text, 'GITHUB_TOKEN=[REDACTED:github_token]');
    assert.equal(out.findings.length, 1);
  });

  it('redacts base64 key material that begins with a slash (not a path), and keeps real paths', () => {
    // Random base64 starts with "/" one time in 64: it was taken for an absolute path and kept.
    // Several slashes and no long run between them (one time in ~3,000 for 44 characters) read as a path too.
    for (const material of ['/x0lJy84KZJxoDJz+wXeRLFxFz8Ek+DQ4F3PoywXh/XR', '/c5Z8RP/BoZU0sx6MrJ3i4xeg6/pndIHA+1su3fFt2La']) {
      const out = redact(`{"keyset": {"primary": 1, "material": "${material}", "type": "AES256_GCM"}}`).text;
      assert.ok(!out.includes(material), out);
    }
    for (const p of ['/home/user/.cache/models--Xenova--all-MiniLM-L6-v2/snapshots/main/onnx/model.onnx', '/usr/include/c++/12/bits/stl_vector.h']) {
      const text = `model_path = "${p}"\ninclude_dir: ${p}`;
      assert.equal(redact(text).text, text);
    }
    for (const text of ['secret_key: /Users/John2/Projects/MyApp3/keys/deployKey', 'API_KEY_FILE=/var/lib/AppData/Keys/ProdKey2']) assert.equal(redact(text).text, text);
  });

  it('redacts the secret column of a credentials CSV whatever was pasted before its header or after its row', () => {
    const secret = 'aPz/DbVy5OD966xS1Ir5cQk7Xh2LmN0pRsTuVwYz';
    const csv = `User name,Password,Access key ID,Secret access key,Console login link\ndeploy-bot,,AKIA4BIBTSXXG35BY1ZN,${secret},https://123456789012.signin.aws.amazon.com/console`;
    for (const text of [csv, `{"a":1,"b":2} pasted ${csv} and more, with commas, after it`]) {
      const out = redact(text).text;
      assert.ok(!out.includes(secret), out);
      assert.ok(out.includes('[REDACTED:aws_secret_key]'), out);
    }
    // An access key id beside its secret, as `id,secret` lists hold them, with no header at all.
    assert.ok(!redact(`AKIA4BIBTSXXG35BY1ZN,${secret}`).text.includes(secret));
  });

  it('swallows secrets inside a private span into the private placeholder', () => {
    const out = redact('<private>AKIAIOSFODNN7EXAMPLE</private>');
    assert.equal(out.text, '[REDACTED:private]');
    assert.deepEqual(out.findings.map((f) => f.type), ['private']);
  });

  it('returns the very same text and no findings when there is nothing to redact', () => {
    const text = 'We use pnpm workspaces and vitest.';
    assert.deepEqual(redact(text), { text, findings: [] });
  });
});

describe('redact: speed', () => {
  // Time is a benchmark's business (the machine may be busy); what a test can hold is the shape:
  // four times the text costs about four times as much (quadratic would be sixteen), measured side
  // by side, plus a bound that only a pathological regex would reach.
  function timeMs(text: string): number {
    redact(text);
    // The fastest of seven runs: load from other processes only ever adds time.
    let best = Infinity;
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      redact(text);
      best = Math.min(best, performance.now() - t0);
    }
    return best;
  }

  function assertLinear(full: string, label: string): void {
    const quarter = full.slice(0, Math.floor(full.length / 4));
    let why = '';
    // Up to three tries: a busy machine can slow one measurement, quadratic time slows them all.
    for (let attempt = 0; attempt < 3; attempt++) {
      const small = timeMs(quarter);
      const big = timeMs(full);
      const ratio = big / Math.max(small, 0.05);
      if (ratio < 10 && big < 2000) return;
      why = `${label}: ${full.length} characters took ${big.toFixed(1)} ms, a quarter of them ${small.toFixed(1)} ms (${ratio.toFixed(1)}×; linear is ~4×, quadratic 16×)`;
    }
    assert.fail(why);
  }

  it('redacts 100 KB of mixed developer text in linear time', () => {
    const chunk = [...BENIGN_TEXTS, ...SECRET_CASES.map((c) => c.input)].join('\n');
    assertLinear(chunk.repeat(Math.ceil(100_000 / chunk.length)).slice(0, 100_000), 'mixed text');
  });

  it('stays linear on adversarial input', () => {
    const inputs = [
      'password='.repeat(11_000),
      '-----BEGIN PRIVATE KEY-----'.repeat(3_500),
      'a'.repeat(100_000),
      'https://u:'.repeat(10_000),
      'x_api_key_token_secret_'.repeat(4_300),
      '<private>'.repeat(11_000),
      'Authorization: Bearer '.repeat(4_500),
    ];
    for (const text of inputs) assertLinear(text, `${text.slice(0, 20)}…`);
  });
});
