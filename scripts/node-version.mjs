// The one check of the running Node.js against package.json's `engines`, made before anything
// else loads: an older Node.js would otherwise fail deep inside SQLite's native addon, with a
// crash instead of a sentence. Used by bin/tickler and scripts/test.mjs. Plain syntax on purpose:
// very old versions must be able to read this file to print the sentence.
import { readFileSync } from 'node:fs';

export function requireSupportedNode(program) {
  const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines;
  const needed = Number((/^>=\s*(\d+)/.exec(engines.node) || [])[1]);
  if (Number(process.versions.node.split('.')[0]) < needed) {
    console.error(`${program}: needs Node.js ${needed} or newer (22 and 24 LTS are supported); this is Node.js ${process.versions.node}`);
    process.exit(2);
  }
}
