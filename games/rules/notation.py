"""Games written out as PGN, by python-chess from the moves or from their stored SAN."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterable, Mapping, Sequence

import chess
import chess.pgn

from games.rules.positions import STARTING_FEN


def pgn(
    headers: Mapping[str, str],
    ucis: Iterable[str],
    *,
    result: str,
    termination_comment: str | None = None,
    start_fen: str = STARTING_FEN,
    annotations: Sequence[tuple[str | None, int | None]] = (),
    game_comment: str | None = None,
    with_tags: bool = True,
) -> str:
    """The game as PGN text with the given tags, built by python-chess from the UCI moves
    played from ``start_fen`` (a FEN tag is added when it is not the standard one).

    ``annotations``: for the first moves, a comment (``[%eval 0.25]``) and a numeric
    annotation glyph (``4`` is ``??``) each, or None; ``game_comment`` goes before the
    first move. ``with_tags`` False: the moves alone (lichess's ``tags=false``)."""
    game = chess.pgn.Game()
    if start_fen != STARTING_FEN:
        game.setup(start_fen)
    for key, value in headers.items():
        game.headers[key] = value
    game.headers["Result"] = result
    if game_comment:
        # A brace would end a PGN comment early: the text is kept, the braces not.
        game.comment = game_comment.replace("{", "(").replace("}", ")")
    node: chess.pgn.GameNode = game
    for index, uci in enumerate(ucis):
        node = node.add_variation(chess.Move.from_uci(uci))
        if index < len(annotations):
            comment, nag = annotations[index]
            if comment:
                node.comment = comment
            if nag:
                node.nags.add(nag)
    if termination_comment:
        node.comment = " ".join(filter(None, [node.comment, termination_comment]))
    out = io.StringIO()
    exporter = chess.pgn.FileExporter(out, headers=with_tags)
    game.accept(exporter)
    return out.getvalue().strip() + "\n"


def pgn_from_sans(
    headers: Mapping[str, str],
    sans: Iterable[str],
    *,
    result: str,
    termination_comment: str | None = None,
    start_fen: str = STARTING_FEN,
) -> str:
    """The same text as :func:`pgn`, written from the moves' SAN as they were stored
    when played rather than by replaying them: working out each SAN again (legal-move
    generation for every ply) was most of the time of a download of many games.

    The tags go through python-chess's :class:`chess.pgn.Game` as in :func:`pgn` (their
    order, the FEN and SetUp tags of a game that starts elsewhere); the move text is
    laid out as python-chess's exporter lays it out: move numbers, ``N...`` when black
    moves first, the comment after the last move, lines of at most 80 columns.
    """
    game = chess.pgn.Game()
    if start_fen != STARTING_FEN:
        game.setup(start_fen)
    for key, value in headers.items():
        game.headers[key] = value
    game.headers["Result"] = result
    lines = [f'[{tag} "{value}"]' for tag, value in game.headers.items()]
    lines.append("")
    if start_fen == STARTING_FEN:
        white_to_move, number = True, 1
    else:
        board = game.board()
        white_to_move, number = board.turn == chess.WHITE, board.fullmove_number
    tokens: list[str] = []
    for index, san in enumerate(sans):
        if white_to_move:
            tokens.append(f"{number}. ")
        elif index == 0:
            tokens.append(f"{number}... ")
        tokens.append(san + " ")
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
    if termination_comment:
        tokens.append("{ " + termination_comment.replace("}", "").strip() + " } ")
    tokens.append(result + " ")
    line = ""
    for token in tokens:
        if 80 - len(line) < len(token):
            if line:
                lines.append(line.rstrip())
            line = ""
        line += token
    lines.append(line.rstrip())
    return "\n".join(lines).strip() + "\n"


def pgn_date(moment: dt.datetime) -> str:
    return moment.strftime("%Y.%m.%d")
