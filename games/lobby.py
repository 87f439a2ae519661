"""The lobby pages: the dashboard, the players and their profiles, challenge actions, and
leaving the service (which ends the player's games, so the page lists them).

Views parse the request, call :mod:`games.selectors` or :mod:`games.services`, and render;
a domain error becomes a message on the page the player came from.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.forms import UnsubscribeForm
from accounts.types import AuthenticatedRequest, Player
from accounts.validators import USERNAME_MAX_LENGTH
from games import errors, rules, selectors, services
from games.models import Challenge, Game
from games.state import game_row, game_url
from ranking import selectors as ranking_selectors

RECENT_FINISHED_GAMES = 10
PLAYERS_PER_PAGE = 20
PROFILE_RECENT_GAMES = 15
CHALLENGE_TYPED_KEY = "challenge_typed"


def dashboard_context(player: Player) -> dict[str, object]:
    """Everything the dashboard shows, in a fixed number of queries."""
    rows = [game_row(g, player) for g in selectors.games_of(player, status=Game.Status.ACTIVE)]
    # Games waiting for me (a move, or an answer to a draw offer) first; among them, the
    # one waiting longest comes first, as a correspondence player answers the oldest
    # letter first.
    my_turn = sorted((r for r in rows if r.waits_for_me), key=lambda r: r.game.updated_at)
    their_turn = [r for r in rows if not r.waits_for_me]
    finished = [
        game_row(g, player)
        for g in selectors.games_of(player, status=Game.Status.FINISHED).order_by(
            "-finished_at", "-pk"
        )[:RECENT_FINISHED_GAMES]
    ]
    return {
        "my_turn_games": my_turn,
        "their_turn_games": their_turn,
        "incoming_challenges": list(selectors.pending_challenges_to(player)),
        "outgoing_challenges": list(selectors.pending_challenges_from(player)),
        "finished_games": finished,
    }


@login_required
@require_GET
def dashboard(request: AuthenticatedRequest) -> HttpResponse:
    """My games and challenges. ``?partial=1`` returns only the part that changes live."""
    context = dashboard_context(request.user)
    if request.GET.get("partial") == "1":
        return render(request, "lobby/_dashboard_live.html", context)
    context["challenge_typed"] = request.session.pop(CHALLENGE_TYPED_KEY, "")
    return render(request, "lobby/dashboard.html", context)


# --------------------------------------------------------------------------- challenges


def _back(request: HttpRequest) -> HttpResponseRedirect:
    """Back to the page the form was on (its ``next`` field), or to the dashboard."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return HttpResponseRedirect(target)
    return redirect("dashboard")


@login_required
@require_POST
def challenge_create(request: AuthenticatedRequest) -> HttpResponse:
    """Challenge the player named in the ``username`` field."""
    username = request.POST.get("username", "").strip()[:USERNAME_MAX_LENGTH]
    if not username:
        messages.error(request, _("Type the user name of the player to challenge."))
        return _back(request)
    try:
        opponent = account_selectors.active_player(username)
        services.challenge(challenger=request.user, challenged=opponent)
    except errors.DomainError as exc:
        if isinstance(exc, account_errors.UserNotFound):
            message = _("There is no active player called “%(name)s”.") % {"name": username}
        else:
            message = exc.message
        messages.error(request, message)
        # The dashboard's form shows the name again, to be corrected rather than retyped.
        request.session[CHALLENGE_TYPED_KEY] = username
    else:
        messages.success(
            request,
            _("Challenge sent to %(name)s. The game starts when they accept.")
            % {"name": opponent.username},
        )
    return _back(request)


@login_required
@require_POST
def challenge_accept(request: AuthenticatedRequest, pk: int, colour: str) -> HttpResponse:
    """Accept a challenge made to me, playing ``colour`` (white, black or random).

    On success the player lands on the new game's page; on a refusal, back where the
    form was, with the reason.
    """
    if colour == "random":
        colour = secrets.choice((rules.WHITE, rules.BLACK))
    try:
        game = services.accept_challenge(challenge_id=pk, player=request.user, colour=colour)
    except errors.DomainError as exc:
        messages.error(request, exc.message)
    else:
        opponent = game.black if game.white_id == request.user.pk else game.white
        messages.success(
            request,
            _("Game %(game)s against %(name)s has started: you play %(colour)s.")
            % {
                "game": game.public_id,
                "name": opponent.username,
                "colour": _("white") if game.white_id == request.user.pk else _("black"),
            },
        )
        # Accepting is the moment to play: straight to the board, as on lichess.
        return redirect("game_detail", pk=game.pk)
    return _back(request)


@login_required
@require_POST
def challenge_decline(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """Turn down a challenge made to me."""
    try:
        declined = services.decline_challenge(challenge_id=pk, player=request.user)
    except errors.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.info(
            request,
            _("You declined %(name)s's challenge.") % {"name": declined.challenger.username},
        )
    return _back(request)


@login_required
@require_POST
def challenge_withdraw(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """Take back a challenge I made."""
    try:
        withdrawn = services.withdraw_challenge(challenge_id=pk, player=request.user)
    except errors.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.info(
            request,
            _("You withdrew your challenge to %(name)s.")
            % {"name": withdrawn.challenged.username},
        )
    return _back(request)


# --------------------------------------------------------------------------- players


@dataclass(frozen=True)
class Relation:
    """Where a listed player stands with me: a game in progress, a pending challenge."""

    game_url: str = ""
    challenge_sent: Challenge | None = None
    challenge_received: Challenge | None = None

    @property
    def can_challenge(self) -> bool:
        return not (self.game_url or self.challenge_sent or self.challenge_received)


def _relations(player: Player) -> dict[int, Relation]:
    """My relation to every other player, in two queries."""
    relations = {
        other: Relation(game_url=game_url(game_id))
        for other, game_id in selectors.opponents_in_active_games(player).items()
    }
    for found in selectors.pending_challenges_between(player):
        if found.challenger_id == player.pk:
            relations[found.challenged_id] = Relation(challenge_sent=found)
        else:
            relations[found.challenger_id] = Relation(challenge_received=found)
    return relations


@login_required
@require_GET
def players(request: AuthenticatedRequest) -> HttpResponse:
    """Active players, searchable by user name or full name, with a challenge button."""
    query = request.GET.get("q", "").strip()
    found = account_selectors.active_players(query)
    page = Paginator(found, PLAYERS_PER_PAGE).get_page(request.GET.get("page"))
    relations = _relations(request.user)
    rows = [(p, relations.get(p.pk, Relation())) for p in page.object_list]
    return render(
        request,
        "players/list.html",
        {"page": page, "rows": rows, "query": query},
    )


@login_required
@require_GET
def player_detail(request: AuthenticatedRequest, username: str) -> HttpResponse:
    """A player's record (wins, losses, draws, rating) and recent games."""
    try:
        player = account_selectors.active_player(username)
    except account_errors.UserNotFound as exc:
        raise Http404(exc.message) from exc
    record = ranking_selectors.record_of(player.pk)
    games = list(selectors.games_of(player)[:PROFILE_RECENT_GAMES])
    recent = [game_row(g, player) for g in games]
    relation = (
        None if player.pk == request.user.pk
        else _relations(request.user).get(player.pk, Relation())
    )
    return render(
        request,
        "players/detail.html",
        {"player": player, "record": record, "recent_games": recent, "relation": relation},
    )


# --------------------------------------------------------------------------- leaving


@login_required
@require_http_methods(["GET", "POST"])
def unsubscribe(request: AuthenticatedRequest) -> HttpResponse:
    """Leave the service, confirming with the password; games in progress are lost."""
    player = request.user
    form = UnsubscribeForm(request.POST or None, player=player)
    if request.method == "POST" and form.is_valid():
        try:
            account_services.unsubscribe(player=player, password=form.cleaned_data["password"])
        except account_errors.WrongPassword as exc:
            form.add_error("password", exc.message)
        else:
            logout(request)
            return render(request, "accounts/unsubscribed.html")
    active_games = selectors.games_of(player, status=Game.Status.ACTIVE)
    return render(
        request, "accounts/unsubscribe.html", {"form": form, "active_games": active_games}
    )
