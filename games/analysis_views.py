"""The engine's doors on the web: a game's computer analysis (asked for and read as
JSON, polled by the game page's script), a player's private note, and the analysis board
with the evaluation of one of its positions. Each parses, calls one service or the read
model (:mod:`games.state.analysis`) and answers; fair play is the services' and the read
model's to enforce, so every door refuses alike.

Polling, not the game's socket, carries the analysis' progress to the page: the socket
belongs to the page's main script, an analysis is asked for rarely and lasts seconds to
minutes, and a poll is one indexed read of one row (docs/analysis.md).
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_safe

from accounts.types import AuthenticatedRequest
from games import errors, services
from games.models import PrivateNote
from games.state import analysis as analysis_state
from games.web import game_or_404, wants_json

ERROR_STATUS: dict[type[errors.DomainError], int] = {
    errors.GameNotFound: 404,
    errors.NotAPlayer: 403,
    errors.EngineNotAllowed: 403,
    errors.EngineUnavailable: 503,
    errors.AnalysisRateLimited: 429,
    errors.InvalidPosition: 400,
    errors.NoteInvalid: 400,
}


def _error(error: errors.DomainError) -> JsonResponse:
    response = JsonResponse(
        {"type": "error", **error.as_dict()}, status=ERROR_STATUS.get(type(error), 400)
    )
    if isinstance(error, errors.AnalysisRateLimited):
        response["Retry-After"] = str(error.details.get("retry_after", 1))
    return response


def _refused(request: AuthenticatedRequest, pk: int, error: errors.DomainError) -> HttpResponse:
    """A refused request about game ``pk``: JSON for a script; for a page, 404 for a game
    that is not there, else back to the game with the reason."""
    if wants_json(request):
        return _error(error)
    if isinstance(error, errors.GameNotFound):
        raise Http404(error.message) from error
    messages.error(request, error.message)
    return redirect("game_detail", pk=pk)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def game_analysis(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """GET: the game's analysis as JSON (its points so far, while it runs). POST: ask for
    it. Refused for a game in progress, at both."""
    if request.method == "POST":
        try:
            services.request_analysis(game_id=pk, player=request.user)
        except errors.DomainError as error:
            return _refused(request, pk, error)
        if not wants_json(request):
            messages.success(request, _("Analysis requested."))
            return redirect(f"{reverse('game_detail', args=[pk])}#analysis")
    game = game_or_404(pk)
    if game.is_active:
        return _error(errors.EngineNotAllowed())
    status = 202 if request.method == "POST" else 200
    return JsonResponse(analysis_state.analysis_state(game), status=status)


class NoteForm(forms.Form):
    # Longer texts are refused by the service as well, with the same message.
    text = forms.CharField(
        max_length=PrivateNote.MAX_LENGTH, required=False, strip=True,
        label=gettext_lazy("Private note"),
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def game_note(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """The asking player's own note on one of their games: GET reads it, POST ``text``
    replaces it (empty: deleted). Nobody else's note is ever read or written here."""
    if request.method == "POST":
        form = NoteForm(request.POST)
        try:
            if not form.is_valid():
                raise errors.NoteInvalid()
            services.save_note(game_id=pk, player=request.user, text=form.cleaned_data["text"])
        except errors.DomainError as error:
            return _refused(request, pk, error)
        if not wants_json(request):
            messages.success(request, _("Note saved."))
            return redirect(f"{reverse('game_detail', args=[pk])}#note")
    game = game_or_404(pk)
    note = analysis_state.note_of(game, request.user.pk)
    if note is None:
        return _error(errors.NotAPlayer())
    return JsonResponse({"type": "note", "text": note})


def board_strings() -> dict[str, str]:
    """The analysis board script's words."""
    return {
        "evaluate": _("Evaluate this position"),
        "evaluating": _("The engine is thinking…"),
        "queued": _("Waiting for the engine…"),
        "failed": _("The engine could not evaluate this position."),
        "best": _("Best move"),
        "depth": _("depth"),
        "noEngine": _("No engine on a board opened from a game in progress."),
        "invalidFen": _("That is not a legal position."),
        "invalidPgn": _("That PGN could not be read."),
        "serverError": _("The server did not answer as expected: try again."),
        "start": _("Start"),
    }


class BoardForm(forms.Form):
    """Where the analysis board starts: a game (at a half-move), or a position."""

    game = forms.IntegerField(required=False, min_value=1, max_value=2**53)
    ply = forms.IntegerField(required=False, min_value=0, max_value=100_000)
    fen = forms.CharField(required=False, max_length=100, strip=True)


@login_required
@require_safe
def analysis_board(request: AuthenticatedRequest) -> HttpResponse:
    """The analysis board: from a game's position (``?game=&ply=``), a FEN (``?fen=``),
    or a PGN or FEN pasted on the page. From a game in progress it has no engine."""
    form = BoardForm(request.GET)
    start: dict[str, object] = {"fen": None, "moves": [], "ply": 0, "game": None}
    if form.is_valid() and form.cleaned_data["game"]:
        game = game_or_404(form.cleaned_data["game"])
        start = analysis_state.board_start(game, ply=form.cleaned_data["ply"])
    elif form.is_valid() and form.cleaned_data["fen"]:
        start["fen"] = form.cleaned_data["fen"]
    engine = analysis_state.engine_available() and not (
        start["game"] and start["game"]["active"]  # type: ignore[index]
    )
    data = {
        "start": start,
        "engine": engine,
        "urls": {"evaluation": reverse("position_evaluation")},
        "strings": board_strings(),
    }
    return render(
        request, "games/analysis_board.html",
        {"board_data": data, "engine": engine, "start": start,
         "invalid_start": not form.is_valid()},
    )


class EvaluationForm(forms.Form):
    fen = forms.CharField(max_length=100, strip=True)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def position_evaluation(request: AuthenticatedRequest) -> JsonResponse:
    """One position of the analysis board: POST ``fen`` asks the engine (queued in the
    background), GET ``?fen=`` reads what it said. Refused for the position of a game in
    progress."""
    form = EvaluationForm(request.POST if request.method == "POST" else request.GET)
    if not form.is_valid():
        return _error(errors.InvalidPosition())
    fen = form.cleaned_data["fen"]
    try:
        if request.method == "POST":
            evaluation = services.request_position_evaluation(fen=fen, player=request.user)
            return JsonResponse(
                analysis_state.position_evaluation_state(evaluation), status=202
            )
        return JsonResponse(analysis_state.position_evaluation(fen, request.user))
    except errors.DomainError as error:
        return _error(error)

