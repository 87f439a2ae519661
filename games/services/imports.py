"""Games imported from PGN (the lichess API's ``POST /api/import``): stored finished,
counted in no rating (lichess: imported games belong to no one's rating), shown in the
archives and exported as any other.

Who plays them: the importer, on the side whose PGN name is their user name (any case);
every other side is a guest of the ``import`` gateway named after the PGN's name (a
name in a PGN proves nothing, so it never stands for an account here, whose record and
archive it would enter). A game in which the importer plays neither side is kept all the
same: ``imported_by`` says whose import it is (docs/protocols/lichess.md).
"""

from __future__ import annotations

import re

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.services import guest_player
from accounts.types import Player
from games import errors, openings, rules
from games.models import Game, Move
from games.services.challenges import free_short_id

IMPORT_GATEWAY = "import"
# The longest game imported, in half-moves (the longest possible is about 6,000; no
# game played by people comes near this).
MAX_PLIES = 1200
# What a guest's name may not hold (accounts.validators.guest_name_validator).
_NOT_IN_A_GUEST_NAME = re.compile(r"[^A-Za-z0-9_.\-\[\]\\`^{}|]+")


def _guest_name(pgn_name: str, fallback: str) -> str:
    cleaned = _NOT_IN_A_GUEST_NAME.sub("_", pgn_name.strip()).strip("_")[:30]
    return cleaned or fallback


def _sides(importer: Player, white_name: str, black_name: str) -> tuple[Player, Player]:
    """The players of the imported game (the module's rule)."""
    me = importer.get_username().lower()
    white = importer if white_name.strip().lower() == me else None
    black = importer if black_name.strip().lower() == me and white is None else None
    white_guest = _guest_name(white_name, "White")
    black_guest = _guest_name(black_name, "Black")
    if white is None:
        white = guest_player(gateway=IMPORT_GATEWAY, name=white_guest)
    if black is None:
        # Two sides of one name are two guests: a game has two players.
        channel = "black" if black_guest == white_guest else ""
        black = guest_player(gateway=IMPORT_GATEWAY, name=black_guest, channel=channel)
    return white, black


def read_import(pgn_text: str) -> rules.ImportedGame:
    """``pgn_text`` read and checked (no database work: run it before any transaction);
    :class:`~games.errors.InvalidImport` saying why it cannot be imported."""
    if not isinstance(pgn_text, str) or not pgn_text.strip() or "\x00" in pgn_text:
        raise errors.InvalidImport(_("Send the game's PGN in the pgn field."))
    try:
        found = rules.read_pgn_game(pgn_text)
    except rules.PgnImportError as exc:
        messages = {
            "no game": _("No game found in the PGN."),
            "more than one game": _("The PGN holds more than one game: import one at a time."),
            "not standard chess": _("Only standard chess can be imported."),
            "not a legal starting position": _("The PGN's starting position is not legal."),
            "no result": _(
                "The game has no result: only finished games (1-0, 0-1, 1/2-1/2) are imported."
            ),
        }
        message = messages.get(exc.reason) or _("The PGN has an illegal move: %(reason)s") % {
            "reason": exc.reason
        }
        raise errors.InvalidImport(message) from exc
    if len(found.moves) < 2:
        raise errors.InvalidImport(_("An imported game needs a move by each side."))
    if len(found.moves) > MAX_PLIES:
        raise errors.InvalidImport(
            _("An imported game has at most %(plies)s half-moves.") % {"plies": MAX_PLIES}
        )
    return found


def import_game(*, importer: Player, imported: rules.ImportedGame) -> Game:
    """Store ``imported`` (:func:`read_import`'s) as a finished game of no rating."""
    headers = imported.headers
    white, black = _sides(importer, headers.get("White", ""), headers.get("Black", ""))
    opening = None
    for ply, played in enumerate(imported.moves, start=1):
        opening = openings.opening_at(played.fen_after, ply) or opening
    now = timezone.now()
    last = imported.moves[-1]
    with transaction.atomic():
        game = Game.objects.create(
            short_id=free_short_id(),
            white=white,
            black=black,
            created_at=now,
            updated_at=now,
            finished_at=now,
            last_move_at=now,
            last_move_san=last.san,
            status=Game.Status.FINISHED,
            result=imported.outcome.result,
            termination=imported.outcome.termination.value,
            ended_by="",
            fen=last.fen_after,
            next_move_number=len(imported.moves) + 1,
            version=1,
            rated=False,
            days_per_move=None,
            initial_fen="" if imported.start_fen == rules.STARTING_FEN else imported.start_fen,
            site=headers.get("Site", "").strip()[:60],
            opening_eco=opening.eco if opening else "",
            opening_name=opening.name if opening else "",
            imported_by=importer,
        )
        Move.objects.bulk_create(
            Move(game=game, number=number, uci=m.uci, san=m.san, fen_after=m.fen_after,
                 played_at=now)
            for number, m in enumerate(imported.moves, start=1)
        )
    return game
