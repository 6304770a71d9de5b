#!/usr/bin/env bash
# Prints the directory of Node.js VERSION (e.g. 24.22.3) unpacked from the npm registry's
# node-linux-<arch> package: bin/node, and include/node, the headers native modules (better-sqlite3)
# build against with npm_config_nodedir=<that directory>. Fetched once into
# ${SETPOINT_NODE_CACHE:-~/.cache/setpoint/node}; later calls reuse it. Needs only npm and the registry.
set -euo pipefail
version="${1:?usage: node-from-npm.sh VERSION}"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node-from-npm: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
package="node-linux-$arch"
root="${SETPOINT_NODE_CACHE:-$HOME/.cache/setpoint/node}"
dir="$root/$package-$version"
if [ ! -x "$dir/bin/node" ] || [ ! -f "$dir/include/node/node.h" ]; then
  mkdir -p "$root"
  scratch="$(mktemp -d "$root/.fetch-XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
  # outside the repository, so its .npmrc (engine-strict) does not apply to the download
  (cd "$scratch" && npm pack --silent "$package@$version" >/dev/null) || {
    echo "node-from-npm: npm pack $package@$version failed" >&2
    exit 1
  }
  mkdir "$scratch/unpacked"
  tar -xzf "$scratch"/"$package"-*.tgz -C "$scratch/unpacked" --strip-components=1
  rm -rf "$dir"
  mv "$scratch/unpacked" "$dir"
fi
got="$("$dir/bin/node" --version)"
[ "$got" = "v$version" ] || { echo "node-from-npm: $dir/bin/node is $got, not v$version" >&2; exit 1; }
echo "$dir"
