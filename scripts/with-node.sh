#!/usr/bin/env bash
# Runs a command with an official Node.js binary of a supported line first on PATH:
#   scripts/with-node.sh 24 npm test
#   scripts/with-node.sh 22 bin/tickler serve
# The binary comes from the package registry (the node-<os>-<arch> packages carry the official
# builds) into .runtimes/ (ignored by git), once per version; later runs reuse it. npm is the one
# already installed, run by the chosen node. Native addons that must be compiled get this
# runtime's own headers (npm_config_nodedir), never another Node's.
#
# The versions are pinned here so every developer and CI test the same binaries; move them forward
# together with the `engines` field of package.json and the README.
set -euo pipefail

declare -A PINNED=([22]=22.23.3 [24]=24.21.0)

line="${1:-}"
if [[ -z "$line" || -z "${PINNED[$line]:-}" ]]; then
  echo "usage: scripts/with-node.sh ${!PINNED[*]} COMMAND [ARG...]" >&2
  exit 2
fi
shift
[[ $# -gt 0 ]] || { echo "scripts/with-node.sh: no command given" >&2; exit 2; }
version="${PINNED[$line]}"

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "scripts/with-node.sh: no packaged Node.js for $(uname -s); put Node.js $line on PATH yourself" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "scripts/with-node.sh: no packaged Node.js for $(uname -m); put Node.js $line on PATH yourself" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"
home="$root/.runtimes/node-$version"
pkg="node-$os-$arch"
bin="$home/node_modules/$pkg/bin"

if [[ ! -x "$bin/node" ]]; then
  echo "fetching Node.js $version ($pkg) into .runtimes/" >&2
  mkdir -p "$home"
  # npm checks the package against the registry's integrity hash; the package has no scripts.
  npm install --prefix "$home" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
    --loglevel=error "$pkg@$version" >&2
fi
actual="$("$bin/node" --version)"
[[ "$actual" == "v$version" ]] || { echo "scripts/with-node.sh: .runtimes holds $actual, expected v$version" >&2; exit 1; }

export PATH="$bin:$PATH"
export npm_config_nodedir="$home/node_modules/$pkg"
exec "$@"
