"""ESPOL clients: a blocking one (people, scripts, tests) and an asyncio one (many at once).

Both send one line and read back its one response, decoded with the codec's
:class:`~legacy_tcp.espol.codec.FrameDecoder`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from dataclasses import dataclass, field

import chess

from legacy_tcp.espol.codec import (
    Code,
    FrameDecoder,
    Response,
    position_of,
    promotion_of,
    uci_of,
)


def jgda(game_name: str, number: int, uci: str, *, reverse: bool = False) -> str:
    """The JGDA line for a UCI move, with ``posicion`` and ``promocion`` filled in."""
    return (
        f"JGDA:{game_name}:{number}:{uci[:4]}:{int(reverse)}:"
        f"{position_of(uci)}:{promotion_of(uci)}"
    )


def coordinates_of(board: chess.Board, text: str) -> str:
    """The coordinates (UCI) of the move ``text`` names on ``board``, legal or not.

    JGDA carries coordinates, so a move typed in SAN must be turned into them here; but
    legality is the server's to judge (its refusal says why), so a well-formed SAN that
    is illegal here (``Qh5`` with the queen blocked) is sent as the move of the one
    piece it can name. Raises ``ValueError`` with the reason when the text is neither
    SAN nor UCI, or names no single piece.
    """
    try:
        return board.parse_san(text).uci()
    except chess.AmbiguousMoveError as exc:
        raise ValueError(f"{text} fits more than one piece here: say which (Nbd2, e2e4)") from exc
    except ValueError:
        pass
    try:
        return chess.Move.from_uci(text.lower()).uci()
    except ValueError:
        pass
    if chess.SAN_REGEX.match(text) is None and text.rstrip("+#") not in _CASTLES:
        raise ValueError(f"not a move in SAN or UCI: {text}")
    uci = _origin_of_illegal_san(board, text)
    if uci is None:
        raise ValueError(f"{text}: no single piece of yours can be meant; give it in UCI (e2e4)")
    return uci


def _origin_of_illegal_san(board: chess.Board, text: str) -> str | None:
    """The coordinates of a well-formed SAN that python-chess found illegal, when one of
    the mover's pieces can be meant: the only one of its kind (and disambiguation) that
    reaches the square on an empty board, or the only one of its kind at all; for a pawn,
    the nearest on its file behind the square."""
    rank = "1" if board.turn == chess.WHITE else "8"
    if (side := _CASTLES.get(text.rstrip("+#"))) is not None:
        return f"e{rank}{side}{rank}"
    match = chess.SAN_REGEX.match(text)
    if match is None:
        return None
    letter, from_file, from_rank, to_name, promotion = match.groups()
    piece_type = chess.PIECE_SYMBOLS.index(letter.lower()) if letter else chess.PAWN
    target = chess.parse_square(to_name)
    named = [
        square
        for square in board.pieces(piece_type, board.turn)
        if (not from_file or chess.square_name(square)[0] == from_file)
        and (not from_rank or chess.square_name(square)[1] == from_rank)
    ]
    if piece_type == chess.PAWN:
        ahead = -1 if board.turn == chess.WHITE else 1
        behind = [
            square for square in named
            if chess.square_file(square) == chess.FILE_NAMES.index(from_file or to_name[0])
            and (chess.square_rank(target) - chess.square_rank(square)) * ahead < 0
        ]
        # The pawn nearest the square: the one the text means if any does.
        reaching = sorted(behind, key=lambda square: abs(target - square))[:1]
    else:
        reaching = []
        for square in named:
            alone = chess.BaseBoard(None)
            alone.set_piece_at(square, chess.Piece(piece_type, board.turn))
            if alone.is_attacked_by(board.turn, target):
                reaching.append(square)
        if not reaching and len(named) == 1:
            reaching = named
    if len(reaching) != 1:
        return None
    suffix = promotion.lstrip("=").lower() if promotion else ""
    return chess.square_name(reaching[0]) + to_name + suffix


_CASTLES = {"O-O": "g", "0-0": "g", "O-O-O": "c", "0-0-0": "c"}


def moves_of_spar(text: str) -> list[str]:
    """UCI moves of a ``SPAR`` answer (``n:jugada:reverso:posicion:promocion,`` each)."""
    moves = []
    for entry in text.split(","):
        if entry:
            _number, jugada, _reverse, _position, promotion = entry.split(":")
            moves.append(uci_of(jugada, promotion))
    return moves


@dataclass
class GameView:
    """What a player needs to see of one game: built from ``STAT`` and ``SPAR``."""

    name: str
    white: str
    black: str
    finished: bool
    winner: str  # ESPOL ganador: 0 none yet, 1 white, 2 black, 3 draw
    my_colour: chess.Color
    board: chess.Board = field(default_factory=chess.Board)

    @property
    def next_number(self) -> int:
        return len(self.board.move_stack) + 1

    def text(self) -> str:
        """The board from the player's side, the moves in SAN, and whose turn it is."""
        ranks = range(7, -1, -1) if self.my_colour == chess.WHITE else range(8)
        files = range(8) if self.my_colour == chess.WHITE else range(7, -1, -1)
        lines = [f"{self.name}: {self.white} (white) - {self.black} (black)"]
        for rank in ranks:
            row = []
            for file in files:
                piece = self.board.piece_at(chess.square(file, rank))
                row.append(piece.symbol() if piece else ".")
            lines.append(f"{rank + 1}  {' '.join(row)}")
        lines.append("   " + " ".join(chess.FILE_NAMES[f] for f in files))
        replay = chess.Board()
        lines.append(replay.variation_san(self.board.move_stack) or "(no moves yet)")
        if self.finished:
            outcome = {"1": "white won", "2": "black won", "3": "drawn"}.get(self.winner, "")
            lines.append(f"finished: {outcome}")
        else:
            side = "white" if self.board.turn == chess.WHITE else "black"
            whose = "your move" if self.board.turn == self.my_colour else "opponent's move"
            lines.append(f"move {self.next_number}, {side} to play ({whose})")
        return "\n".join(lines)


class EspolClient:
    """A blocking client: send one line, read back its one response."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        tls: bool = False,
        timeout: float = 30.0,
        source_address: tuple[str, int] | None = None,
    ):
        raw = socket.create_connection((host, port), timeout=timeout, source_address=source_address)
        if tls:
            context = ssl.create_default_context()
            # The gateway's certificate is usually self-signed on a test machine.
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            raw = context.wrap_socket(raw, server_hostname=host)
        self.sock = raw
        self.decoder = FrameDecoder()
        self.pending: list[Response] = []

    def send(self, line: str) -> Response | None:
        """Send ``line`` (CR LF added); the response, or None when the server closed."""
        self.sock.sendall(line.encode("utf-8") + b"\r\n")
        return self.receive()

    def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (partial lines, bad bytes)."""
        self.sock.sendall(data)

    def receive(self) -> Response | None:
        while not self.pending:
            data = self.sock.recv(65536)
            if not data:
                return None
            self.pending.extend(self.decoder.feed(data))
        return self.pending.pop(0)

    def close(self) -> None:
        self.sock.close()

    def game(self, name: str) -> GameView | Response | None:
        """The game as its player sees it (``STAT`` + ``SPAR``), or the refusal."""
        stat = self.send(f"STAT:{name}")
        if stat is None or stat.code != Code.S_TRAN:
            return stat
        fields = stat.text.split(":")
        view = GameView(
            name=fields[0],
            white=fields[1],
            black=fields[2],
            finished=fields[4] == "2",
            winner=fields[5],
            my_colour=chess.WHITE if fields[8] == "B" else chess.BLACK,
        )
        spar = self.send(f"SPAR:{name}:0")
        if spar is None:
            return None
        if spar.code == Code.S_TRAN:
            for uci in moves_of_spar(spar.text):
                view.board.push_uci(uci)
        elif spar.code != Code.F_NOMASJUG:
            return spar
        return view

    def play(self, name: str, move: str) -> Response | str | None:
        """Play ``move`` (SAN or UCI) in game ``name``: the JGDA reply, or why not sent.

        The client reads the game first so that a person can type ``Nf3`` and the
        client fills in the move number, ``posicion`` and ``promocion``; the server
        still judges the move.
        """
        view = self.game(name)
        if not isinstance(view, GameView):
            return view
        try:
            uci = coordinates_of(view.board, move)
        except ValueError as exc:
            return str(exc)
        return self.send(jgda(view.name, view.next_number, uci))


class AsyncEspolClient:
    """The same over asyncio streams, for thousands of clients in one process."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.decoder = FrameDecoder()
        self.pending: list[Response] = []

    @classmethod
    async def open(cls, port: int, host: str = "127.0.0.1") -> AsyncEspolClient:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    async def send(self, line: str) -> Response:
        self.writer.write(line.encode("utf-8") + b"\r\n")
        await self.writer.drain()
        while not self.pending:
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError(f"closed by the server after {line[:4]!r}")
            self.pending.extend(self.decoder.feed(data))
        return self.pending.pop(0)

    async def login(self, username: str, password: str) -> None:
        """USER then PASS; raises when either is refused."""
        for line, wanted in ((f"USER:{username}", 101), (f"PASS:{password}", 102)):
            reply = await self.send(line)
            if reply.code != wanted:
                raise ConnectionError(f"login as {username} refused: {reply.code} {reply.text}")

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()
