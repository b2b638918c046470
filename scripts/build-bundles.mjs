// Bundles what must run without node_modules: the hook scripts (one self-contained CommonJS file
// per hook, Node 18+, node: built-ins only). Runs after `tsc` in `npm run build`.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const hooks = fs.readdirSync(path.join(root, 'hooks')).filter((f) => f.endsWith('.ts'));
const outdir = path.join(root, 'dist', 'hooks-bundle');
fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: hooks.map((f) => path.join(root, 'hooks', f)),
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
});
// The bundles must not reach outside node: built-ins.
for (const f of fs.readdirSync(outdir)) {
  const text = fs.readFileSync(path.join(outdir, f), 'utf8');
  const bad = [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]).filter((m) => !m.startsWith('node:'));
  if (bad.length > 0) throw new Error(`${f} requires ${bad.join(', ')}: hooks may only use node: built-ins`);
}
