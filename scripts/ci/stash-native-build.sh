#!/usr/bin/env bash
# Moves the better-sqlite3 addon just built (build/Release) to where its loader (`bindings`) also looks,
# keyed by the running Node's ABI: lib/binding/node-v<ABI>-<platform>-<arch>/. Builds for several Node
# lines then sit side by side in one node_modules and each Node loads its own (.ci/run builds it for
# Node 24 and for the machine's Node). Run it with the Node the addon was built for.
set -euo pipefail
module=node_modules/better-sqlite3
built="$module/build/Release/better_sqlite3.node"
[ -f "$built" ] || { echo "stash-native-build: no $built to stash" >&2; exit 1; }
abi_dir="$module/lib/binding/node-v$(node -p process.versions.modules)-$(node -p process.platform)-$(node -p process.arch)"
mkdir -p "$abi_dir"
mv "$built" "$abi_dir/better_sqlite3.node"
node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()" \
  || { echo "stash-native-build: $(node --version) cannot load $abi_dir/better_sqlite3.node" >&2; exit 1; }
echo "better-sqlite3 for Node $(node --version) (ABI $(node -p process.versions.modules)) in $abi_dir"
