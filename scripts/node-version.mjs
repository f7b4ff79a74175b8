// The one check of the running Node.js against package.json's `engines`, made before anything
// else loads: an older Node.js would otherwise fail deep inside SQLite's native addon, with a
// crash instead of a sentence. Used by bin/tickler and scripts/test.mjs. Plain syntax on purpose:
// very old versions must be able to read this file to print the sentence.
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function neededMajor() {
  const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines;
  return Number((/^>=\s*(\d+)/.exec(engines.node) || [])[1]);
}

function majorOf(version) {
  return Number(version.split('.')[0]);
}

function sentence(program, needed, hint) {
  return `${program}: needs Node.js ${needed} or newer (22 and 24 LTS are supported); this is Node.js ${process.versions.node}${hint}`;
}

export function requireSupportedNode(program) {
  const needed = neededMajor();
  if (majorOf(process.versions.node) < needed) {
    console.error(sentence(program, needed, ''));
    process.exit(2);
  }
}

/** Set for the command run again with a runtime of .runtimes/: it must not look for one again. */
const RUNTIME_CHOSEN = 'TICKLER_RUNTIME_CHOSEN';

/**
 * The newest Node.js of a supported line that scripts/with-node.sh fetched into the project's
 * .runtimes/ (node-<version>/node_modules/node-<os>-<arch>/bin/node), or undefined.
 */
export function fetchedRuntime(needed) {
  const os = { linux: 'linux', darwin: 'darwin' }[process.platform];
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (!os || !arch) return undefined;
  const home = fileURLToPath(new URL('../.runtimes/', import.meta.url));
  let names = [];
  try {
    names = readdirSync(home);
  } catch (err) {
    return undefined;
  }
  const found = [];
  for (const name of names) {
    const m = /^node-(\d+)\.(\d+)\.(\d+)$/.exec(name);
    if (!m || Number(m[1]) < needed) continue;
    const binary = `${home}${name}/node_modules/node-${os}-${arch}/bin/node`;
    try {
      accessSync(binary, constants.X_OK);
    } catch (err) {
      continue;
    }
    found.push({ version: [Number(m[1]), Number(m[2]), Number(m[3])], name: name.slice(5), binary });
  }
  found.sort((a, b) => b.version[0] - a.version[0] || b.version[1] - a.version[1] || b.version[2] - a.version[2]);
  return found[0];
}

/**
 * For bin/tickler: returns when this Node.js is new enough. On an older one, the command runs
 * again with the newest runtime scripts/with-node.sh fetched into .runtimes/ (saying so in one
 * line on stderr), and this process ends with its exit code; without such a runtime, one line
 * says what to do and the process exits 2. Signals reach the command (a supervisor's SIGTERM, a
 * terminal's Ctrl-C), so `serve` closes as it would have.
 */
export async function runWithSupportedNode(program, script) {
  const needed = neededMajor();
  if (majorOf(process.versions.node) >= needed) return;
  const runtime = process.env[RUNTIME_CHOSEN] ? undefined : fetchedRuntime(needed);
  if (!runtime) {
    console.error(sentence(program, needed, `; run it as \`scripts/with-node.sh 24 bin/tickler …\`, which fetches one into .runtimes/ (and bin/tickler uses it from then on)`));
    process.exit(2);
  }
  console.error(`${program}: Node.js ${process.versions.node} is too old; running with Node.js ${runtime.name} from .runtimes/`);
  const env = Object.assign({}, process.env);
  env[RUNTIME_CHOSEN] = runtime.name;
  const child = spawn(runtime.binary, [fileURLToPath(script)].concat(process.argv.slice(2)), { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  await new Promise(() => {
    child.on('error', (err) => {
      console.error(`${program}: cannot run ${runtime.binary}: ${err.message}`);
      process.exit(2);
    });
    child.on('exit', (code, signal) => {
      if (signal) {
        // Ended by a signal: end the same way, so that whoever waits for this process sees it.
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
        return;
      }
      process.exit(code === null ? 1 : code);
    });
  });
}
