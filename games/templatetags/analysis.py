"""The game page's computer analysis and private note, as includes of their own
(``{% analysis_panel game %}``, ``{% private_note game %}``): each reads the read model
(:mod:`games.state.analysis`) for the viewer and renders its part, so the game page's own
view and template need no more than the one line that places them."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.translation import gettext as _

from games import judgement
from games.models import Game, PrivateNote
from games.state import analysis as analysis_state

register = template.Library()


def analysis_strings() -> dict[str, str]:
    """The words of ``static/js/analysis.js``."""
    return {
        "none": _("No computer analysis yet."),
        "queued": _("Waiting for the engine: number %(position)s in the queue."),
        "running": _("The engine is analysing: %(done)s of %(total)s positions."),
        "done": _("Analysed by %(engine)s."),
        "failed": _("The engine could not finish this analysis: ask again."),
        "inProgress": _("No engine while the game is in progress."),
        "unavailable": _("The computer analysis is not available on this server."),
        "best": _("best"),
        "white": _("White"),
        "black": _("Black"),
        "serverError": _("The server did not answer as expected: reload the page."),
        "inaccuracy": _("Inaccuracy"),
        "mistake": _("Mistake"),
        "blunder": _("Blunder"),
        "graphLabel": _("Evaluation graph: White's winning chances after each move"),
        "noteSaved": _("Note saved."),
    }


@register.inclusion_tag("games/_analysis.html", takes_context=True)
def analysis_panel(context: template.Context, game: Game) -> dict[str, Any]:
    shown = analysis_state.analysis_state(game)
    data = {
        "state": shown,
        "urls": {
            "analysis": reverse("game_analysis", args=[game.pk]),
            "board": reverse("analysis_board"),
        },
        "strings": analysis_strings(),
        "marks": {j.code: j.glyph for j in judgement.Judgement},
    }
    return {
        "game": game,
        "analysis": shown,
        "analysis_data": data,
        "moves": [point for point in shown["points"] if point["ply"] > 0],
        "csrf_token": context.get("csrf_token"),
        "strings": data["strings"],
    }


@register.inclusion_tag("games/_note.html", takes_context=True)
def private_note(context: template.Context, game: Game) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    note = analysis_state.note_of(game, getattr(user, "pk", None))
    return {
        "game": game,
        "note": note,
        "max_length": PrivateNote.MAX_LENGTH,
        "csrf_token": context.get("csrf_token"),
    }
