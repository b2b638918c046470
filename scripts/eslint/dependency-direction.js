// ESLint rule: dependencies between top-level folders point one way (DESIGN.md §2).
// A relative import that leaves its folder must target an allowed folder, and only
// through that folder's public entry file (index.ts), unless listed in `entries`.
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

/** folder -> folders it may import (besides itself). */
const allowed = {
  engine: [],
  api: ['engine'],
  sync: ['engine'],
  daemon: ['engine', 'api', 'sync'],
  server: ['engine', 'api'],
  hooks: [],
  tui: ['daemon'],
  // The plugin ships the hooks; its MCP server shares their zero-dependency socket client.
  plugin: ['daemon', 'engine', 'hooks'],
  cli: ['engine', 'api', 'daemon', 'server', 'sync', 'tui', 'plugin', 'hooks'],
};

/** Public entry files of a folder other folders may import. */
const entries = {
  daemon: ['daemon/index.ts', 'daemon/client.ts', 'daemon/process-env.ts'],
  hooks: ['hooks/lib/http.ts', 'hooks/lib/paths.ts', 'hooks/lib/run.ts', 'hooks/lib/settings.ts'],
};

/** Files that must import nothing of ours (and, for hooks, no package either). */
const isolated = ['daemon/client.ts', 'daemon/client-types.ts', 'daemon/process-env.ts'];

function topFolder(file) {
  const rel = path.relative(root, file);
  if (rel.startsWith('..')) return null;
  return rel.split(path.sep)[0];
}

export default {
  rules: {
    'dependency-direction': {
      meta: { type: 'problem', schema: [] },
      create(context) {
        const file = context.filename;
        const from = topFolder(file);
        if (!from || !(from in allowed)) return {};
        const relFile = path.relative(root, file);
        function check(node, source) {
          if (typeof source !== 'string') return;
          if (from === 'hooks' && !source.startsWith('node:') && !source.startsWith('.')) {
            context.report({ node, message: `hooks/ may only import node: built-ins, not '${source}'` });
            return;
          }
          if (!source.startsWith('.')) return;
          const target = path.resolve(path.dirname(file), source).replace(/\.js$/, '.ts');
          const to = topFolder(target);
          if (!to) return;
          const relTarget = path.relative(root, target);
          if (isolated.includes(relFile) && !isolated.includes(relTarget.replace(/\.tsx$/, '.ts'))) {
            context.report({ node, message: `${relFile} must import nothing of ours (it is loaded by thin clients)` });
            return;
          }
          if (to === from) return;
          if (!allowed[from].includes(to)) {
            context.report({ node, message: `${from}/ may not import ${to}/ (DESIGN.md §2: ${from} → ${allowed[from].join(', ') || 'nothing of ours'})` });
            return;
          }
          const publicFiles = entries[to] ?? [`${to}/index.ts`];
          if (!publicFiles.includes(relTarget)) {
            context.report({ node, message: `import ${to}/ through its entry file (${publicFiles.join(' or ')}), not ${relTarget}` });
          }
          if (from === 'tui' && relTarget !== 'daemon/client.ts') {
            context.report({ node, message: 'tui/ reaches the daemon only through daemon/client.ts' });
          }
        }
        return {
          ImportDeclaration: (node) => check(node, node.source.value),
          ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
          ExportAllDeclaration: (node) => check(node, node.source.value),
          ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
        };
      },
    },
  },
};
