"""Which tests run in which pass of the test command (scripts/test).

The suite runs twice: on the embedded defaults (SQLite, in-memory channel layer), then on
PostgreSQL and Redis. The second pass exists for what differs between them: the database
and the channel layer. A test that uses neither (codecs, rules, clock arithmetic,
settings parsing in a subprocess...) would only repeat itself, so it runs in the first
pass alone. The rule, checked on every test:

- a test needs the database if it asks for it: pytest-django's ``django_db`` mark, or a
  fixture that depends on ``django_db_setup`` (``db``, ``transactional_db``, the servers
  started on the test database, the browser tests' Daphne). Without one, pytest-django
  refuses any query, so a test cannot use the database unnoticed;
- a test needs the channel layer if it is marked ``channel_layer`` (or ``redis``); in the
  first pass a test without the database nor that mark fails if it touches the
  configured channel layer (``channel_layer_guard``), so it cannot be left out unnoticed;
- tests marked ``postgres`` or ``redis`` run where those are.

Everything else is deselected in the second pass (shown as "deselected")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from channels.layers import ChannelLayerManager

ENGINE_MARKS = ("django_db", "postgres", "redis", "channel_layer")


def uses_database_or_layer(item: pytest.Item) -> bool:
    """Whether ``item`` needs the second pass: see the module's docstring."""
    if any(item.get_closest_marker(mark) for mark in ENGINE_MARKS):
        return True
    return "django_db_setup" in getattr(item, "fixturenames", ())


def deselect_engine_independent(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the second pass, leave out the tests that use neither database nor layer."""
    independent = [item for item in items if not uses_database_or_layer(item)]
    if independent:
        config.hook.pytest_deselected(items=independent)
        items[:] = [item for item in items if uses_database_or_layer(item)]


def channel_layer_guard(request: pytest.FixtureRequest, monkeypatch) -> Iterator[None]:
    """Fail a first-pass-only test that used the configured channel layer: it must run on
    Redis too, so it needs the ``channel_layer`` mark. (An autouse fixture's body.)"""
    if uses_database_or_layer(request.node):
        yield
        return
    used: list[str] = []
    get, make = ChannelLayerManager.__getitem__, ChannelLayerManager.make_backend

    def getitem(self, alias):
        used.append(alias)
        return get(self, alias)

    def make_backend(self, alias):
        used.append(alias)
        return make(self, alias)

    monkeypatch.setattr(ChannelLayerManager, "__getitem__", getitem)
    monkeypatch.setattr(ChannelLayerManager, "make_backend", make_backend)
    yield
    if used:
        pytest.fail(
            "this test uses the channel layer but neither the database nor the "
            "channel_layer mark, so it would not run on Redis (tests/passes.py): "
            "mark it @pytest.mark.channel_layer",
            pytrace=False,
        )
