/**
 * The npm package: `npm pack` gives a tarball that installs globally into a clean prefix with the
 * built CLI (`service-cli`), plugin and hooks, no checkout needed. A fake system `service` command
 * comes first on PATH, as Debian's does: the installed plugin's slash commands must not run it,
 * and `plugin status` must fail once the CLI it recorded is missing or not ours.
 * The install takes its tarballs from the npm cache `npm ci` filled (--prefer-offline: only package
 * metadata may come from the registry).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run, testEnv } from '../helpers/daemon.js';
import { repoRoot, tempDir } from '../helpers/tmp.js';

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

interface Status {
  checks: { id: string; level: string; summary: string }[];
}

describe('the npm package', () => {
  const root = tempDir('pack-');
  const prefix = path.join(root, 'prefix');
  const sbin = path.join(root, 'sbin');
  const work = path.join(root, 'elsewhere');
  const home = path.join(root, 'home');
  let tarball = '';
  let env: NodeJS.ProcessEnv;
  const installedCli = (): string => path.join(prefix, 'lib', 'node_modules', 'memory-service', 'dist', 'cli', 'main.js');
  const serviceCli = (args: string[], extra: NodeJS.ProcessEnv = {}): ReturnType<typeof run> => run(path.join(prefix, 'bin', 'service-cli'), args, { env: { ...env, ...extra }, cwd: work, timeoutMs: 120_000 });

  before(async () => {
    const packed = await npm(['pack', '--json', '--pack-destination', root], repoRoot());
    assert.equal(packed.code, 0, packed.stderr);
    const info = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(root, info[0]!.filename);
    const files = info[0]!.files.map((f) => f.path);
    for (const f of ['dist/cli/main.js', 'dist/plugin/.claude-plugin/plugin.json', 'dist/plugin/hooks/hooks.json', 'dist/plugin/mcp/server.cjs', 'dist/hooks-bundle/stop.cjs', 'dist/daemon/daemon.js', 'README.md']) assert.ok(files.includes(f), `the tarball holds ${f}`);
    assert.ok(!files.some((f) => f.startsWith('dist/test/') || f.endsWith('.map')), 'no tests or source maps in the tarball');

    fs.mkdirSync(sbin, { recursive: true });
    fs.writeFileSync(path.join(sbin, 'service'), '#!/bin/sh\necho "system service: $*"\nexit 1\n', { mode: 0o755 });
    fs.mkdirSync(work, { recursive: true });
    fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
    // onnxruntime-node's install script would fetch GPU binaries from outside the registry.
    const installed = await npm(['install', '--global', tarball, '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], root, { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' });
    assert.equal(installed.code, 0, installed.stderr);
    const base = testEnv(path.join(root, 'data'), { HOME: home });
    delete base.SERVICE_CLI;
    // The fake system `service` first, then the npm prefix; no Claude Code, no checkout.
    base.PATH = [sbin, path.join(prefix, 'bin'), path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
    env = base;
  });
  after(async () => {
    if (fs.existsSync(path.join(prefix, 'bin', 'service-cli'))) await serviceCli(['daemon', 'stop']);
  });

  it('installs service-cli, and nothing named service', async () => {
    assert.deepEqual(fs.readdirSync(path.join(prefix, 'bin')), ['service-cli']);
    const v = await serviceCli(['--version']);
    assert.equal(v.code, 0, v.stderr);
    assert.equal(v.stdout.trim(), (JSON.parse(fs.readFileSync(repoRoot('package.json'), 'utf8')) as { version: string }).version);
  });

  it('installs the plugin from the package, pinned to the installed CLI, and works without the checkout', async () => {
    const inst = await serviceCli(['plugin', 'install', 'claude-code']);
    assert.equal(inst.code, 0, inst.stdout + inst.stderr);
    const dir = path.join(root, 'data', 'plugins', 'claude-code');
    const service = JSON.parse(fs.readFileSync(path.join(dir, 'service.json'), 'utf8')) as { cli: string; node: string };
    assert.equal(fs.realpathSync(service.cli), fs.realpathSync(installedCli()));
    for (const f of fs.readdirSync(path.join(dir, 'commands'))) {
      const text = fs.readFileSync(path.join(dir, 'commands', f), 'utf8');
      assert.doesNotMatch(text, /(^|[\s`(!])service (search|remember|forget|pause|resume|plugin|status)\b/m, `${f} never runs \`service\` from PATH`);
      if (/Bash\(/.test(text)) assert.ok(text.includes(`${service.cli} `), `${f} runs ${service.cli}`);
    }
    // The pinned command line of /memory:status runs our CLI even with the system `service` first on PATH.
    const status = fs.readFileSync(path.join(dir, 'commands', 'status.md'), 'utf8');
    const line = /!`([^`]+)`/.exec(status)![1]!;
    const ran = await run('/bin/sh', ['-c', `${line} --json`], { env, cwd: work, timeoutMs: 120_000 });
    assert.doesNotMatch(ran.stdout, /system service/);
    const s = JSON.parse(ran.stdout) as Status;
    assert.equal(s.checks.find((c) => c.id === 'plugin')?.level, 'ok', JSON.stringify(s.checks));
    const cmd = s.checks.find((c) => c.id === 'command');
    assert.equal(cmd?.level, 'info');
    assert.match(cmd!.summary, new RegExp(`\`service\` on PATH is ${path.join(sbin, 'service')}, not this CLI`));

    const remembered = await serviceCli(['remember', 'We ship the package as a tarball installed with npm i -g.']);
    assert.equal(remembered.code, 0, remembered.stderr);
    const found = await serviceCli(['search', 'tarball npm', '--scope', 'user', '--json']);
    assert.equal(found.code, 0, found.stderr);
  });

  it('plugin status fails when the recorded CLI is missing or not ours', async () => {
    const dir = path.join(root, 'data', 'plugins', 'claude-code');
    const file = path.join(dir, 'service.json');
    const original = fs.readFileSync(file, 'utf8');
    const stranger = path.join(root, 'other', 'dist', 'cli', 'main.js');
    fs.mkdirSync(path.dirname(stranger), { recursive: true });
    fs.writeFileSync(stranger, 'console.log("hello")\n');
    fs.writeFileSync(path.join(root, 'other', 'package.json'), JSON.stringify({ name: 'something-else', version: '1.0.0' }));
    try {
      for (const [cli, why] of [
        [path.join(root, 'gone', 'main.js'), /names a CLI that is not there/],
        [stranger, /not the memory-service CLI/],
      ] as const) {
        fs.writeFileSync(file, JSON.stringify({ ...(JSON.parse(original) as object), cli }));
        const r = await serviceCli(['plugin', 'status', '--json']);
        assert.equal(r.code, 1, r.stdout);
        const plugin = (JSON.parse(r.stdout) as Status).checks.find((c) => c.id === 'plugin');
        assert.equal(plugin?.level, 'fail');
        assert.match(plugin!.summary, why);
      }
    } finally {
      fs.writeFileSync(file, original);
    }
  });

  it('runs from the tarball with npx, offline, in a clean npx cache, prefix and HOME', async () => {
    // A fresh npm cache in a temp dir: its index is a copy of the one `npm ci` filled (so the
    // dependencies resolve offline) and its content store is that cache's, read through a link;
    // nothing of memory-service is in it, and --offline forbids every request.
    const userCache = (await npm(['config', 'get', 'cache'], root)).stdout.trim();
    const cache = path.join(root, 'npx-cache');
    fs.mkdirSync(path.join(cache, '_cacache'), { recursive: true });
    fs.cpSync(path.join(userCache, '_cacache', 'index-v5'), path.join(cache, '_cacache', 'index-v5'), { recursive: true });
    fs.symlinkSync(path.join(userCache, '_cacache', 'content-v2'), path.join(cache, '_cacache', 'content-v2'));
    const npxHome = path.join(root, 'npx-home');
    const cwd = path.join(root, 'npx-cwd');
    for (const d of [npxHome, cwd]) fs.mkdirSync(d, { recursive: true });
    const registry = (await npm(['config', 'get', 'registry'], root)).stdout.trim();
    const env: NodeJS.ProcessEnv = {
      PATH: [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
      HOME: npxHome,
      npm_config_cache: cache,
      npm_config_prefix: path.join(root, 'npx-prefix'),
      npm_config_registry: registry,
      npm_config_update_notifier: 'false',
      ONNXRUNTIME_NODE_INSTALL: 'skip',
    };
    const r = await run('npx', ['--offline', '--yes', '--package', tarball, '--', 'service-cli', '--version'], { env, cwd, timeoutMs: 600_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), (JSON.parse(fs.readFileSync(repoRoot('package.json'), 'utf8')) as { version: string }).version);
    assert.ok(fs.readdirSync(path.join(cache, '_npx')).length > 0, 'npx installed it into the clean cache');
  });
});
