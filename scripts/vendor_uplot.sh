#!/usr/bin/env bash
# Vendor uPlot (a small time-series chart, about 50 KB) into static/vendor/uplot/, for
# the rating chart on player profiles.
#
# The package ships a ready browser build (dist/uPlot.iife.min.js, one global uPlot)
# and its stylesheet, so the browser loads them as static files: no bundler.
# Licence: MIT, compatible with this project's GPL-3.0-or-later.
#
# Usage: scripts/vendor_uplot.sh [version]   (run from anywhere; needs npm)
set -euo pipefail

VERSION="${1:-1.6.32}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/static/vendor/uplot"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

(cd "$WORK" && npm pack --silent "uplot@$VERSION" >/dev/null)
tar -xzf "$WORK"/uplot-"$VERSION".tgz -C "$WORK"

rm -rf "$DEST"
mkdir -p "$DEST"
cp "$WORK"/package/dist/uPlot.iife.min.js "$WORK"/package/dist/uPlot.min.css "$DEST/"
cp "$WORK"/package/LICENSE "$DEST/"
echo "$VERSION" > "$DEST/VERSION"
echo "uPlot $VERSION vendored into ${DEST#"$ROOT"/}"
