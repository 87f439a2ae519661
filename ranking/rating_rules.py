"""How a game changes two players' Glicko-2 ratings here, and when a rating counts as
established. Pure functions, no models: the service and the migration that rated the
games played before Glicko-2 share them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ranking import glicko2

# A rating is provisional ("1500?") while its deviation is above this, lichess's
# threshold: at 110 the 95 % interval is still ±220 points, and a new player's deviation
# falls below it only after a dozen or so games against established players.
PROVISIONAL_DEVIATION = 110.0
# One Glicko-2 rating period, lichess's (0.21436 periods a day): a steady player's
# deviation (60) grows back past 110 after about a year without a rated game.
RATING_PERIOD = dt.timedelta(days=1 / 0.21436)
SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def periods_between(start: dt.datetime | None, end: dt.datetime) -> float:
    """Rating periods from ``start`` (None: never rated, nothing to grow) to ``end``."""
    if start is None:
        return 0.0
    return max(0.0, (end - start) / RATING_PERIOD)


def established_until(rating: glicko2.Rating, at: dt.datetime) -> dt.datetime | None:
    """When ``rating``, set at ``at`` and left without games, turns provisional; None
    when it is provisional already."""
    phi = rating.deviation / glicko2.SCALE
    limit = PROVISIONAL_DEVIATION / glicko2.SCALE
    if phi > limit:
        return None
    periods = (limit**2 - phi**2) / rating.volatility**2
    try:
        return at + RATING_PERIOD * periods
    except OverflowError:
        return dt.datetime.max.replace(tzinfo=at.tzinfo)


@dataclass(frozen=True)
class Side:
    """One player's stored rating and when it was last set."""

    rating: glicko2.Rating
    rated_at: dt.datetime | None


def rate_game(
    white: Side, black: Side, result: str, at: dt.datetime
) -> tuple[glicko2.Rating, glicko2.Rating]:
    """Both players' ratings after a game that ended at ``at`` with ``result``: each is
    one rating period of one game, against the other's rating as it stood then."""
    white_now = glicko2.at(white.rating, periods_between(white.rated_at, at))
    black_now = glicko2.at(black.rating, periods_between(black.rated_at, at))
    score = SCORES[result]
    return (
        glicko2.update(white_now, [(black_now, score)]),
        glicko2.update(black_now, [(white_now, 1 - score)]),
    )

