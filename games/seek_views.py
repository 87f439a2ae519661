"""The lobby's open challenges (seeks): the list (live), the form that makes one, its
join page (the address the lichess API gives as ``urlWhite``/``urlBlack``), taking one
and cancelling one's own. Views parse, call :mod:`games.services` or the read model
(:mod:`games.state.seeks`), and render; a domain error becomes a message on the page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from accounts.types import AuthenticatedRequest
from games import errors, services
from games.models import Colour, Seek
from games.models.seeks import NAME_MAX_LENGTH
from games.state import seeks as seek_state
from games.web import announce_start

SEEK_FORM_KEY = "seek_form"


def _days_per_move(text: str) -> int | None:
    """The form's ``days_per_move``: empty or ``none`` for no clock, else a number of
    days (the service says whether it is one offered)."""
    text = text.strip()
    if text in ("", "none"):
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 3):
        raise errors.InvalidTimeControl()
    return int(text)


def _rating(text: str) -> int | None:
    """A bound of the rating range as typed: empty for none, else a whole number (the
    service says whether it is in range)."""
    text = text.strip()
    if not text:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 4):
        raise errors.InvalidRatingRange()
    return int(text)


def _form_again(request: AuthenticatedRequest) -> dict[str, str]:
    return dict(request.session.pop(SEEK_FORM_KEY, {}))


@login_required
@require_safe
def seek_list(request: AuthenticatedRequest) -> HttpResponse:
    """The open challenges anyone may take, the player's own, and the form to make one.
    ``?partial=1``: only the lists, which the page fetches again when its socket says
    one was made, taken or cancelled."""
    context = seek_state.lobby_seeks(request.user)
    if request.GET.get("partial") == "1":
        return render(request, "lobby/_seeks_live.html", context)
    context["form"] = _form_again(request)
    return render(request, "lobby/seeks.html", context)


@login_required
@require_POST
def seek_create(request: AuthenticatedRequest) -> HttpResponse:
    """Make an open challenge: ``days_per_move`` (``none``: no clock), ``colour``
    (white, black, random), ``rated`` (a checkbox), ``rating_min``/``rating_max``
    (either may be empty)."""
    typed = {
        key: str(request.POST.get(key, ""))[:NAME_MAX_LENGTH]
        for key in ("days_per_move", "colour", "rating_min", "rating_max")
    }
    typed["rated"] = "on" if request.POST.get("rated") else ""
    try:
        services.create_seek(
            maker=request.user,
            days_per_move=_days_per_move(typed["days_per_move"]),
            colour=typed["colour"].strip() or Seek.MakerColour.RANDOM,
            rated=bool(typed["rated"]),
            rating_min=_rating(typed["rating_min"]),
            rating_max=_rating(typed["rating_max"]),
        )
    except errors.DomainError as exc:
        messages.error(request, exc.message)
        # The form comes back as it was sent, to be corrected.
        request.session[SEEK_FORM_KEY] = typed
    else:
        messages.success(
            request, _("Your open challenge is in the lobby: the game starts when someone accepts.")
        )
    return redirect("seek_list")


def _found(short_id: str) -> Seek:
    found = seek_state.open_seek(short_id)
    if found is None:
        raise Http404(_("No such open challenge."))
    return found


@login_required
@require_safe
def seek_detail(request: AuthenticatedRequest, short_id: str) -> HttpResponse:
    """One open challenge, to accept (``?colour=white|black``: the colour asked for, as
    lichess's ``urlWhite``/``urlBlack``); once taken, its game's players land on it."""
    found = _found(short_id)
    if found.game_id is not None and found.game is not None and request.user.pk in (
        found.game.white_id, found.game.black_id
    ):
        return redirect("game_detail", pk=found.game_id)
    colour = request.GET.get("colour") or request.GET.get("color") or ""
    colour = colour if colour in Colour.values else ""
    (row,) = seek_state.seek_rows(request.user, [found])
    return render(request, "lobby/seek_detail.html", {"row": row, "colour": colour})


@login_required
@require_POST
def seek_accept(request: AuthenticatedRequest, short_id: str) -> HttpResponse:
    """Take an open challenge (``colour``: white or black when the seek leaves the
    choice; empty for whatever it leaves). Straight to the game on success, back to the
    list with the reason on a refusal."""
    found = _found(short_id)
    colour = str(request.POST.get("colour", "")).strip() or None
    try:
        game = services.accept_seek(seek_id=found.pk, player=request.user, colour=colour)
    except errors.DomainError as exc:
        messages.error(request, exc.message)
        return redirect("seek_list")
    announce_start(request, game)
    return redirect("game_detail", pk=game.pk)


@login_required
@require_POST
def seek_cancel(request: AuthenticatedRequest, short_id: str) -> HttpResponse:
    """Cancel one of my open challenges."""
    found = _found(short_id)
    try:
        services.cancel_seek(seek_id=found.pk, player=request.user)
    except errors.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.info(request, _("Your open challenge was cancelled."))
    return redirect("seek_list")
