"""Whose game, through which API: the Board API is any player's but a bot's, the Bot
API a bot's alone (lila's rule), and a player acts only in a game of their own."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from accounts import selectors as account_selectors
from accounts.tokens import TokenUse
from games.api.gate import BadRequest
from games.models import Game
from games.state import lichess_reads

BOARD, BOT = "board", "bot"
SCOPES = {BOARD: "board:play", BOT: "bot:play"}
# A move as lichess's APIs take it: UCI, lower case (castling as the king's two squares,
# or the king onto its rook's square as chess960 writes it).
UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")


def game_for(token: TokenUse, game_id: str, api: str) -> Game:
    """The game ``game_id`` of the token's player, through ``api``: the Board API is not
    a bot's, the Bot API only a bot's (lila's words)."""
    bot = account_selectors.is_bot(token.player.pk)
    if api == BOT and not bot:
        raise BadRequest(
            _("This endpoint can only be used with a Bot account: POST /api/bot/account/upgrade.")
        )
    if api == BOARD and bot:
        raise BadRequest(_("This endpoint cannot be used with a Bot account."))
    return lichess_reads.game_of(token.player, game_id)


