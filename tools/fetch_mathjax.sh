#!/usr/bin/env bash
# Fetch MathJax 3 from the npm registry and keep only what the book needs to render offline:
# es5/tex-mml-chtml.js and its CHTML woff-v2 fonts (not the whole es5 tree). Apache-2.0.
# usage: tools/fetch_mathjax.sh VERSION DEST
set -euo pipefail
version=${1:?version}; dest=${2:?destination folder}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "mathjax@$version" >/dev/null)
tar -xzf "$tmp/mathjax-$version.tgz" -C "$tmp"
mkdir -p "$dest/output/chtml/fonts/woff-v2"
cp "$tmp/package/es5/tex-mml-chtml.js" "$dest/"
cp "$tmp"/package/es5/output/chtml/fonts/woff-v2/*.woff "$dest/output/chtml/fonts/woff-v2/"
cp "$tmp/package/LICENSE" "$dest/LICENSE"
echo "MathJax $version -> $dest ($(du -sh "$dest" | cut -f1))"
