"""The SQLite backend's writers' lock (ajedrez/db/sqlite3/base.py): a write transaction
holds an exclusive flock on ``<database>-writers`` from BEGIN to COMMIT or ROLLBACK.

Each test makes SQLite databases of its own in a temporary folder, so they run whatever
``DATABASE_URL`` is; the connections are the backend's own, used through
``transaction.atomic`` as the services use them.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import OperationalError, connections, transaction

from ajedrez.db.sqlite3.base import DatabaseWrapper, writers_lock_path

# Not the test database: the marker only lets these tests open connections at all.
pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def writer(path: Path | str, *, timeout: float = 20) -> Iterator[str]:
    """A connection of the backend to ``path`` under a fresh alias, for this thread."""
    alias = f"writers-{uuid.uuid4().hex}"
    connections[alias] = DatabaseWrapper(
        {
            "ENGINE": "ajedrez.db.sqlite3",
            "NAME": str(path),
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": timeout},
            "USER": "", "PASSWORD": "", "HOST": "", "PORT": "",
            "ATOMIC_REQUESTS": False, "AUTOCOMMIT": True, "CONN_MAX_AGE": 0,
            "CONN_HEALTH_CHECKS": False, "TIME_ZONE": None, "TEST": {},
        },
        alias,
    )
    try:
        yield alias
    finally:
        connections[alias].close()
        del connections[alias]


def execute(alias: str, sql: str) -> None:
    with connections[alias].cursor() as cursor:
        cursor.execute(sql)


def lock_is_free(path: Path) -> bool:
    """Whether another open file description could take the writers' lock now."""
    fd = os.open(writers_lock_path(str(path)), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def in_thread(call: Callable[[], object]) -> object:
    """``call()`` in another thread (another connection); its result or its error."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    return outcome[0]


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "db.sqlite3"
    with writer(path) as alias:
        execute(alias, "CREATE TABLE moves (id INTEGER PRIMARY KEY, uci TEXT)")
    return path


def insert_in_thread(database: Path, uci: str, *, timeout: float) -> object:
    def insert() -> str:
        with writer(database, timeout=timeout) as alias, transaction.atomic(using=alias):
            execute(alias, f"INSERT INTO moves (uci) VALUES ('{uci}')")
        return uci

    return in_thread(insert)


def test_a_write_transaction_holds_the_lock_until_it_commits(database):
    with writer(database) as alias:
        assert lock_is_free(database)
        with transaction.atomic(using=alias):
            execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
            assert not lock_is_free(database)
        assert lock_is_free(database)


def test_a_second_writer_waits_for_the_lock_not_for_sqlite(database):
    """Another thread's writer, with no time to wait, is refused by the writers' lock
    while the first transaction is open, and writes once it has committed."""
    with writer(database) as alias:
        with transaction.atomic(using=alias):
            execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
            refused = insert_in_thread(database, "e7e5", timeout=0)
            assert isinstance(refused, OperationalError)
            assert "writers' lock" in str(refused)
        assert insert_in_thread(database, "e7e5", timeout=0) == "e7e5"
    with sqlite3.connect(database) as raw:
        assert [row[0] for row in raw.execute("SELECT uci FROM moves ORDER BY id")] == [
            "e2e4", "e7e5",
        ]


def test_a_waiting_writer_takes_the_lock_once_it_is_let_go(database):
    """A writer that had to wait writes after the first commits, its wait the kernel's."""
    with writer(database) as alias:
        waiting: list[object] = []
        with transaction.atomic(using=alias):
            execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
            second = threading.Thread(
                target=lambda: waiting.append(insert_in_thread(database, "e7e5", timeout=20))
            )
            second.start()
            second.join(0.3)
            assert second.is_alive() and not waiting  # still waiting for the lock
        second.join(20)
    assert waiting == ["e7e5"]
    assert lock_is_free(database)


def test_a_writer_that_gave_up_waiting_leaves_the_lock_free(database):
    """Refused after its time, the waiter's own wait goes on in the kernel: when that wait
    gets the lock it lets it go at once, and the next writer is not held."""
    with writer(database) as alias:
        with transaction.atomic(using=alias):
            execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
            refused = insert_in_thread(database, "e7e5", timeout=0.2)
            assert isinstance(refused, OperationalError)
            assert "writers' lock" in str(refused)
        assert insert_in_thread(database, "d7d5", timeout=5) == "d7d5"
    with sqlite3.connect(database) as raw:
        assert [row[0] for row in raw.execute("SELECT uci FROM moves ORDER BY id")] == [
            "e2e4", "d7d5",
        ]
    assert lock_is_free(database)


def test_another_process_cannot_take_the_lock_during_a_write(database):
    probe = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "try:\n"
        "    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "except BlockingIOError:\n"
        "    print('held')\n"
        "else:\n"
        "    print('free')\n"
    )

    def probe_lock() -> str:
        return subprocess.run(
            [sys.executable, "-c", probe, writers_lock_path(str(database))],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip()

    with writer(database) as alias:
        with transaction.atomic(using=alias):
            execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
            assert probe_lock() == "held"
        assert probe_lock() == "free"


def test_a_rolled_back_transaction_releases_the_lock(database):
    with writer(database) as alias:
        with pytest.raises(ZeroDivisionError), transaction.atomic(using=alias):
            execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
            1 / 0  # noqa: B018
        assert lock_is_free(database)
    with sqlite3.connect(database) as raw:
        assert raw.execute("SELECT count(*) FROM moves").fetchone()[0] == 0


def test_a_failed_statement_inside_releases_the_lock_with_its_rollback(database):
    with writer(database) as alias:
        with pytest.raises(OperationalError), transaction.atomic(using=alias):
            execute(alias, "INSERT INTO no_such_table VALUES (1)")
        assert lock_is_free(database)


def test_a_begin_refused_by_sqlite_releases_the_lock(database):
    """A writer outside the backend (here the driver alone) holds SQLite's write lock:
    BEGIN IMMEDIATE fails after the busy timeout, and the writers' lock is not kept."""
    outsider = sqlite3.connect(database, isolation_level=None)
    outsider.execute("BEGIN IMMEDIATE")
    try:
        with writer(database, timeout=0) as alias:
            with pytest.raises(OperationalError, match="locked"), transaction.atomic(
                using=alias
            ):
                pass
            assert lock_is_free(database)
    finally:
        outsider.execute("ROLLBACK")
        outsider.close()


def test_closing_the_connection_inside_a_transaction_releases_the_lock(database):
    with writer(database) as alias, transaction.atomic(using=alias):
        execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
        connections[alias].close()
        assert lock_is_free(database)
        transaction.set_rollback(True, using=alias)


def test_reads_take_no_lock(database):
    with writer(database) as alias, transaction.atomic(using=alias):
        execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
        with writer(database, timeout=0) as reader, connections[reader].cursor() as cursor:
            cursor.execute("SELECT count(*) FROM moves")
            assert cursor.fetchone()[0] == 0


def test_an_in_memory_database_needs_no_lock_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with writer(":memory:") as alias, transaction.atomic(using=alias):
        execute(alias, "CREATE TABLE moves (id INTEGER PRIMARY KEY)")
    assert list(tmp_path.iterdir()) == []


def test_destroying_a_test_database_removes_its_lock_file(database):
    with writer(database) as alias:
        with transaction.atomic(using=alias):
            execute(alias, "INSERT INTO moves (uci) VALUES ('e2e4')")
        connections[alias].close()
        connections[alias].creation._destroy_test_db(str(database), verbosity=0)
    assert not database.exists()
    assert not Path(writers_lock_path(str(database))).exists()
