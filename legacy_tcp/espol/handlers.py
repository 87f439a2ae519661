"""ESPOL commands carried out: one function per command, each a call of the service layer.

Every function here is synchronous and touches the database: the server runs them in a
worker thread (``sync_to_async``), never on the event loop. They turn a parsed command
into a :class:`Reply`, mapping the service layer's domain errors to ESPOL codes. The
per-connection login state lives in :class:`Session`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts import throttling
from accounts.types import Player
from accounts.validators import username_validator
from games import errors, selectors, services, state
from legacy_tcp.espol import codec as espol
from legacy_tcp.espol.codec import Code
from ranking.selectors import top_ten

logger = logging.getLogger("legacy_tcp.espol")

@dataclass
class Session:
    """One connection's login state: nobody → user name given (USER) → logged in (PASS)."""

    peer: str = "?"
    user: Player | None = None
    pending_username: str | None = None
    failed_passwords: int = 0
    # The password hash the login was made with (as a browser session keeps it): a
    # password change elsewhere ends this login too.
    auth_hash: str | None = None
    subscription_requests: int = 0

    @property
    def username(self) -> str | None:
        return self.user.get_username() if self.user is not None else None

    @property
    def host(self) -> str:
        """The client's address: the peer is "host:port" (an IPv6 host has colons of its
        own)."""
        return self.peer.rpartition(":")[0]


@dataclass
class Reply:
    code: int | None  # None: nothing is sent (QUIT)
    data: str = ""
    close: bool = False
    # Set on a wrong password, for the server's login throttle.
    failed_login_for: str | None = None
    # A list: sent so that each frame holds whole records after ``data`` (its head).
    records: list[str] | None = None

    @property
    def text(self) -> str:
        """The whole data, as one frame carries it when it fits."""
        return self.data + "".join(self.records or ())

    def encode(self) -> bytes:
        if self.code is None:
            return b""
        if self.records is not None:
            return espol.record_frames(self.code, self.records, head=self.data)
        return espol.frames(self.code, self.data)


def immediate_reply(session: Session, command: espol.Command | espol.ParseError) -> Reply | None:
    """The reply for what needs no database (parse errors, login gate, HELP, QUIT), or None."""
    if isinstance(command, espol.ParseError):
        if (
            command.command is not None
            and session.user is None
            and command.command not in espol.BEFORE_LOGIN
        ):
            return Reply(Code.F_LOGIN, espol.LOGIN_REQUIRED)
        return Reply(command.code, command.message)
    if isinstance(command, espol.Quit):
        return Reply(None, close=True)
    if isinstance(command, espol.Help):
        return Reply(Code.S_TRAN, espol.HELP_TEXT)
    if session.user is None and command.name not in espol.BEFORE_LOGIN:
        return Reply(Code.F_LOGIN, espol.LOGIN_REQUIRED)
    if isinstance(command, espol.Pass) and session.pending_username is None:
        return Reply(Code.F_LOGIN, espol.PASS_WITHOUT_USER)
    return None


def execute(session: Session, command: espol.Command) -> Reply:
    """Carry out ``command`` for ``session``. Runs in a worker thread; never raises."""
    try:
        # An account revoked, or whose password changed, while connected loses its login
        # at its next command (one indexed query: it runs before every command).
        if (
            session.user is not None
            and not isinstance(command, espol.User | espol.Subs)
            and not account_selectors.is_current_login(session.user.pk, session.auth_hash)
        ):
            session.user = None
            return Reply(Code.F_LOGIN, espol.ACCESS_WITHDRAWN)
        return COMMANDS[type(command)](session, command)
    except errors.DomainError as exc:
        return error_reply(exc)
    except Exception:
        # Services run in one transaction each: an unexpected error rolled it back.
        logger.exception(
            "espol.error peer=%s user=%s command=%s",
            session.peer,
            espol.log_value(session.username),
            espol.log_value(command.loggable()),
        )
        return Reply(Code.E_SYSTEM, espol.SYSTEM_ERROR)


# --------------------------------------------------------------------------- helpers


def error_reply(error: errors.DomainError) -> Reply:
    """A domain error as ESPOL answers it: its code from the codec's one table."""
    code = espol.DOMAIN_ERROR_CODES.get(error.code, Code.E_SYSTEM)
    if isinstance(error, errors.WrongMoveNumber):
        # The client resynchronises from the expected number alone.
        return Reply(code, str(error.expected))
    return Reply(code, error.message)


def _own_game_with(user: Player, game_id: int, opponent_name: str) -> int:
    """The game's id, if ``user`` plays in it against the player named ``opponent_name``."""
    game = selectors.game_for_player(game_id, user)
    if game.opponent_of(user.pk).get_username() != opponent_name:
        raise errors.GameNotFound(espol.not_your_opponent(opponent_name, game.public_id))
    return game.pk


def _player(session: Session) -> Player:
    assert session.user is not None  # the login gate ran before
    return session.user


# --------------------------------------------------------------------------- login


def user(session: Session, command: espol.User) -> Reply:
    # A new USER starts a new login sequence, like FTP's USER. Every name is accepted
    # here and judged with the password: answering 814 for an unknown name would tell
    # anyone which names exist (the spec allows the answer at PASS).
    session.user = None
    session.pending_username = None
    try:
        username_validator(command.username)
    except ValidationError as exc:
        # No account can have this name: saying so tells nothing about who exists.
        raise account_errors.UserNotFound() from exc
    session.pending_username = command.username
    return Reply(Code.S_USER, command.username)


def password(session: Session, command: espol.Pass) -> Reply:
    name = session.pending_username
    assert name is not None
    # The web's login policy: one count of failures per (name, address) for both doors,
    # and one lock-out. An unknown name is hashed too (Django's ModelBackend does), so the
    # time of the answer does not tell which names exist.
    check = throttling.check_login(
        username=name,
        password=command.password,
        address=session.host,
        door="ESPOL PASS",
        admits=account_selectors.plays_off_the_api,
    )
    found = check.user
    if check.locked_out:
        # 402, the seed's "try later", rather than 815: a player who got the password
        # wrong too often must wait, and retrying would only start the wait again.
        session.failed_passwords += 1
        return Reply(
            Code.E_BUSY,
            espol.locked_out(name, throttling.lockout_minutes()),
            failed_login_for=name,
        )
    if found is None and check.request_state is not None:
        # The password of the name's subscription request: the seed has no code for
        # "not approved yet", so 815, saying why; not a failure, at this door's delays
        # or in the lock-out's count.
        pending = check.request_state == "request_pending"
        return Reply(Code.F_PASINV, espol.REQUEST_PENDING if pending else espol.REQUEST_REJECTED)
    if found is None:
        session.failed_passwords += 1
        return Reply(Code.F_PASINV, espol.WRONG_LOGIN, failed_login_for=name)
    session.user = found
    session.auth_hash = found.get_session_auth_hash()
    session.pending_username = None
    session.failed_passwords = 0
    return Reply(Code.S_PASSWD, found.get_username())


def subscribe(session: Session, command: espol.Subs) -> Reply:
    session.subscription_requests += 1
    if 0 < settings.ESPOL_SUBSCRIPTIONS_PER_CONNECTION < session.subscription_requests:
        return Reply(Code.E_BUSY, espol.SUBSCRIPTIONS_ON_CONNECTION)
    allowance = throttling.subscription_request(session.host)
    if not allowance.allowed:
        return Reply(
            Code.E_BUSY,
            espol.subscriptions_from_address(throttling.minutes_to_wait(allowance)),
        )
    request = account_services.request_subscription(
        username=command.username, password=command.password, comment=command.comment
    )
    return Reply(Code.S_SUBS, request.username)


def unsubscribe(session: Session, command: espol.Unsu) -> Reply:
    player = _player(session)
    if command.username != player.get_username():
        raise account_errors.UserNotFound(espol.UNSU_OWN_NAME)
    try:
        account_services.unsubscribe(player=player, password=command.password)
    except account_errors.WrongPassword:
        return Reply(Code.F_PASINV, espol.WRONG_PASSWORD, failed_login_for=player.get_username())
    session.user = None
    return Reply(Code.S_TRAN)


# --------------------------------------------------------------------------- lists


def pending_requests(session: Session, command: espol.Tran) -> Reply:
    now = espol.fecha(timezone.now())
    names = [
        c.challenger.get_username()
        for c in selectors.pending_challenges_to(_player(session), since=command.since)
    ]
    if not names:
        return Reply(Code.S_NODATA, now)
    return Reply(Code.S_TRAN, now, records=[espol.name_record(name) for name in names])


def authorised_players(session: Session, command: espol.Jaut) -> Reply:
    now = espol.fecha(timezone.now())
    names = account_selectors.player_names_changed_since(command.since, exclude=_player(session))
    return Reply(Code.S_TRAN, now, records=[espol.name_record(name) for name in names])


def pending_games(session: Session, command: espol.Ppen) -> Reply:
    player = _player(session)
    records = []
    for game in selectors.games_changed_since(player, command.since):
        # The game as this player sees it in a list, as on the dashboard.
        row = state.game_row(game, player)
        records.append(
            espol.pending_game_record(
                public_id=game.public_id,
                opponent=row.opponent.get_username(),
                opponent_colour=row.opponent_colour,
                active=game.is_active,
            )
        )
    return Reply(Code.S_TRAN, records=records)


def ranking(session: Session, command: espol.Srnk) -> Reply:
    records = [espol.ranking_record(r.player.get_username(), r.wins) for r in top_ten()]
    return Reply(Code.S_TRAN, records=records)


# --------------------------------------------------------------------------- challenges


def challenge(session: Session, command: espol.Jueg) -> Reply:
    player = _player(session)
    opponent = account_selectors.active_player(command.opponent)
    services.challenge(challenger=player, challenged=opponent)
    return Reply(Code.S_TRAN)


def accept(session: Session, command: espol.Acep) -> Reply:
    player = _player(session)
    pending = selectors.pending_challenge(challenger_name=command.challenger, challenged=player)
    game = services.accept_challenge(
        challenge_id=pending.pk, player=player, colour=command.colour
    )
    return Reply(Code.S_TRAN, espol.game_file(game.public_id))


# --------------------------------------------------------------------------- games


def game_moves(session: Session, command: espol.Spar) -> Reply:
    # Any player may read any game (docs/security.md): only acting needs to play in it.
    selectors.game(command.game_id)
    rows = selectors.move_records(command.game_id, after=command.after)
    records = [espol.move_record(number, uci, reverse) for number, uci, reverse in rows]
    if not records:
        return Reply(Code.F_NOMASJUG, espol.no_moves_after(command.after))
    return Reply(Code.S_TRAN, records=records)


def move(session: Session, command: espol.Jgda) -> Reply:
    game = services.make_move(
        game_id=command.game_id,
        player=_player(session),
        move_number=command.number,
        move=command.uci,
        reverse=command.reverse,
    )
    outcome = espol.move_outcome(command.number, active=game.is_active, result=game.result)
    return Reply(Code.S_TRAN, outcome)


def offer_draw(session: Session, command: espol.Tbls) -> Reply:
    player = _player(session)
    game_id = _own_game_with(player, command.game_id, command.opponent)
    services.offer_draw(game_id=game_id, player=player)
    return Reply(Code.S_TRAN)


def answer_draw(session: Session, command: espol.Rtbl) -> Reply:
    player = _player(session)
    game_id = _own_game_with(player, command.game_id, command.opponent)
    services.answer_draw(game_id=game_id, player=player, accept=command.accept)
    return Reply(Code.S_TRAN)


def resign(session: Session, command: espol.Rend) -> Reply:
    player = _player(session)
    game_id = _own_game_with(player, command.game_id, command.opponent)
    services.resign(game_id=game_id, player=player)
    return Reply(Code.S_TRAN)


def claim_end(session: Session, command: espol.Finp) -> Reply:
    player = _player(session)
    game_id = _own_game_with(player, command.game_id, command.opponent)
    game = services.claim_draw(game_id=game_id, player=player)
    return Reply(Code.S_TRAN, espol.game_outcome(active=game.is_active, result=game.result))


def status(session: Session, command: espol.Stat) -> Reply:
    player = _player(session)
    game = selectors.game(command.game_id)
    # Seed 000's est_partida keeps one date per game, "fecha en que la partida fue creada
    # o terminada"; moves and draw offers do not change it.
    date = game.created_at
    if not game.is_active and game.finished_at is not None:
        date = game.finished_at
    text = espol.game_status(
        public_id=game.public_id,
        white=game.white.get_username(),
        black=game.black.get_username(),
        date=date,
        active=game.is_active,
        result=game.result,
        requests=espol.solicitudes(
            draw_offer_by=game.draw_offer_by, ended_by=game.ended_by, termination=game.termination
        ),
        colour=game.colour_of(player.pk),
        next_move_number=game.next_move_number,
    )
    return Reply(Code.S_TRAN, text)


# Each handler takes its own command class; the table pairs them.
COMMANDS: dict[type[espol.Command], Callable[[Session, Any], Reply]] = {
    espol.User: user,
    espol.Pass: password,
    espol.Subs: subscribe,
    espol.Unsu: unsubscribe,
    espol.Tran: pending_requests,
    espol.Jaut: authorised_players,
    espol.Ppen: pending_games,
    espol.Srnk: ranking,
    espol.Jueg: challenge,
    espol.Acep: accept,
    espol.Spar: game_moves,
    espol.Jgda: move,
    espol.Tbls: offer_draw,
    espol.Rtbl: answer_draw,
    espol.Rend: resign,
    espol.Finp: claim_end,
    espol.Stat: status,
}
