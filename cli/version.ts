import fs from 'node:fs';
import path from 'node:path';

/** The package version (dist/cli/version.js → ../../package.json). */
export const VERSION: string = (() => {
  try {
    const pkg = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'package.json');
    return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();
