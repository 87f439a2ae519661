#!/usr/bin/env bash
# Vendor the chessground board (lichess) into static/vendor/chessground/.
#
# The package ships plain ES modules with relative imports in dist/, and the CSS in
# assets/, so the browser loads them as static files: no bundler. Only the brown board
# and the cburnett pieces are shipped; the other board colours are drawn in
# static/css/game.css. Licence: GPL-3.0-or-later, like this project.
#
# Usage: scripts/vendor_chessground.sh [version]   (run from anywhere; needs npm)
set -euo pipefail

VERSION="${1:-10.4.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/static/vendor/chessground"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

(cd "$WORK" && npm pack --silent "@lichess-org/chessground@$VERSION" >/dev/null)
tar -xzf "$WORK"/lichess-org-chessground-"$VERSION".tgz -C "$WORK"

rm -rf "$DEST"
mkdir -p "$DEST/dist" "$DEST/assets"
# Only the JavaScript: the type declarations and the source maps (which point at a src/
# we do not serve) are of no use to the browser.
cp "$WORK"/package/dist/*.js "$DEST/dist/"
# ...and so without the comments naming those maps: collectstatic's hashed names follow
# every reference in a file and refuse one to a file that is not there.
sed -i '/^\/\/# sourceMappingURL=/d' "$DEST"/dist/*.js
cp "$WORK"/package/assets/chessground.base.css \
   "$WORK"/package/assets/chessground.brown.css \
   "$WORK"/package/assets/chessground.cburnett.css "$DEST/assets/"
cp "$WORK"/package/LICENSE "$WORK"/package/package.json "$DEST/"
echo "$VERSION" > "$DEST/VERSION"
echo "chessground $VERSION vendored into ${DEST#"$ROOT"/}"
