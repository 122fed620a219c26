#!/usr/bin/env bash
# Installs what ctxsearch needs to build and test, from Debian packages only. Idempotent: a package
# already installed is not touched, and nothing runs when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang clang-format clang-tidy libclang-rt-14-dev
  libpcre2-dev libhyperscan-dev libsimdjson-dev libgit2-dev libtbb-dev catch2 libbenchmark-dev
  libfmt-dev
  # test peers and test tooling
  git ripgrep python3 nodejs
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm ships inside some nodejs builds (nodesource); Debian's own nodejs needs the npm package.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
echo "install-deps: installing ${missing[*]}" >&2
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
