"""The site's rules of play, as the administrator sets them in the admin ("Site rules")."""

from __future__ import annotations

from django.db import transaction

from games import errors
from games.models import MAX_GAMES_PER_PAIR, SiteRules


@transaction.atomic
def set_site_rules(*, games_per_pair: int | None) -> SiteRules:
    """Save the site's rules: ``games_per_pair``, the games two players may have in
    progress together (``None``: the environment's ``GAMES_PER_PAIR``). Applies at once,
    at every door: each new challenge and game counts against the stored value.

    Lowering it ends no game: pairs above it keep their games and start no other until
    they are below it again."""
    # A bool is an int to Python, not a number of games to the administrator.
    if games_per_pair is not None and not (
        type(games_per_pair) is int and 1 <= games_per_pair <= MAX_GAMES_PER_PAIR
    ):
        raise errors.InvalidGamesPerPair()
    saved, _created = SiteRules.objects.update_or_create(
        pk=SiteRules.SINGLETON, defaults={"games_per_pair": games_per_pair}
    )
    return saved
