"""The game page and its HTTP actions.

Each action parses its form, calls one :mod:`games.services` function and turns the
result or the domain error into a response: JSON for the page's own scripts (which ask
with ``Accept: application/json``), a message and a redirect for a plain form post (a
refused typed move instead re-renders the page with the text kept). The
same actions also travel over the WebSocket (:mod:`games.consumers`); these are the
fallback that keeps the page usable without it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)

from accounts import selectors as account_selectors
from accounts.models import Preferences
from accounts.selectors import preferences_of
from accounts.types import AuthenticatedRequest
from games import chat, errors, notifications, rules, selectors, services, state, watchers
from games.models import Game
from games.web import error_status, game_or_404, wants_json


class MoveForm(forms.Form):
    number = forms.IntegerField(
        min_value=1, max_value=100_000, label=gettext_lazy("Move number")
    )
    move = forms.CharField(
        max_length=10, strip=True, label=gettext_lazy("Move (SAN or UCI)")
    )


class DrawAnswerForm(forms.Form):
    accept = forms.TypedChoiceField(
        choices=[("yes", "yes"), ("no", "no")],
        coerce=lambda v: v == "yes",
        label=gettext_lazy("Answer to the draw offer"),
    )


# ----------------------------------------------------------------------------- reads


def _js_strings() -> dict[str, str]:
    return {
        "connected": _("connected"),
        "connecting": _("connecting…"),
        "offline": _("offline — reconnecting"),
        "disconnected": _("disconnected"),
        "white": _("white"),
        "black": _("black"),
        "spectator": _("spectator"),
        "yourTurn": _("your turn"),
        "theirTurn": _("opponent's turn"),
        "drawOffered": _("%(player)s offers a draw."),
        "youOffered": _("You offered a draw; waiting for the answer."),
        "drawPending": _("draw offer pending"),
        "moveNumber": _("move"),
        "lastMoveTook": _("last move took"),
        "copied": _("Copied."),
        "copyFailed": _("Could not copy: select the text and copy it by hand."),
        "sessionEnded": _("Your session has ended: reload the page to log in again."),
        "gameNotFound": _("This game no longer exists."),
        "serverError": _("The server did not answer as expected: reload the page."),
        "inProgress": _("in progress"),
        "confirmResign": _("Resign this game?"),
        "confirmMove": _("Play %(move)s?"),
        "moveNotSent": _("The game changed before you confirmed: your move was not sent."),
        "clockPaused": _("on vacation: the clock stands still"),
        "conditionalRemove": _("Remove"),
        "conditionalStart": _("Play their move on the small board, then your reply."),
        "conditionalTheirMove": _("their move"),
        "conditionalYourReply": _("your reply"),
        # The result banner's words: the read model writes the page's first banner
        # with these same texts.
        **state.result_strings(),
    }


@login_required
# GET only, not HEAD: opening the page marks the game's notifications read.
@require_GET
def game_detail(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """The game page: board, moves, status bar and actions; read-only for watchers.
    Opening it marks the player's notifications of the game read."""
    game = game_or_404(pk)
    if game.colour_of(request.user.pk) is not None:
        notifications.mark_read(request.user.pk, game_id=game.pk)
    return _game_page(request, game)


@login_required
@require_safe
def game_by_short_id(request: AuthenticatedRequest, short_id: str) -> HttpResponse:
    """``/games/<short id>/``, the address the lichess API gives a game or a challenge:
    the game's page; for a challenge not (yet) a game, the dashboard that lists it."""
    pk = selectors.game_pk_of(short_id)
    if pk is not None:
        return redirect("game_detail", pk=pk)
    found = selectors.challenge_by_short_id(short_id)
    if found is not None and request.user.pk in (found.challenger_id, found.challenged_id):
        return redirect("dashboard")
    raise Http404(_("No such game."))


def _game_page(
    request: AuthenticatedRequest,
    game: Game,
    *,
    move_typed: str = "",
    move_error: str = "",
    status: int = 200,
) -> HttpResponse:
    """Render the game page; after a refused typed move (no script), with the text
    that was typed still in the box and the reason under it."""
    my_colour = game.colour_of(request.user.pk)
    prefs = preferences_of(request.user)
    orientation = prefs.orientation
    if orientation == Preferences.Orientation.AUTO:
        orientation = my_colour or rules.WHITE
    data = state.snapshot(game, viewer_id=request.user.pk)
    data.update(
        {
            "me": {"username": request.user.get_username(), "colour": my_colour},
            "prefs": {
                "orientation": orientation,
                "coordinates": prefs.show_coordinates,
                "sound": prefs.sound,
                "statusBar": prefs.show_status_bar,
                "confirmMoves": prefs.confirm_moves,
                "nextGameAfterMove": prefs.next_game_after_move,
                "theme": prefs.board_theme,
                "pieces": prefs.piece_set,
            },
            "urls": {
                "ws": f"/ws/games/{game.pk}/",
                "state": reverse("game_state", args=[game.pk]),
                "move": reverse("game_move", args=[game.pk]),
                "movePreview": reverse("game_move_preview", args=[game.pk]),
                "drawOffer": reverse("game_draw_offer", args=[game.pk]),
                "drawAnswer": reverse("game_draw_answer", args=[game.pk]),
                "resign": reverse("game_resign", args=[game.pk]),
                "claimDraw": reverse("game_claim_draw", args=[game.pk]),
                "pgn": reverse("game_pgn", args=[game.pk]),
                "conditional": reverse("game_conditional", args=[game.pk]),
            },
            "strings": _js_strings(),
            "terminations": state.termination_labels(),
        }
    )
    return render(
        request,
        "games/detail.html",
        {
            "game": game,
            "my_colour": my_colour,
            "is_player": my_colour is not None,
            # Shown at once when another game waits (next_game.js keeps it up to date).
            "next_game_waits": my_colour is not None
            and selectors.next_game_waiting_for(request.user, besides=game.pk) is not None,
            "prefs": prefs,
            "orientation": orientation,
            "game_data": data,
            # The move list and the banner from the snapshot the script receives, by
            # the rules its own rendering follows (games.state.move_rows, result_text).
            "move_rows": state.move_rows(data["moves"]),
            "result_text": state.result_text(data["game"], data["ratings"]),
            "claimable": data["claimable"],
            "move_number": data["game"]["move_number"],
            "watchers": watchers.count(game.pk),
            "chat": chat.messages_for(game, request.user),
            "chat_room": chat.room_to_write(game, request.user),
            "chat_max": chat.MAX_LENGTH,
            "move_typed": move_typed,
            "move_error": move_error,
            "clock": data["game"]["clock"],
            "bots": account_selectors.bots_among([game.white_id, game.black_id]),
            "clock_player": data["game"].get(data["game"]["clock"]["colour"] or "", ""),
            "banks_of": [(colour, data["game"][colour]) for colour in ("white", "black")],
        },
        status=status,
    )


@login_required
@require_safe
def game_state_view(request: AuthenticatedRequest, pk: int) -> JsonResponse:
    """The snapshot as JSON (``?after=n``: only moves after n): the page polls it when
    the WebSocket is down."""
    game = game_or_404(pk)
    try:
        after = max(0, int(request.GET.get("after", "0")))
    except ValueError:
        return JsonResponse(
            {"type": "error", "code": "invalid_after", "message": _("'after' must be a number.")},
            status=400,
        )
    return JsonResponse(state.snapshot(game, viewer_id=request.user.pk, after=after))


@login_required
@require_safe
def game_pgn(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """The game as a PGN file named after its public id (with the computer analysis once
    done, and the asking player's private note)."""
    game = game_or_404(pk)
    response = HttpResponse(
        state.game_pgn(game, viewer_id=request.user.pk),
        content_type="application/x-chess-pgn; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{game.public_id}.pgn"'
    return response


# ----------------------------------------------------------------------------- actions


def _act(
    request: HttpRequest,
    pk: int,
    action: Callable[[], Game],
    done: str,
    *,
    refused_page: Callable[[errors.DomainError], HttpResponse] | None = None,
) -> HttpResponse:
    """Run ``action`` (one service call, which returns the game) and answer in the
    caller's format.

    A plain form post that is refused gets a message and a redirect, or, with
    ``refused_page``, that page instead (the move form keeps what was typed)."""
    try:
        game = action()
    except errors.DomainError as error:
        if wants_json(request):
            return JsonResponse({"type": "error", **error.as_dict()}, status=error_status(error))
        if isinstance(error, errors.GameNotFound):
            raise Http404(error.message) from error
        if refused_page is not None:
            return refused_page(error)
        messages.error(request, error.message)
        return redirect("game_detail", pk=pk)
    if wants_json(request):
        # Moves after what the page says it has (``after``), so a page that missed
        # events while its socket was down catches up in the same answer.
        try:
            after = max(0, int(request.POST.get("after", "0")))
        except ValueError:
            after = 0
        # The game as the service left it, committed: the answer needs no second read.
        return JsonResponse(state.snapshot(game, viewer_id=request.user.pk, after=after))
    messages.success(request, done)
    return redirect("game_detail", pk=pk)


def _form_error_text(form: forms.Form) -> str:
    """Each error of ``form``, naming its field by its (translated) label, not its name
    in the code."""
    return " ".join(
        f"{form[name].label}: {' '.join(map(str, errs))}"
        if name in form.fields
        else " ".join(map(str, errs))
        for name, errs in form.errors.items()
    )


def _form_error(request: HttpRequest, pk: int, form: forms.Form) -> HttpResponse:
    """Refuse an invalid form, as JSON for the page's script or as a message and a
    redirect for a plain form post."""
    text = _form_error_text(form)
    if wants_json(request):
        return JsonResponse(
            {"type": "error", "code": "invalid_form", "message": text, "fields": form.errors},
            status=400,
        )
    messages.error(request, text)
    return redirect("game_detail", pk=pk)


@login_required
@require_POST
def game_move(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    form = MoveForm(request.POST)
    # Without a script, a refused move re-renders the page rather than redirecting, so
    # what was typed stays in the box to be corrected.
    typed = str(request.POST.get("move", ""))[:100].strip()

    def refused_page(message: str, status: int) -> HttpResponse:
        return _game_page(
            request, game_or_404(pk), move_typed=typed, move_error=message, status=status
        )

    if not form.is_valid():
        if wants_json(request):
            return _form_error(request, pk, form)
        return refused_page(_form_error_text(form), 400)
    return _act(
        request,
        pk,
        lambda: services.make_move(
            game_id=pk,
            player=request.user,
            move_number=form.cleaned_data["number"],
            move=form.cleaned_data["move"],
        ),
        _("Move played."),
        refused_page=lambda error: refused_page(error.message, error_status(error)),
    )


@login_required
@require_safe
def game_move_preview(request: AuthenticatedRequest, pk: int) -> JsonResponse:
    """What a typed move would be (``?number=&move=``), as JSON: its UCI and SAN, or the
    error playing it would meet. Nothing is played: the page shows the move on the board
    for the player to confirm (the ``confirm_moves`` preference), then sends it."""
    form = MoveForm(request.GET)
    if not form.is_valid():
        return JsonResponse(
            {"type": "error", "code": "invalid_form", "message": _form_error_text(form),
             "fields": form.errors},
            status=400,
        )
    try:
        played = services.preview_move(
            game_id=pk,
            player=request.user,
            move_number=form.cleaned_data["number"],
            move=form.cleaned_data["move"],
        )
    except errors.DomainError as error:
        return JsonResponse({"type": "error", **error.as_dict()}, status=error_status(error))
    return JsonResponse({"type": "preview", "uci": played.uci, "san": played.san})


@login_required
@require_POST
def game_draw_offer(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    return _act(
        request, pk, lambda: services.offer_draw(game_id=pk, player=request.user),
        _("Draw offered."),
    )


@login_required
@require_POST
def game_draw_answer(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    form = DrawAnswerForm(request.POST)
    if not form.is_valid():
        return _form_error(request, pk, form)
    accept = form.cleaned_data["accept"]
    return _act(
        request,
        pk,
        lambda: services.answer_draw(game_id=pk, player=request.user, accept=accept),
        _("Draw accepted.") if accept else _("Draw declined."),
    )


@login_required
@require_POST
def game_resign(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    return _act(
        request, pk, lambda: services.resign(game_id=pk, player=request.user),
        _("You resigned."),
    )


@login_required
@require_POST
def game_claim_draw(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    return _act(
        request, pk, lambda: services.claim_draw(game_id=pk, player=request.user),
        _("Draw claimed."),
    )


# Twenty lines of twenty moves in SAN fit in a few kilobytes: anything far larger is
# not an honest request and is refused before it is parsed.
CONDITIONAL_MAX_BODY = 16_384


def _bad_body(message: str) -> JsonResponse:
    return JsonResponse({"type": "error", "code": "invalid_body", "message": message}, status=400)


def _conditional_answer(request: AuthenticatedRequest, pk: int) -> JsonResponse:
    game = game_or_404(pk)
    own = state.conditional_state(game, viewer_id=request.user.pk)
    if own is None and game.colour_of(request.user.pk) is None:
        error = errors.NotAPlayer()
        return JsonResponse({"type": "error", **error.as_dict()}, status=error_status(error))
    return JsonResponse({"type": "conditional", **(own or {"move_number": None, "lines": []})})


@login_required
@require_http_methods(["GET", "POST", "DELETE"])
def game_conditional(request: AuthenticatedRequest, pk: int) -> JsonResponse:
    """The player's own conditional moves on the game, as JSON: GET reads them, POST
    ``{"move_number": n, "lines": [["e5", "Nf3"], …]}`` replaces them (moves in SAN or
    UCI, the first of each the opponent's half-move ``n``), DELETE clears them. Only
    ever the requesting player's lines; a watcher is refused."""
    try:
        if request.method == "POST":
            if len(request.body) > CONDITIONAL_MAX_BODY:
                return _bad_body(_("The request is too large."))
            try:
                body = json.loads(request.body)
            except (ValueError, RecursionError):  # RecursionError: nested too deep
                return _bad_body(_("The request must be JSON."))
            if not isinstance(body, dict) or set(body) != {"move_number", "lines"}:
                return _bad_body(_("Send an object with “move_number” and “lines”."))
            number = body["move_number"]
            if isinstance(number, bool) or not isinstance(number, int) or number < 1:
                return _bad_body(_("“move_number” must be a positive whole number."))
            services.set_conditional_lines(
                game_id=pk, player=request.user, move_number=number, lines=body["lines"]
            )
        elif request.method == "DELETE":
            services.clear_conditional_lines(game_id=pk, player=request.user)
    except errors.DomainError as error:
        if isinstance(error, errors.GameNotFound):
            raise Http404(error.message) from error
        return JsonResponse({"type": "error", **error.as_dict()}, status=error_status(error))
    return _conditional_answer(request, pk)
