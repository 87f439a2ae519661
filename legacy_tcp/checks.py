"""``manage.py check`` for the gateways' caps: the total must leave room for more clients
than a few addresses at their own caps.

A gateway's total cap that is at most ten times its cap per address lets ten addresses,
each at its own cap, hold every place: the eleventh (the chessirc bot, a player) is then
refused. That is what the shipped chessirc values once allowed (200 in all, 20 per
address).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks

# Addresses that, each at its cap, must still leave a place for one more.
ADDRESSES_THAT_MUST_NOT_FILL_A_GATEWAY = 10

GATEWAY_PREFIXES = ("ESPOL", "DISTRIBUIDO", "CHESSIRC")


@checks.register(checks.Tags.security)
def gateway_caps(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    found: list[checks.CheckMessage] = []
    for prefix in GATEWAY_PREFIXES:
        total = int(getattr(settings, f"{prefix}_MAX_CONNECTIONS"))
        per_address = int(getattr(settings, f"{prefix}_MAX_PER_ADDRESS"))
        # No cap per address (0) is a choice (a proxy in front), not a mistake.
        if not per_address or total > ADDRESSES_THAT_MUST_NOT_FILL_A_GATEWAY * per_address:
            continue
        found.append(
            checks.Warning(
                f"{prefix}_MAX_CONNECTIONS ({total}) lets "
                f"{ADDRESSES_THAT_MUST_NOT_FILL_A_GATEWAY} addresses at "
                f"{prefix}_MAX_PER_ADDRESS ({per_address}) hold every place, "
                "so that one more client is refused.",
                hint=(
                    f"Keep {prefix}_MAX_CONNECTIONS above "
                    f"{ADDRESSES_THAT_MUST_NOT_FILL_A_GATEWAY} × {prefix}_MAX_PER_ADDRESS."
                ),
                id="legacy_tcp.W001",
            )
        )
    return found
