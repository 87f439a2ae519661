"""``manage.py espol_client``: type ESPOL commands, see the decoded responses.

Interactive by default (one command per line; an empty line or end of input quits);
``-c`` sends the given commands in order and exits, for scripts and tests.

Besides raw ESPOL lines, a few local commands make a game playable by hand:
``/board P0000001`` shows the board from your side with the moves in SAN, and
``/move P0000001 Nf3`` (SAN or UCI) fills in the move number, ``posicion`` and
``promocion`` of the JGDA line, sends it, and shows the board again.
"""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from legacy_tcp.espol.client import EspolClient, GameView
from legacy_tcp.espol.codec import Code, Response

LOCAL_HELP = """local commands:
  /board <partida>          the board from your side, the moves, whose turn it is
  /move <partida> <jugada>  play a move given in SAN (Nf3, exd5, e8=Q) or UCI (g1f3)
  /help                     this text (HELP asks the server for its commands)"""


def show(response: Response | None) -> str:
    if response is None:
        return "(connection closed)"
    if len(response.parts) <= 1:
        return f"{response.code} [{len(response.data)} bytes] {response.text}"
    # One line per frame: TRAN and JAUT start each frame with the date, so the frames'
    # data run together would read as a name glued to a date.
    lines = [f"{response.code} [{len(response.data)} bytes in {len(response.parts)} frames]"]
    lines += [f"  {part.decode('utf-8', errors='replace')}" for part in response.parts]
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Connect to an ESPOL gateway, send commands, print decoded responses."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=settings.ESPOL_HOST)
        parser.add_argument("--port", type=int, default=settings.ESPOL_PORT)
        parser.add_argument("--tls", action="store_true", help="connect over TLS")
        parser.add_argument(
            "-c", "--command", action="append", default=[], help="send this and exit"
        )

    def handle(self, *args, **options) -> None:
        try:
            client = EspolClient(options["host"], options["port"], tls=options["tls"])
        except OSError as exc:
            raise CommandError(f"cannot connect: {exc}") from exc
        try:
            if options["command"]:
                for line in options["command"]:
                    self.stdout.write(f"> {line}")
                    if not self.run_line(client, line):
                        break
                return
            interactive = sys.stdin.isatty()
            if interactive:
                self.stdout.write("ESPOL commands (HELP lists them) or /help; empty line quits.")
            while True:
                if interactive:
                    self.stdout.write("espol> ", ending="")
                    self.stdout.flush()
                line = sys.stdin.readline()
                if not line or not line.strip():
                    break
                if not self.run_line(client, line.rstrip("\r\n")):
                    break
        finally:
            client.close()

    def run_line(self, client: EspolClient, line: str) -> bool:
        """Carry out one typed line and print the outcome; False once the server closed."""
        if not line.startswith("/"):
            response = client.send(line)
            self.stdout.write(show(response))
            return response is not None
        words = line[1:].split()
        verb, args = (words[0].lower(), words[1:]) if words else ("", [])
        if verb == "board" and len(args) == 1:
            return self.show_game(client, client.game(args[0]))
        if verb == "move" and len(args) == 2:
            reply = client.play(args[0], args[1])
            if isinstance(reply, str):
                self.stdout.write(reply)
                return True
            self.stdout.write(show(reply))
            if reply is None:
                return False
            if reply.code == Code.S_TRAN:
                return self.show_game(client, client.game(args[0]))
            return True
        self.stdout.write(LOCAL_HELP)
        return True

    def show_game(self, client: EspolClient, view: GameView | Response | None) -> bool:
        if isinstance(view, GameView):
            self.stdout.write(view.text())
            return True
        self.stdout.write(show(view))
        return view is not None
