"""The lobby pages: the dashboard, the players and their profiles, challenge actions, and
leaving the service (which ends the player's games, so the page lists them).

Views parse the request, call :mod:`games.selectors` or :mod:`games.services`, and render;
a domain error becomes a message on the page the player came from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
    QueryDict,
)
from django.shortcuts import redirect, render
from django.utils.functional import Promise
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts.forms import UnsubscribeForm
from accounts.types import AuthenticatedRequest, Player
from accounts.validators import USERNAME_MAX_LENGTH
from games import clock, errors, notifications, selectors, services, state
from games.models import Game
from games.state import GameRow, LiveGame, Relation, awaiting_count, game_row, relations_of
from games.state import seeks as seek_state
from games.web import announce_start
from ranking import selectors as ranking_selectors

RECENT_FINISHED_GAMES = 10
# The games in progress the dashboard lists in each of its two lists; the rest are on the
# lists' own pages ("more"), so the dashboard's time does not grow with a player's games.
DASHBOARD_GAMES_PER_LIST = 20
GAMES_PER_PAGE = 25
PLAYERS_PER_PAGE = 20
PROFILE_RECENT_GAMES = 15
CHALLENGE_TYPED_KEY = "challenge_typed"
# The time control chosen in a refused challenge: the form comes back with it.
CHALLENGE_DAYS_KEY = "challenge_days"
# The time-control select's value that asks for a Fischer clock (its days in three fields).
FISCHER_CHOICE = "fischer"


@dataclass(frozen=True)
class GameWindow:
    """The first games of one of a player's lists, and how many the list holds."""

    rows: list[GameRow]
    total: int

    @property
    def hidden(self) -> int:
        return self.total - len(self.rows)


def game_window(games: QuerySet[Game], player: Player, size: int) -> GameWindow:
    """The first ``size`` of ``games`` as ``player``'s rows; the list is counted only
    when it holds more than that (one query fewer for most players)."""
    first = list(games[: size + 1])
    rows = [game_row(g, player) for g in first[:size]]
    total = games.count() if len(first) > size else len(rows)
    return GameWindow(rows=rows, total=total)


def dashboard_context(player: Player) -> dict[str, object]:
    """Everything the dashboard shows, in a fixed number of queries, with a fixed number
    of games however many the player has (each list's order: ``games.selectors``)."""
    # A game whose time ran out is in the finished list, in neither list in progress
    # (games.selectors.effective): nothing is written to show it so.
    finished = game_window(selectors.finished_games_of(player), player, RECENT_FINISHED_GAMES)
    my_turn = game_window(selectors.games_waiting_for(player), player, DASHBOARD_GAMES_PER_LIST)
    their_turn = game_window(
        selectors.games_waiting_for_opponent(player), player, DASHBOARD_GAMES_PER_LIST
    )
    return {
        "my_turn": my_turn,
        "their_turn": their_turn,
        "incoming_challenges": list(selectors.pending_challenges_to(player)),
        "outgoing_challenges": list(selectors.pending_challenges_from(player)),
        "finished": finished,
        # Opponents in games in progress who are on vacation (their clocks stand still).
        "away": selectors.on_vacation(
            [r.opponent.pk for r in (*my_turn.rows, *their_turn.rows)]
        ),
        "open_seeks": seek_state.dashboard_seeks(player),
    }


@login_required
@require_safe
def dashboard(request: AuthenticatedRequest) -> HttpResponse:
    """My games and challenges. ``?partial=1`` returns only the part that changes live."""
    context = dashboard_context(request.user)
    if request.GET.get("partial") == "1":
        return render(request, "lobby/_dashboard_live.html", context)
    context["challenge_typed"] = request.session.pop(CHALLENGE_TYPED_KEY, "")
    context["challenge_days"] = request.session.pop(CHALLENGE_DAYS_KEY, "")
    context["my_tournaments"] = state.tournaments.current_entries_of(request.user)
    return render(request, "lobby/dashboard.html", context)


def _challenge_again(request: AuthenticatedRequest) -> dict[str, str]:
    """The refused challenge a players' page shows again (whom, and the time control
    chosen), taken from the session: once."""
    return {
        "username": request.session.pop(CHALLENGE_TYPED_KEY, ""),
        "days": request.session.pop(CHALLENGE_DAYS_KEY, ""),
    }


# The lists the dashboard windows, each on pages of its own: (selector, heading).
GAME_LISTS: dict[str, tuple[Callable[[Player], QuerySet[Game]], Promise]] = {
    "your-move": (selectors.games_waiting_for, gettext_lazy("Your move")),
    "their-move": (selectors.games_waiting_for_opponent,
                   gettext_lazy("Waiting for your opponent")),
    "finished": (selectors.finished_games_of, gettext_lazy("Finished games")),
}


LIVE_GAMES_SHOWN = 100


@login_required
@require_safe
def game_list(request: AuthenticatedRequest, section: str) -> HttpResponse:
    """One of the player's game lists, a page at a time (``?page=n``)."""
    try:
        select, heading = GAME_LISTS[section]
    except KeyError:
        raise Http404(_("No such list of games.")) from None
    page = Paginator(select(request.user), GAMES_PER_PAGE).get_page(request.GET.get("page"))
    rows = [game_row(g, request.user) for g in page.object_list]
    return render(
        request, "lobby/game_list.html", {"page": page, "rows": rows, "heading": heading}
    )


@login_required
@require_safe
def live_games(request: AuthenticatedRequest) -> HttpResponse:
    """Games in progress, any of which a logged-in player may open and watch; filtered
    by a player's name and by rated or unrated. ``?partial=1``: only the list, which the
    page fetches again whenever a game changes (its socket says when)."""
    player = request.GET.get("player", "").strip()[:USERNAME_MAX_LENGTH]
    kind = request.GET.get("kind", "")
    kind = kind if kind in ("rated", "unrated") else ""
    games = [
        LiveGame(game)
        for game in selectors.games_in_progress(
            limit=LIVE_GAMES_SHOWN, player=player, kind=kind
        )
    ]
    context = {"live_games": games, "player": player, "kind": kind, "shown": LIVE_GAMES_SHOWN}
    if request.GET.get("partial") == "1":
        return render(request, "lobby/_live_games.html", context)
    return render(request, "lobby/live.html", context)


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
    """Challenge the player named in the ``username`` field, with ``days_per_move`` days
    per move (``none`` or absent: no time limit); ``colour`` says who picks the colours
    (``acceptor``, the default: the challenged player; or ``white``, ``black``,
    ``random``: the challenger, now)."""
    username = request.POST.get("username", "").strip()[:USERNAME_MAX_LENGTH]
    # Kept as sent only if it is one of the choices offered, for the form to select it.
    chosen = str(request.POST.get("days_per_move", "")).strip()
    offered = {value for value, _label, _offered in clock.time_control_choices()}
    if chosen not in offered | {FISCHER_CHOICE}:
        chosen = ""
    if not username:
        messages.error(request, _("Type the user name of the player to challenge."))
        request.session[CHALLENGE_DAYS_KEY] = chosen
        return _back(request)
    try:
        fischer = None
        if chosen == FISCHER_CHOICE:
            days, fischer = None, _fischer(request.POST)
        else:
            days = _days_per_move(request.POST.get("days_per_move", ""))
        opponent = account_selectors.active_player(username)
        services.challenge(
            challenger=request.user,
            challenged=opponent,
            days_per_move=days,
            fischer=fischer,
            colour=request.POST.get("colour", "") or "acceptor",
        )
    except errors.DomainError as exc:
        if isinstance(exc, account_errors.UserNotFound):
            message = _("There is no active player called “%(name)s”.") % {"name": username}
        else:
            message = exc.message
        messages.error(request, message)
        # The form shows the name and the time control again, to be corrected rather
        # than typed and chosen again.
        request.session[CHALLENGE_TYPED_KEY] = username
        request.session[CHALLENGE_DAYS_KEY] = chosen
    else:
        sent = _("Challenge sent to %(name)s. The game starts when they accept.") % {
            "name": opponent.username
        }
        if selectors.on_vacation([opponent.pk]):
            sent += " " + _("%(name)s is on vacation: expect a late answer.") % {
                "name": opponent.username
            }
        messages.success(request, sent)
    return _back(request)


def _fischer(form: QueryDict) -> clock.Fischer:
    """The form's Fischer clock, from ``fischer_base_days``, ``fischer_increment_days``
    and ``fischer_cap_days``: whole numbers of days (the service says whether they make
    a clock)."""
    numbers = []
    for name in ("fischer_base_days", "fischer_increment_days", "fischer_cap_days"):
        text = str(form.get(name, "")).strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 4):
            raise errors.InvalidTimeControl(
                _("The Fischer clock's base, increment and cap must be whole days.")
            )
        numbers.append(int(text))
    return clock.Fischer(*numbers)


def _days_per_move(text: str) -> int | None:
    """The form's ``days_per_move``: ``""`` or ``none`` for no clock, else a number of
    days (the service says whether it is one offered)."""
    text = text.strip()
    if text in ("", "none"):
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 3):
        raise errors.InvalidTimeControl()
    return int(text)


@login_required
@require_POST
def challenge_accept(request: AuthenticatedRequest, pk: int, colour: str) -> HttpResponse:
    """Accept a challenge made to me, playing ``colour`` (white, black or random; for a
    challenge whose challenger chose the colours, random takes the one left).

    On success the player lands on the new game's page; on a refusal, back where the
    form was, with the reason.
    """
    try:
        game = services.accept_challenge(
            challenge_id=pk, player=request.user, colour=None if colour == "random" else colour
        )
    except errors.DomainError as exc:
        messages.error(request, exc.message)
    else:
        announce_start(request, game)
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


@login_required
@require_safe
def players(request: AuthenticatedRequest) -> HttpResponse:
    """Active players, searchable by user name or full name, with a challenge button."""
    query = request.GET.get("q", "").strip()
    found = account_selectors.active_players(query)
    page = Paginator(found, PLAYERS_PER_PAGE).get_page(request.GET.get("page"))
    relations = relations_of(request.user)
    rows = [(p, relations.get(p.pk, Relation())) for p in page.object_list]
    away = selectors.on_vacation([p.pk for p in page.object_list])
    bots = account_selectors.bots_among([p.pk for p in page.object_list])
    return render(
        request,
        "players/list.html",
        {
            "page": page,
            "rows": rows,
            "query": query,
            "away": away,
            "bots": bots,
            "challenge_again": _challenge_again(request),
        },
    )


@login_required
@require_safe
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
        else relations_of(request.user).get(player.pk, Relation())
    )
    return render(
        request,
        "players/detail.html",
        {
            "player": player,
            "record": record,
            "recent_games": recent,
            "relation": relation,
            "away": selectors.on_vacation([player.pk]),
            "bots": account_selectors.bots_among([player.pk]),
            "rating_chart": ranking_selectors.rating_chart(player.pk),
            "challenge_again": _challenge_again(request),
            "events": state.tournaments.events_of(player),
        },
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


# --------------------------------------------------------------------------- vacation


@login_required
@require_http_methods(["GET", "POST"])
def vacation(request: AuthenticatedRequest) -> HttpResponse:
    """Go on vacation (``action=start``) or come back (``action=end``); the page says
    how much of this year's allowance is left."""
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "start":
                services.start_vacation(player=request.user)
                messages.success(request, _("You are on vacation: your clocks stand still."))
            elif action == "end":
                services.end_vacation(player=request.user)
                messages.success(request, _("Welcome back: your clocks run again."))
            else:
                messages.error(request, _("Choose to start or to end your vacation."))
        except errors.DomainError as exc:
            messages.error(request, exc.message)
        return redirect("vacation")
    left = selectors.vacation_left(request.user)
    return render(
        request,
        "lobby/vacation.html",
        {
            "current": selectors.current_vacation(request.user),
            "days_left": left.days,
            "hours_left": left.seconds // 3600,
            "days_per_year": settings.VACATION_DAYS_PER_YEAR,
        },
    )


@login_required
@require_safe
def awaiting(request: AuthenticatedRequest) -> JsonResponse:
    """How many games wait for me, and my unread notifications, as JSON: every page's
    tab title and bell show them."""
    return JsonResponse(
        {
            "awaiting": awaiting_count(request.user),
            "notifications": notifications.unread_count(request.user.pk),
        }
    )
