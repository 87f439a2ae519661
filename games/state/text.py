"""The words of a game that pages write, from the read model's plain data: the result as
people read it, the move list's rows and the result banner. The game page's script
(``static/js/game_text.js``) follows the same rules with the same words, so a page reads
the same on its first render as after a live event.
"""

from __future__ import annotations

from typing import Any

from django.utils.text import capfirst
from django.utils.translation import gettext

from games import rules
from games.models import Game

# How people write a result; the stored value stays PGN's (``1/2-1/2``), which PGN
# exports and ESPOL need.
RESULT_LABELS = {"1/2-1/2": "½–½"}


def result_label(result: str) -> str:
    """A result as people read it: ``½–½`` for a draw, ``1-0`` and ``0-1`` as they are."""
    return RESULT_LABELS.get(result, result)


def move_rows(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A move list (:func:`move_state` items) as pages show it: one row per chess move,
    labelled ``12.`` before White's move, or ``12. …`` when the row begins with Black's
    (the first move of a game begun with Black to move). The script's ``moveRows``
    (``static/js/game_text.js``) is the same rule, so a page reads the same on load and
    after a live move."""
    rows: list[dict[str, Any]] = []
    for move in moves:
        if move["colour"] == rules.WHITE or not rows:
            number = move["move_number"]
            label = f"{number}." if move["colour"] == rules.WHITE else f"{number}. …"
            rows.append({"label": label, "moves": []})
        rows[-1]["moves"].append(move)
    return rows


def result_strings() -> dict[str, str]:
    """The words of a result banner, in the active language: the page's script gets
    these same texts (``data.strings``) to write the banner after a live ending."""
    return {
        "whiteWins": gettext("White wins"),
        "blackWins": gettext("Black wins"),
        "draw": gettext("Draw"),
        "aborted": gettext("Aborted: no result"),
        "notRated": gettext("not rated: the game ended before both players moved"),
        "notRatedGuest": gettext("not rated: a guest of a TCP gateway played"),
        "notRatedImported": gettext("not rated: an imported game, not played here"),
    }


def termination_labels() -> dict[str, str]:
    """How each ending is named, by its stored value, in the active language."""
    return {value: str(label) for value, label in Game.Termination.choices}


def result_text(game: dict[str, Any], ratings: dict[str, Any]) -> str:
    """The result banner of a finished game, from its :func:`game_state` and
    :func:`game_ratings`: ``1-0 · White wins · Checkmate · alice 1520 (+8), bob 1480
    (−8)``. The script's ``resultText`` (``static/js/game_text.js``) writes the same
    from the same fields and words; "" for a game in progress."""
    if game["status"] == Game.Status.ACTIVE:
        return ""
    words = result_strings()
    if game["result"] == Game.Result.ONGOING:
        return words["aborted"]
    who = {"1-0": words["whiteWins"], "0-1": words["blackWins"]}.get(
        game["result"], words["draw"]
    )
    how = capfirst(termination_labels().get(game["termination"], game["termination"]))
    white, black = ratings[rules.WHITE], ratings[rules.BLACK]
    if ratings["rated"]:
        rated = (
            f"{game['white']} {white['rating']} ({white['change']}), "
            f"{game['black']} {black['rating']} ({black['change']})"
        )
    elif ratings["why_unrated"] == "imported":
        rated = words["notRatedImported"]
    elif ratings["why_unrated"] == "guest":
        rated = words["notRatedGuest"]
    elif ratings["why_unrated"] == "early":
        rated = words["notRated"]
    else:
        # Rated, its change not yet written (the time ran out; the sweep records it).
        rated = f"{game['white']} {white['rating']}, {game['black']} {black['rating']}"
    return f"{game['result_label']} · {who} · {how} · {rated}"
