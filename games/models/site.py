"""The rules of play an administrator sets for the whole site, in the admin ("Site rules").

One row, whose empty fields take their defaults from the environment: the administrator's
value, once saved, rules over the environment's.
"""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

# Above this, "games between two players" stops meaning anything a pair could play.
MAX_GAMES_PER_PAIR = 100


class SiteRules(models.Model):
    """The site's rules of play: a single row (``pk`` 1), changed only through
    :func:`games.services.set_site_rules`."""

    SINGLETON = 1

    id = models.PositiveSmallIntegerField(primary_key=True, default=SINGLETON, editable=False)
    # Seed 000 (1.2): "Un usuario puede tener una partida pendiente con cada uno de los
    # otros usuarios": one, unless the administrator allows more.
    games_per_pair = models.PositiveSmallIntegerField(
        _("games in progress between two players"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_GAMES_PER_PAIR)],
        help_text=_(
            "How many games two players may have in progress together, at every door. "
            "Empty: the default of the environment variable GAMES_PER_PAIR."
        ),
    )

    class Meta:
        verbose_name = _("site rules")
        verbose_name_plural = _("site rules")
        constraints = [
            models.CheckConstraint(condition=Q(id=1), name="site_rules_single_row"),
            models.CheckConstraint(
                condition=Q(games_per_pair__isnull=True)
                | Q(games_per_pair__gte=1, games_per_pair__lte=MAX_GAMES_PER_PAIR),
                name="site_rules_games_per_pair",
            ),
        ]

    def __str__(self) -> str:
        return str(_("Site rules"))
