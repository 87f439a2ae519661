#!/usr/bin/env bash
# Vendor Bootstrap 5 (CSS and the JS bundle with Popper) into static/vendor/bootstrap/.
#
# The vendored files are committed, so a fresh clone serves the pages without npm; run
# this script only to change the version. Licence: MIT (kept next to the files).
#
# Usage: scripts/vendor_bootstrap.sh [version]   (run from anywhere; needs npm)
set -euo pipefail

VERSION="${1:-5}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/static/vendor/bootstrap"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

TARBALL="$(cd "$WORK" && npm pack --silent "bootstrap@$VERSION")"
tar -xzf "$WORK/$TARBALL" -C "$WORK"
EXACT="$(node -p "require('$WORK/package/package.json').version")"

rm -rf "$DEST"
mkdir -p "$DEST/css" "$DEST/js"
cp "$WORK"/package/dist/css/bootstrap.min.css "$DEST/css/"
cp "$WORK"/package/dist/js/bootstrap.bundle.min.js "$DEST/js/"
# The minified files end with sourceMappingURL comments; the maps are not shipped, so
# drop the comments to keep browsers (and collectstatic's manifest storage) from asking.
sed -i '/sourceMappingURL=/d' "$DEST/css/bootstrap.min.css" "$DEST/js/bootstrap.bundle.min.js"
cp "$WORK"/package/LICENSE "$DEST/"
echo "$EXACT" > "$DEST/VERSION"
echo "bootstrap $EXACT vendored into ${DEST#"$ROOT"/}"
