"""Write move.wav: a short wooden "tock" played when the opponent moves.

Synthesised here (a decaying two-partial tone) so that no third-party audio is shipped.
Run: python static/sounds/generate.py
"""

from __future__ import annotations

import math
import struct
import wave
from pathlib import Path

RATE = 22050
SECONDS = 0.12


def samples() -> list[int]:
    out = []
    for i in range(int(RATE * SECONDS)):
        t = i / RATE
        envelope = math.exp(-t * 45)
        tone = 0.7 * math.sin(2 * math.pi * 520 * t) + 0.3 * math.sin(2 * math.pi * 1290 * t)
        out.append(int(32767 * 0.6 * envelope * tone))
    return out


def main() -> None:
    path = Path(__file__).with_name("move.wav")
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(RATE)
        wav.writeframes(b"".join(struct.pack("<h", s) for s in samples()))


if __name__ == "__main__":
    main()
