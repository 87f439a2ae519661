#!/usr/bin/env bash
# Vendor chessops (lichess's chess rules in JavaScript) into static/vendor/chessops/: the
# game page's conditional-moves board gets legal moves and SAN from it without asking
# the server (which judges every line again when it is saved).
#
# The package ships plain ES modules with relative imports in dist/esm/, loaded as
# static files: no bundler. Its one dependency, @badrap/result (MIT), ships one plain ES
# module too; it is copied beside them and the bare "@badrap/result" import, which a
# browser cannot resolve without an import map, is rewritten to that file.
# Licences: chessops GPL-3.0-or-later, like this project; @badrap/result MIT.
#
# Usage: scripts/vendor_chessops.sh [version] [result-version]   (needs npm)
set -euo pipefail

VERSION="${1:-0.15.1}"
RESULT_VERSION="${2:-0.3.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/static/vendor/chessops"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

(cd "$WORK" && npm pack --silent "chessops@$VERSION" "@badrap/result@$RESULT_VERSION" >/dev/null)
mkdir -p "$WORK/chessops" "$WORK/result"
tar -xzf "$WORK/chessops-$VERSION.tgz" -C "$WORK/chessops"
tar -xzf "$WORK/badrap-result-$RESULT_VERSION.tgz" -C "$WORK/result"

rm -rf "$DEST"
mkdir -p "$DEST/dist"
cp "$WORK"/chessops/package/dist/esm/*.js "$DEST/dist/"
cp "$WORK/result/package/dist/mjs/index.mjs" "$DEST/dist/badrap-result.js"
sed -i "s#from '@badrap/result'#from './badrap-result.js'#" "$DEST"/dist/*.js
# The source maps point at files we do not serve: collectstatic would refuse them.
sed -i '/^\/\/# sourceMappingURL=/d' "$DEST"/dist/*.js
if grep -nE "^(import|export|\}).* from '[^.]" "$DEST"/dist/*.js; then
  echo "a bare import is left: the browser cannot load it" >&2
  exit 1
fi
cp "$WORK/chessops/package/LICENSE.txt" "$DEST/LICENSE"
cp "$WORK/result/package/LICENSE" "$DEST/LICENSE.badrap-result"
cp "$WORK/chessops/package/package.json" "$DEST/"
echo "chessops $VERSION, @badrap/result $RESULT_VERSION" > "$DEST/VERSION"
echo "chessops $VERSION vendored into ${DEST#"$ROOT"/}"
