"""Tournament pages: the events (open, being played, over), an event's page with its
crosstables (``?partial=1``: only the tables, which the page fetches again whenever its
socket says a game ended), its games, all of them as one PGN file, and joining, leaving
and withdrawing (POST only).

Views parse the request, call :mod:`games.services` or the read model
(:mod:`games.state.tournaments`), and render; a domain error becomes a message on the
event's page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST, require_safe

from accounts.types import AuthenticatedRequest
from ajedrez.core.errors import DomainError
from games import errors, pgn_export, services
from games.models import Tournament
from games.state import tournaments as tournament_state

GAMES_PER_PAGE = 50
PGN_CONTENT_TYPE = "application/x-chess-pgn; charset=utf-8"


def _event_or_404(pk: int) -> Tournament:
    try:
        return tournament_state.tournament(pk)
    except errors.TournamentNotFound as exc:
        raise Http404(exc.message) from exc


@login_required
@require_safe
def tournament_list(request: AuthenticatedRequest) -> HttpResponse:
    """The events taking players, those being played, the last ones over, and mine."""
    return render(
        request,
        "tournaments/list.html",
        {
            "open": list(tournament_state.open_tournaments()),
            "running": list(tournament_state.running_tournaments()),
            "finished": list(tournament_state.finished_tournaments()),
            "mine": tournament_state.events_of(request.user, current_only=True),
        },
    )


@login_required
@require_safe
def tournament_detail(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """An event: what it is, who plays, the crosstables. ``?partial=1``: the tables only."""
    tournament = _event_or_404(pk)
    context: dict[str, object] = {
        "tournament": tournament,
        "rounds": tournament_state.crosstables(tournament),
    }
    if request.GET.get("partial") == "1":
        return render(request, "tournaments/_crosstables.html", context)
    entries = tournament_state.entries(tournament.pk)
    mine = next((e for e in entries if e.player_id == request.user.pk), None)
    registering = tournament.status == Tournament.Status.REGISTRATION
    context.update(
        entries=entries,
        my_entry=mine,
        can_join=registering and mine is None and len(entries) < tournament.max_players,
        can_leave=registering and mine is not None,
        can_withdraw=(
            tournament.status == Tournament.Status.RUNNING and mine is not None
            and not mine.withdrawn
        ),
        players_joined=len([e for e in entries if not e.withdrawn]),
    )
    return render(request, "tournaments/detail.html", context)


@login_required
@require_POST
def tournament_join(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    tournament = _event_or_404(pk)
    try:
        services.join_tournament(tournament_id=tournament.pk, player=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.RUNNING:
            messages.success(request, _("You joined %(event)s, which is full: it has started.")
                             % {"event": tournament.name})
        else:
            messages.success(request, _("You joined %(event)s. You will be told when it starts.")
                             % {"event": tournament.name})
    return redirect("tournament_detail", pk=tournament.pk)


@login_required
@require_POST
def tournament_leave(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    tournament = _event_or_404(pk)
    try:
        services.leave_tournament(tournament_id=tournament.pk, player=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.info(request, _("You left %(event)s.") % {"event": tournament.name})
    return redirect("tournament_detail", pk=tournament.pk)


@login_required
@require_POST
def tournament_withdraw(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """Withdraw from an event being played; the form's ``confirm`` box must be ticked,
    since the games left are forfeited."""
    tournament = _event_or_404(pk)
    if request.POST.get("confirm") != "yes":
        messages.error(
            request, _("Tick the box to confirm: your unfinished games will be forfeited.")
        )
        return redirect("tournament_detail", pk=tournament.pk)
    try:
        services.withdraw(tournament_id=tournament.pk, player=request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.info(request, _("You withdrew from %(event)s.") % {"event": tournament.name})
    return redirect("tournament_detail", pk=tournament.pk)


@login_required
@require_safe
def tournament_games(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """The event's games, group by group, a page at a time (``?page=n``)."""
    tournament = _event_or_404(pk)
    page = Paginator(tournament_state.tournament_games(tournament.pk), GAMES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(request, "tournaments/games.html", {"tournament": tournament, "page": page})


class EventPGNResponse(StreamingHttpResponse):
    """The streamed file, which frees its download slot when the server closes it."""

    def __init__(self, content: Iterator[bytes] | AsyncIterator[bytes], slot: pgn_export.Slot):
        super().__init__(content, content_type=PGN_CONTENT_TYPE)
        self.slot = slot

    def close(self) -> None:
        try:
            self.slot.release()
        finally:
            super().close()


@login_required
@require_safe
def tournament_pgn(request: AuthenticatedRequest, pk: int) -> HttpResponseBase:
    """Every game of the event as one PGN file (Event, Round and Site tags), streamed a
    batch at a time; one download at a time per player, as the archive's."""
    tournament = _event_or_404(pk)
    response: HttpResponseBase
    if request.method == "HEAD":
        response = HttpResponse(content_type=PGN_CONTENT_TYPE)
    elif (slot := pgn_export.take_slot(request.user.pk)) is None:
        limit = settings.PGN_DOWNLOADS_PER_PLAYER
        busy = HttpResponse(
            ngettext(
                "You are already downloading a PGN file. Wait for it to finish, then try "
                "again.",
                "You are already downloading %(count)d PGN files. Wait for one to finish, "
                "then try again.",
                limit,
            ) % {"count": limit},
            status=429,
            content_type="text/plain; charset=utf-8",
        )
        busy["Retry-After"] = str(pgn_export.SLOT_SECONDS)
        return busy
    else:
        games = tournament_state.tournament_games(tournament.pk)
        content = (
            pgn_export.astream(games, slot)
            if isinstance(request, ASGIRequest)
            else pgn_export.stream(games, slot)
        )
        response = EventPGNResponse(content, slot)
    name = slugify(tournament.name) or f"tournament-{tournament.pk}"
    response["Content-Disposition"] = f'attachment; filename="{name}.pgn"'
    return response
