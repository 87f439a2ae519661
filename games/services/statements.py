"""A move's own statements, written out once: the game's read, its guarded UPDATE and the
move's INSERT.

The ORM built these three in about half of a move's time (py-spy over 800 moves: query
compiling, model iteration and lookups, against a few tenths of a millisecond of SQL).
Here each text is built once per database and set of columns and reused; the models
still describe the tables (column names from ``_meta``, values through each field's
``get_db_prep_save``, what is read through the ORM's own converters), so a migration that
adds or renames a column changes these statements with it. Nothing else writes SQL for
games by hand but the notifications' upsert.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Field, Model

from games.models import Game, Move, Vacation

_Converter = Callable[[Any, Any, Any], Any]


def _columns(model: type[Model], alias: str) -> tuple[list[str], list[str], list[list[Any]]]:
    """``model``'s concrete fields: their attribute names, their columns as ``alias``
    selects them, and for each the converters the ORM would apply to what is read."""
    names, selected, converters = [], [], []
    for field in model._meta.concrete_fields:
        col = field.get_col(alias)
        names.append(field.attname)
        selected.append(f"{alias}.{connection.ops.quote_name(field.column)}")
        converters.append(
            [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)]
        )
    return names, selected, converters


class _GameRead:
    """The game with both players and whether each is on vacation now, one statement."""

    def __init__(self) -> None:
        user = get_user_model()
        quote = connection.ops.quote_name
        self.game = _columns(Game, "g")
        self.white = _columns(user, "w")
        self.black = _columns(user, "b")
        vacations = quote(Vacation._meta.db_table)

        def away(alias: str) -> str:
            return (
                f"EXISTS (SELECT 1 FROM {vacations} v WHERE v.player_id = {alias}.id"
                " AND v.ended_at IS NULL)"
            )

        users = quote(user._meta.db_table)
        self.sql = (
            f"SELECT {', '.join(self.game[1] + self.white[1] + self.black[1])},"
            f" {away('w')}, {away('b')}"
            f" FROM {quote(Game._meta.db_table)} g"
            f" JOIN {users} w ON w.id = g.white_id JOIN {users} b ON b.id = g.black_id"
            " WHERE g.id = %s"
        )

    def __call__(self, game_id: int) -> Game | None:
        with connection.cursor() as cursor:
            cursor.execute(self.sql, [game_id])
            row = cursor.fetchone()
        if row is None:
            return None
        values = list(row)
        made: list[Any] = []
        start = 0
        for model, (names, _, converters) in (
            (Game, self.game), (get_user_model(), self.white), (get_user_model(), self.black)
        ):
            part = values[start:start + len(names)]
            for index, chain in enumerate(converters):
                for convert in chain:
                    part[index] = convert(part[index], None, connection)
            made.append(model.from_db(connection.alias, names, part))
            start += len(names)
        game, white, black = made
        Game.white.field.set_cached_value(game, white)
        Game.black.field.set_cached_value(game, black)
        white_away, black_away = values[start:]
        game.away_when_read = frozenset(
            pk for pk, away in ((white.pk, white_away), (black.pk, black_away)) if away
        )
        return game


@functools.cache
def _game_read(vendor: str) -> _GameRead:
    return _GameRead()


def read_game(game_id: int) -> Game | None:
    """``game_id`` with its players, and ``away_when_read`` set (which of them are on
    vacation): what a move is judged on, read before its transaction; ``None`` when
    there is no such game."""
    return _game_read(connection.vendor)(game_id)


def _field(name: str) -> Field[Any, Any]:
    field = Game._meta.get_field(name)
    assert isinstance(field, Field)
    return field


@functools.cache
def _update_sql(vendor: str, fields: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(_field(name).column)} = %s" for name in fields)
    return (
        f"UPDATE {quote(Game._meta.db_table)} SET {sets}"
        " WHERE id = %s AND version = %s AND has_conditional_lines = %s"
    )


def update_game(game: Game, judged_on: int, fields: Sequence[str]) -> bool:
    """Write ``fields`` of ``game`` if it is still at version ``judged_on``: one UPDATE,
    the version check and the row lock at once; whether it was written.

    Conditional lines set meanwhile move no version: whether there are any is checked
    too, so the reply is looked for wherever lines were set
    (games.services.conditional_lines)."""
    values = [_field(name).get_db_prep_save(getattr(game, name), connection) for name in fields]
    flag = _field("has_conditional_lines").get_db_prep_save(
        game.has_conditional_lines, connection
    )
    with connection.cursor() as cursor:
        cursor.execute(
            _update_sql(connection.vendor, tuple(fields)), [*values, game.pk, judged_on, flag]
        )
        return cursor.rowcount == 1


@functools.cache
def _insert_sql(vendor: str) -> tuple[str, tuple[Any, ...]]:
    quote = connection.ops.quote_name
    fields = tuple(f for f in Move._meta.concrete_fields if not f.primary_key)
    columns = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {quote(Move._meta.db_table)} ({columns}) VALUES ({marks})", fields


def insert_move(move: Move) -> None:
    """Store ``move`` (its id is not read back: nothing on the path needs it)."""
    sql, fields = _insert_sql(connection.vendor)
    values = [f.get_db_prep_save(f.pre_save(move, True), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
