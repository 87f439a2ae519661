"""Reads of challenges and games. Each returns in a bounded number of indexed queries.

Reads never write. A game whose deadline has passed reads as it will be once ended
(:func:`effective`: lost on time by the player it waited for, or aborted, as
:func:`games.clock.expiry` decides), whether or not the sweep (``manage.py
expire_games``, the job in ``manage.py serve``) has come by; only the sweep and the
write path (the services) end it in the database. The lists of a player's games sort
such a game with the finished ones, by the same rule written in SQL.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Case, F, Q, QuerySet, When
from django.db.models.functions import Coalesce
from django.db.models.query import ModelIterable
from django.utils import timezone

from accounts.types import Player
from games import clock, errors, rules
from games.models import Challenge, Game, Move, Notification, SiteRules, Vacation
from games.models.games import SHORT_ID_LENGTH, is_short_id

# lichess's full id: the game's and four letters naming the player's side.
FULL_ID_LENGTH = SHORT_ID_LENGTH + 4

# --------------------------------------------------------------------------- effective state


def effective(game: Game, now: dt.datetime | None = None) -> Game:
    """``game`` as it stands at ``now``: itself, or, when its running clock has passed
    its deadline, a copy ended as the sweep will end it (never saved: the copy is what
    readers see until the sweep or the next action writes the same ending)."""
    ended = clock.expiry_of(game, now or timezone.now())
    if ended is None:
        return game
    shown = copy.copy(game)
    shown.status = Game.Status.FINISHED
    shown.result = ended.outcome.result
    shown.termination = ended.outcome.termination.value
    shown.ended_by = ""
    shown.draw_offer_by = ""
    shown.finished_at = ended.at
    shown.deadline = None
    shown.time_left = None
    shown.paused_at = None
    return shown


class _EffectiveGames(ModelIterable):
    """Games read from a queryset as :func:`effective` shows them."""

    def __iter__(self) -> Iterator[Game]:
        now = timezone.now()
        for game in super().__iter__():
            yield effective(game, now)


def _effective(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` (and every queryset made from it) yielding effective games."""
    games = games.all()
    games._iterable_class = _EffectiveGames
    return games


def _due(now: dt.datetime) -> Q:
    """A running clock past its deadline (a deadline is set only while a game is in
    progress: the services clear it when it ends)."""
    return Q(deadline__lte=now, paused_at__isnull=True)


def _running(now: dt.datetime) -> Q:
    """Not :func:`_due`: no clock, time left, or a clock standing still."""
    return Q(deadline__isnull=True) | Q(deadline__gt=now) | Q(paused_at__isnull=False)


def _in_status(status: str, now: dt.datetime) -> list[Q]:
    """The conditions (any of them) of a game whose effective status is ``status``."""
    if status == Game.Status.ACTIVE:
        return [Q(status=Game.Status.ACTIVE) & _running(now)]
    if status == Game.Status.FINISHED:
        return [Q(status=Game.Status.FINISHED), Q(status=Game.Status.ACTIVE) & _due(now)]
    return [Q(status=status)]


def _of_player(player: Player, conditions: list[Q]) -> QuerySet[Game]:
    # Each side of the OR starts with the player and the status, as ``of_player`` does,
    # so that SQLite reads only this player's games through the per-player indexes.
    sides = Q()
    for condition in conditions:
        sides |= (Q(white=player) & condition) | (Q(black=player) & condition)
    return Game.objects.filter(sides)


# --------------------------------------------------------------------------- games


def game(game_id: int) -> Game:
    """The game with both players loaded, as it stands now (:func:`effective`);
    :class:`~games.errors.GameNotFound` otherwise."""
    try:
        found = Game.objects.select_related("white", "black").get(pk=game_id)
    except Game.DoesNotExist as exc:
        raise errors.GameNotFound() from exc
    return effective(found)


def game_pk_of(text: str) -> int | None:
    """The number of the game ``text`` names, as any door writes it: its short id
    (``abcd1234``), lichess's full id (the short id and four letters more), its number
    (``12``) or ESPOL's name (``P0000012``); None when it names no game."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        return _a_key(int(text))
    if text.isascii() and (pk := Game.pk_from_public_id(text)) is not None:
        return _a_key(pk)
    if len(text) == FULL_ID_LENGTH:
        text = text[:SHORT_ID_LENGTH]
    if not is_short_id(text):
        return None
    return Game.objects.filter(short_id=text).values_list("pk", flat=True).first()


def _a_key(number: int) -> int | None:
    # A number past the key's 64 bits names no game, and PostgreSQL refuses to look.
    return number if 0 < number < 2**63 else None


def challenge_by_short_id(short_id: str) -> Challenge | None:
    """The challenge with this short id, with its players, or None."""
    if not is_short_id(short_id):
        return None
    return (
        Challenge.objects.select_related("challenger", "challenged")
        .filter(short_id=short_id)
        .first()
    )


def game_for_player(game_id: int, player: Player) -> Game:
    """The game, if ``player`` plays in it; :class:`~games.errors.GameNotFound` otherwise."""
    found = game(game_id)
    if found.colour_of(player.pk) is None:
        raise errors.GameNotFound()
    return found


def games_of(player: Player, *, status: str | None = None) -> QuerySet[Game]:
    """``player``'s games, most recently changed first; ``status`` is the effective one
    (a game whose time ran out counts as finished)."""
    games: QuerySet[Game] = (
        Game.objects.of_player(player)
        if status is None
        else _of_player(player, _in_status(status, timezone.now()))
    )
    return _effective(games.select_related("white", "black").order_by("-updated_at", "-pk"))


def games_changed_since(player: Player, since: dt.datetime) -> QuerySet[Game]:
    """``player``'s games created or changed after ``since``, finished ones included."""
    return games_of(player).filter(updated_at__gt=since).order_by("pk")


def games_run_out(now: dt.datetime) -> QuerySet:
    """Ids of the games whose running clock passed its deadline by ``now``, earliest
    first: one range scan of the partial index ``game_deadline_running``, which holds
    only the clocks that run (finished games and paused clocks are not in it)."""
    return (
        Game.objects.filter(deadline__lte=now, paused_at__isnull=True)
        .order_by("deadline", "pk")
        .values_list("pk", flat=True)
    )


def moves(game_id: int, *, after: int = 0, until: int | None = None) -> QuerySet[Move]:
    """The moves of a game numbered after ``after`` (0 = all) and, with ``until``, up to
    that number, in order."""
    found = Move.objects.filter(game_id=game_id, number__gt=after)
    if until is not None:
        found = found.filter(number__lte=until)
    return found.order_by("number")


def pending_challenges_to(
    player: Player, *, since: dt.datetime | None = None
) -> QuerySet[Challenge]:
    challenges = Challenge.objects.filter(
        challenged=player, status=Challenge.Status.PENDING
    ).select_related("challenger", "challenged")
    if since is not None:
        challenges = challenges.filter(created_at__gt=since)
    return challenges.order_by("created_at")


def pending_challenges_from(player: Player) -> QuerySet[Challenge]:
    return (
        Challenge.objects.filter(challenger=player, status=Challenge.Status.PENDING)
        .select_related("challenger", "challenged")
        .order_by("created_at")
    )


def pending_challenges_between(player: Player) -> QuerySet[Challenge]:
    """Every pending challenge ``player`` made or received."""
    return Challenge.objects.filter(
        Q(challenger=player) | Q(challenged=player), status=Challenge.Status.PENDING
    )


def games_per_pair() -> int:
    """How many games two players may have in progress together: the administrator's
    "Site rules" when saved with a value, else the environment's ``GAMES_PER_PAIR``."""
    chosen = (
        SiteRules.objects.filter(pk=SiteRules.SINGLETON)
        .values_list("games_per_pair", flat=True)
        .first()
    )
    return chosen or settings.GAMES_PER_PAIR


def pair_games_in_progress(a_id: int, b_id: int) -> QuerySet[Game]:
    """The games in progress between players ``a_id`` and ``b_id`` that count against
    :func:`games_per_pair`, oldest first. The one definition of that count, at every door.

    As stored, a game whose time ran out included: until the sweep ends it, it still
    counts, so a challenge offered on the strength of it would only be refused. A
    tournament's games are left out: an event pairs players whatever they play besides."""
    return Game.objects.filter(
        Q(white_id=a_id, black_id=b_id, status=Game.Status.ACTIVE, tournament__isnull=True)
        | Q(white_id=b_id, black_id=a_id, status=Game.Status.ACTIVE, tournament__isnull=True)
    ).order_by("pk")


def opponents_in_active_games(player: Player) -> dict[int, list[int]]:
    """``{opponent id: [game id, …]}`` for ``player``'s games in progress, oldest first
    (one query). As stored, like :func:`pair_games_in_progress`."""
    active = Game.objects.of_player(player, status=Game.Status.ACTIVE).order_by("pk")
    found: dict[int, list[int]] = {}
    for game_id, white_id, black_id in active.values_list("pk", "white_id", "black_id"):
        found.setdefault(white_id if black_id == player.pk else black_id, []).append(game_id)
    return found


def opponents_at_pair_limit(player: Player) -> set[int]:
    """The players with whom ``player`` has as many games in progress as
    :func:`games_per_pair` allows (two queries): a challenge or an open challenge
    between them would only be refused. Counted as :func:`pair_games_in_progress`."""
    limit = games_per_pair()
    counted = Game.objects.of_player(player, status=Game.Status.ACTIVE).filter(
        tournament__isnull=True
    )
    per_opponent: dict[int, int] = {}
    for white_id, black_id in counted.values_list("white_id", "black_id"):
        opponent = white_id if black_id == player.pk else black_id
        per_opponent[opponent] = per_opponent.get(opponent, 0) + 1
    return {opponent for opponent, games in per_opponent.items() if games >= limit}


# The order of each list of a player's games. "Your move": the least time left on a
# running clock first; then, without a running clock (none, or standing still while the
# player is on vacation), the game that has waited longest, as a correspondence player
# answers the oldest letter first. Each list is ordered by its key alone, here, so that
# the dashboard, its pages and their windows agree.
YOUR_MOVE_ORDER = (
    Case(When(paused_at__isnull=True, then=F("deadline"))).asc(nulls_last=True),
    "updated_at",
    "pk",
)
THEIR_MOVE_ORDER = ("-updated_at", "-pk")
# A game whose time ran out, not yet ended by the sweep, finished at its deadline.
FINISHED_ORDER = (Coalesce("finished_at", "deadline").desc(), "-pk")


def _next_step_is(colour: str) -> Q:
    """Games in progress whose next step is ``colour``'s: the answer to the draw offer the
    other side made or, with no offer pending, a move when ``colour`` is to move (the
    FEN's second field: ``" w "`` or ``" b "`` appears nowhere else in a FEN). The same
    rule as :attr:`games.state.GameRow.waits_for_me`, in SQL, so that a list can be
    windowed by the database instead of sorted from all the player's games."""
    other = rules.BLACK if colour == rules.WHITE else rules.WHITE
    side = " w " if colour == rules.WHITE else " b "
    return Q(draw_offer_by=other) | Q(draw_offer_by="", fen__contains=side)


def _active_games_where(player: Player, *, white_step: Q, black_step: Q) -> QuerySet[Game]:
    # Each side of the OR starts with the player and the status, as ``of_player`` does,
    # so that SQLite reads only this player's games through the per-player indexes.
    # A game whose time ran out is in neither list: it reads as finished.
    active = Q(status=Game.Status.ACTIVE) & _running(timezone.now())
    as_white = Q(white=player) & active & white_step
    as_black = Q(black=player) & active & black_step
    return _effective(Game.objects.filter(as_white | as_black).select_related("white", "black"))


def games_waiting_for(player: Player) -> QuerySet[Game]:
    """``player``'s games in progress whose next step is theirs, in ``YOUR_MOVE_ORDER``."""
    games = _active_games_where(
        player, white_step=_next_step_is(rules.WHITE), black_step=_next_step_is(rules.BLACK)
    )
    return games.order_by(*YOUR_MOVE_ORDER)


def next_game_waiting_for(player: Player, *, besides: int | None = None) -> Game | None:
    """The game ``player`` should turn to next: the first of :func:`games_waiting_for`
    (the least time left first), other than the game ``besides``; ``None`` if none."""
    games = games_waiting_for(player)
    if besides is not None:
        games = games.exclude(pk=besides)
    return games.first()


def games_waiting_for_opponent(player: Player) -> QuerySet[Game]:
    """``player``'s games in progress whose next step is the opponent's, in
    ``THEIR_MOVE_ORDER``."""
    games = _active_games_where(
        player, white_step=_next_step_is(rules.BLACK), black_step=_next_step_is(rules.WHITE)
    )
    return games.order_by(*THEIR_MOVE_ORDER)


def finished_games_of(player: Player) -> QuerySet[Game]:
    """``player``'s finished games, in ``FINISHED_ORDER`` (the latest first)."""
    return games_of(player, status=Game.Status.FINISHED).order_by(*FINISHED_ORDER)


def pending_challenge(*, challenger_name: str, challenged: Player) -> Challenge:
    """The pending challenge from the player named ``challenger_name`` to ``challenged``."""
    found = (
        Challenge.objects.filter(
            challenger__username=challenger_name,
            challenged=challenged,
            status=Challenge.Status.PENDING,
        )
        .select_related("challenger", "challenged")
        .first()
    )
    if found is None:
        raise errors.ChallengeNotFound()
    return found


@dataclass(frozen=True)
class ArchiveFilter:
    """What a player's archive is narrowed to; every field optional."""

    opponent_id: int | None = None
    result: str = ""  # "won", "lost", "drawn"
    colour: str = ""  # "white", "black"
    finished_from: dt.datetime | None = None
    finished_before: dt.datetime | None = None
    opening: str = ""  # an ECO code or its start ("C", "C6"), or words of the name
    search: str = ""  # opponent's name, opening's name or the game's public id


# The result, from the archive owner's side, as the stored result of each colour.
_RESULTS = {
    "won": {rules.WHITE: "1-0", rules.BLACK: "0-1"},
    "lost": {rules.WHITE: "0-1", rules.BLACK: "1-0"},
    "drawn": {rules.WHITE: "1/2-1/2", rules.BLACK: "1/2-1/2"},
}
ECO_PREFIX = re.compile(r"[A-Ea-e][0-9]{0,2}")


def archive(player: Player, wanted: ArchiveFilter) -> QuerySet[Game]:
    """``player``'s finished games matching ``wanted``, latest first.

    Built as one condition per colour, each starting with (colour = player, status) so
    that each side reads the (colour, status, finished_at) index, as ``of_player`` does;
    the colour's own conditions (the result as that colour, the opponent on the other
    side) sit inside it.
    """
    common = Q(status=Game.Status.FINISHED)
    if wanted.finished_from is not None:
        common &= Q(finished_at__gte=wanted.finished_from)
    if wanted.finished_before is not None:
        common &= Q(finished_at__lt=wanted.finished_before)
    if wanted.opening:
        if ECO_PREFIX.fullmatch(wanted.opening):
            common &= Q(opening_eco__startswith=wanted.opening.upper())
        else:
            common &= Q(opening_name__icontains=wanted.opening)
    sides = Q()
    for colour, mine, theirs in ((rules.WHITE, "white", "black"), (rules.BLACK, "black", "white")):
        if wanted.colour and wanted.colour != colour:
            continue
        side = Q(**{mine: player}) & common
        if wanted.result:
            side &= Q(result=_RESULTS[wanted.result][colour])
        if wanted.opponent_id is not None:
            side &= Q(**{f"{theirs}_id": wanted.opponent_id})
        if wanted.search:
            found = Q(**{f"{theirs}__username__icontains": wanted.search})
            found |= Q(opening_name__icontains=wanted.search)
            if (pk := Game.pk_from_public_id(wanted.search)) is not None:
                found |= Q(pk=pk)
            side &= found
        sides |= side
    if not sides:
        return Game.objects.none()
    return (
        Game.objects.filter(sides)
        .select_related("white", "black")
        .order_by("-finished_at", "-pk")
    )


def repetition_window(game: Game) -> tuple[str, list[str]]:
    """The moves a repetition can reach in ``game``'s current position, and where they start.

    Returns (FEN before the window, UCI moves of the window). Only moves since the last
    capture or pawn move can repeat a position, and the 75-move rule caps them at 150
    plies, so this reads at most 151 rows through the (game, number) index, however
    long the game. The services judge fivefold repetition and draw claims on it; the read
    model tells the players what they may claim from the same rows.
    """
    played = game.next_move_number - 1
    clock = rules.halfmove_clock(game.fen)
    if played == 0:
        return game.start_fen, []
    first = max(1, played - clock)
    rows = list(
        # Bounded above too: ``game`` may be a copy from before later moves (an event's
        # message is built after its commit, when the next move may have committed).
        Move.objects.filter(game_id=game.pk, number__gte=first, number__lte=played)
        .order_by("number")
        .values_list("number", "uci", "fen_after")
    )
    if rows[0][0] == played - clock:
        # The first row is the move just before the window: its position is the base.
        base_fen, window = rows[0][2], rows[1:]
    else:
        base_fen, window = game.start_fen, rows
    return base_fen, [uci for _, uci, _ in window]


def move_records(game_id: int, *, after: int = 0) -> list[tuple[int, str, bool]]:
    """``(number, uci, reverse)`` of the moves numbered after ``after``, in order.

    What ESPOL SPAR sends, read as tuples: a client catching up may ask for a long game,
    and building a Move object per row would cost more than the query.
    """
    return list(moves(game_id, after=after).values_list("number", "uci", "reverse"))




# --------------------------------------------------------------------------- vacation


def on_vacation(player_ids: list[int]) -> set[int]:
    """Which of ``player_ids`` are on vacation now (one indexed query)."""
    return set(
        Vacation.objects.filter(player_id__in=player_ids, ended_at__isnull=True).values_list(
            "player_id", flat=True
        )
    )


def current_vacation(player: Player) -> Vacation | None:
    return Vacation.objects.filter(player=player, ended_at__isnull=True).first()


def vacation_used(
    player: Player, *, year: int, now: dt.datetime | None = None
) -> dt.timedelta:
    """How much vacation ``player`` has taken in calendar ``year`` (UTC), the running
    spell counted up to ``now``."""
    now = now or timezone.now()
    start = dt.datetime(year, 1, 1, tzinfo=dt.UTC)
    end = dt.datetime(year + 1, 1, 1, tzinfo=dt.UTC)
    used = dt.timedelta(0)
    spells = Vacation.objects.filter(player=player, started_at__lt=end).filter(
        Q(ended_at__isnull=True) | Q(ended_at__gt=start)
    )
    for spell in spells:
        spell_end = min(spell.ended_at or now, now, end)
        used += max(dt.timedelta(0), spell_end - max(spell.started_at, start))
    return used


def vacation_left(player: Player, *, now: dt.datetime | None = None) -> dt.timedelta:
    """What is left of this year's ``VACATION_DAYS_PER_YEAR`` for ``player``."""
    now = now or timezone.now()
    total = dt.timedelta(days=settings.VACATION_DAYS_PER_YEAR)
    return max(dt.timedelta(0), total - vacation_used(player, year=now.year, now=now))


def games_in_progress(*, limit: int = 50, player: str = "", kind: str = "") -> QuerySet[Game]:
    """Games in progress, the most recently changed first, with their players.

    ``player``: part of either player's user name; ``kind``: ``"rated"`` or
    ``"unrated"`` (games with a gateway's guest) to keep only those.
    """
    games = Game.objects.filter(Q(status=Game.Status.ACTIVE) & _running(timezone.now()))
    if player:
        games = games.filter(
            Q(white__username__icontains=player) | Q(black__username__icontains=player)
        )
    if kind in ("rated", "unrated"):
        games = games.filter(rated=kind == "rated")
    return games.select_related("white", "black").order_by("-updated_at")[:limit]


def notifications_of(player_id: int) -> QuerySet[Notification]:
    """A player's notifications, newest first, with what their texts name."""
    return (
        Notification.objects.filter(recipient_id=player_id)
        .select_related("actor", "game", "game__tournament", "game__tournament_group")
        .order_by("-created_at", "-pk")
    )
