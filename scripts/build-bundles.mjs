// Bundles what must run without node_modules (Node 18+, node: built-ins only), after `tsc` in
// `npm run build`:
// - the hook scripts: one self-contained CommonJS file per hook in dist/hooks-bundle/;
// - the Claude Code plugin in dist/plugin/: the static files of plugin/ (manifests, hooks.json,
//   commands, agent), the hook bundles in hooks/, and the MCP server bundled into mcp/server.cjs.
//   Nothing in it reaches outside the folder, and nothing needs installing.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const common = { bundle: true, platform: 'node', target: 'node18', format: 'cjs', minify: false, legalComments: 'none', logLevel: 'warning' };

/**
 * Every `require("…")` call of a bundle must be a node: built-in. (Calls spelled inside string
 * literals, like the code ajv generates for its standalone mode, are not calls.)
 */
function assertSelfContained(file) {
  const text = fs.readFileSync(file, 'utf8');
  const bad = [...text.matchAll(/(?<![\w.$'"`])require\("([^"]+)"\)/g)].map((m) => m[1]).filter((m) => !m.startsWith('node:'));
  if (bad.length > 0) throw new Error(`${path.relative(root, file)} requires ${[...new Set(bad)].join(', ')}: bundles may only use node: built-ins`);
}

// ---------------------------------------------------------------- hooks
const hooks = fs.readdirSync(path.join(root, 'hooks')).filter((f) => f.endsWith('.ts'));
const hooksOut = path.join(root, 'dist', 'hooks-bundle');
fs.rmSync(hooksOut, { recursive: true, force: true });
await build({ ...common, entryPoints: hooks.map((f) => path.join(root, 'hooks', f)), outdir: hooksOut, outExtension: { '.js': '.cjs' } });
for (const f of fs.readdirSync(hooksOut)) assertSelfContained(path.join(hooksOut, f));

// ---------------------------------------------------------------- plugin
// tsc also compiles plugin/*.ts into dist/plugin (for type checking); the built plugin replaces it.
const src = path.join(root, 'plugin');
const out = path.join(root, 'dist', 'plugin');
fs.rmSync(out, { recursive: true, force: true });
fs.cpSync(src, out, { recursive: true, filter: (from) => !from.endsWith('.ts') });
fs.rmSync(path.join(out, 'mcp'), { recursive: true, force: true });
for (const f of fs.readdirSync(hooksOut)) fs.copyFileSync(path.join(hooksOut, f), path.join(out, 'hooks', f));

// The MCP server loads only `node:` built-ins and hooks/lib (Claude Code waits for it before the
// first request of `claude -p`), bundled like the hooks into one file.
await build({
  ...common,
  entryPoints: [path.join(src, 'mcp', 'server.ts')],
  outfile: path.join(out, 'mcp', 'server.cjs'),
});
assertSelfContained(path.join(out, 'mcp', 'server.cjs'));
