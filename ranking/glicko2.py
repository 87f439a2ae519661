"""Glicko-2, as Mark Glickman describes it in "Example of the Glicko-2 system" (the steps'
numbers below are his). Pure functions on plain values, no Django.

Each rated game is its own rating period, as lichess does, and a player's deviation first
grows with the time since their last rated game (:func:`at`), so a rating left alone
becomes uncertain again.

The ``glicko2`` package on PyPI computes the same update, but fixes the rating period and
has no way to let the deviation grow with the time that passed; this module is the one
small piece of it we need, tested against Glickman's worked example.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Glickman's conversion between the Glicko scale (1500, 350) and Glicko-2's (0, 2.01).
SCALE = 173.7178
INITIAL_RATING = 1500.0
INITIAL_DEVIATION = 350.0
INITIAL_VOLATILITY = 0.06
# The system constant: how much volatility may change. Glickman suggests 0.3 to 1.2;
# lichess uses 0.75.
TAU = 0.75
# Convergence tolerance of step 5 (Glickman's value).
EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    rating: float = INITIAL_RATING
    deviation: float = INITIAL_DEVIATION
    volatility: float = INITIAL_VOLATILITY


def at(player: Rating, periods: float) -> Rating:
    """``player`` after ``periods`` rating periods without a game: the deviation grows
    as step 6 makes it grow (φ* = √(φ² + σ²·t)), never past the initial 350."""
    if periods <= 0:
        return player
    phi = player.deviation / SCALE
    grown = math.sqrt(phi**2 + player.volatility**2 * periods) * SCALE
    return Rating(player.rating, min(grown, INITIAL_DEVIATION), player.volatility)


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(
    player: Rating, results: Sequence[tuple[Rating, float]], *, tau: float = TAU
) -> Rating:
    """``player``'s rating after one rating period with ``results``: pairs of the
    opponent's rating (before the period) and the score (1, 0.5 or 0)."""
    # Step 2: to the Glicko-2 scale.
    mu = (player.rating - INITIAL_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return at(player, 1)
    opponents = [
        ((r.rating - INITIAL_RATING) / SCALE, r.deviation / SCALE, score) for r, score in results
    ]
    # Steps 3 and 4: the estimated variance v and improvement Δ.
    v = 1 / sum(
        _g(phi_j) ** 2 * _expected(mu, mu_j, phi_j) * (1 - _expected(mu, mu_j, phi_j))
        for mu_j, phi_j, _ in opponents
    )
    delta = v * sum(
        _g(phi_j) * (score - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, score in opponents
    )
    # Step 5: the new volatility, by the Illinois algorithm.
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (
            x - a
        ) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2)
    # Steps 6 and 7: the new deviation and rating.
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * sum(
        _g(phi_j) * (score - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, score in opponents
    )
    # Step 8: back to the Glicko scale.
    return Rating(
        new_mu * SCALE + INITIAL_RATING, min(new_phi * SCALE, INITIAL_DEVIATION), new_sigma
    )
