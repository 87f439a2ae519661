"""Bot accounts (the lichess API's ``POST /api/bot/account/upgrade``): a player who has
played no game becomes a bot for good. A bot plays through the API alone (the site's
login and ESPOL refuse it; its login sessions end now) and is shown as a bot."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from accounts import selectors as account_selectors
from accounts.models import BotAccount
from accounts.services import end_login_sessions
from accounts.types import Player
from games import errors
from games.models import Game, Tournament, TournamentEntry

User = get_user_model()


@transaction.atomic
def upgrade_to_bot(*, player: Player) -> None:
    """Make ``player``'s account a bot's. Refused
    (:class:`~games.errors.BotUpgradeRefused`) for an account that has played or is
    playing a game, is entered in an event not over, is a bot already, or is no
    player's."""
    # NO KEY UPDATE, as closing an account locks it: a challenge made meanwhile only
    # references the row.
    locked = User.objects.select_for_update(no_key=True).get(pk=player.pk)
    if not account_selectors.players().filter(pk=locked.pk).exists():
        raise errors.BotUpgradeRefused()
    if account_selectors.is_bot(locked.pk):
        raise errors.BotUpgradeRefused(_("This account is a bot already."))
    if Game.objects.of_player(locked).exists():
        raise errors.BotUpgradeRefused(_("An account that has played a game cannot become a bot."))
    # A bot takes part in no event (games.services.join_tournament): an entry in one not
    # over would put a bot among the event's people.
    if TournamentEntry.objects.filter(
        player=locked,
        withdrawn_at__isnull=True,
        tournament__status__in=(Tournament.Status.REGISTRATION, Tournament.Status.RUNNING),
    ).exists():
        raise errors.BotUpgradeRefused(
            _("An account entered in a tournament cannot become a bot: leave it first.")
        )
    BotAccount.objects.create(player=locked)
    end_login_sessions(locked)
