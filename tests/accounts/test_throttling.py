"""accounts.throttling: request counters in the cache, per key, in fixed windows."""

from __future__ import annotations

import time

import pytest

from accounts import throttling


def test_requests_up_to_the_limit_are_allowed_and_the_next_refused():
    answers = [throttling.count_request("s", "k", limit=3, window=60).allowed for _ in range(4)]
    assert answers == [True, True, True, False]


def test_each_key_and_scope_counts_on_its_own():
    for _ in range(2):
        throttling.count_request("s", "a", limit=2, window=60)
    assert not throttling.count_request("s", "a", limit=2, window=60).allowed
    assert throttling.count_request("s", "b", limit=2, window=60).allowed
    assert throttling.count_request("other", "a", limit=2, window=60).allowed


def test_a_refusal_says_when_the_window_closes():
    throttling.count_request("s", "k", limit=1, window=600)
    refused = throttling.count_request("s", "k", limit=1, window=600)
    assert not refused.allowed
    assert 1 <= refused.retry_after <= 600
    assert throttling.minutes_to_wait(refused) == 10


@pytest.mark.parametrize("limit", [0, -1])
def test_a_limit_of_zero_or_less_turns_the_limit_off(limit):
    assert all(
        throttling.count_request("s", "k", limit=limit, window=60).allowed for _ in range(50)
    )


def test_the_count_starts_over_when_the_window_closes(monkeypatch):
    now = [1_000_000.0]
    # The cache's expiry and the throttle both read time.time(): both see the same clock.
    monkeypatch.setattr(time, "time", lambda: now[0])
    assert throttling.count_request("s", "k", limit=1, window=60).allowed
    now[0] += 59
    refused = throttling.count_request("s", "k", limit=1, window=60)
    assert (refused.allowed, refused.retry_after) == (False, 1)
    now[0] += 2
    assert throttling.count_request("s", "k", limit=1, window=60).allowed


def test_subscription_requests_are_counted_per_address_by_the_settings(settings):
    settings.SUBSCRIPTION_REQUESTS_PER_ADDRESS = 2
    settings.SUBSCRIPTION_REQUESTS_WINDOW = 60
    answers = [throttling.subscription_request("192.0.2.1").allowed for _ in range(3)]
    assert answers == [True, True, False]
    assert throttling.subscription_request("192.0.2.2").allowed



# --------------------------------------------------------------------------- addresses


@pytest.mark.parametrize(
    ("host", "counted_as"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::"),
        ("2001:db8:1:2:bbbb::2", "2001:db8:1:2::"),
        ("2001:db8:1:3::1", "2001:db8:1:3::"),
        ("fe80::1%eth0", "fe80::"),
        ("not an address", None),
        ("", None),
        (None, None),
    ],
)
def test_clients_are_counted_by_ipv4_address_or_ipv6_64(host, counted_as):
    assert throttling.client_address(host) == counted_as
