"""SQLite with its writers queued on a file lock instead of SQLite's busy handler.

Every write transaction begins ``BEGIN IMMEDIATE`` (``transaction_mode`` in
``ajedrez/settings.py``), so writers wait for SQLite's one write lock. SQLite's own
waiting is its busy handler, which sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50 and
then 100 ms between tries: a writer that lost a few tries sleeps 100 ms at a time while
the lock is free again after 2 ms, and waits far longer than the queue ahead of it
(docs/benchmarks.md: at 4 writers the p99 of a move was 10 to 40 times its p50).

This backend makes every write transaction first take an exclusive ``flock`` on the
file ``<database>-writers`` beside the database, waiting in the kernel for it, and
release it when the transaction commits or rolls back (or the connection closes):
writers queue there, each woken as the one before lets go, and reach ``BEGIN IMMEDIATE``
one at a time, so
SQLite's busy handler is left only for writers outside this backend (the ``sqlite3``
shell, a single statement in autocommit mode). Readers take no lock (WAL). An in-memory
database has one connection and no file beside it: it takes no lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from typing import Any

from django.db import OperationalError
from django.db.backends.sqlite3 import base, creation


def _wait_for_lock(fd: int, timeout: float) -> bool:
    """Take the lock on ``fd`` as soon as it is free, waiting at most ``timeout`` seconds;
    whether it was taken.

    The wait is the kernel's (a blocking ``flock``): the writer wakes when the lock is
    released, where trying every millisecond left it free for up to a millisecond with
    the holder's successor asleep, and woke three waiting writers a thousand times a
    second to take CPU from the holder (4 writer processes on 2 cores: p99 21–24 ms
    polling, 10 ms blocking, bench/writers.py). A blocking ``flock`` has no time limit, so
    a thread of its own waits; given up, it lets the lock go when it gets it. It works on
    a duplicate of ``fd`` (the same open file, so the same lock), which stays valid
    should the connection close meanwhile.
    """
    waiting = os.dup(fd)
    guard = threading.Lock()
    taken = threading.Event()
    given_up = False

    def wait() -> None:
        try:
            fcntl.flock(waiting, fcntl.LOCK_EX)
            with guard:
                if given_up:
                    fcntl.flock(waiting, fcntl.LOCK_UN)
                else:
                    taken.set()
        finally:
            os.close(waiting)

    threading.Thread(target=wait, name="sqlite-writers-lock", daemon=True).start()
    if taken.wait(timeout):
        return True
    with guard:
        given_up = True
        # Taken between the wait's end and the guard: it is ours after all.
        return taken.is_set()


def writers_lock_path(database: str) -> str:
    """The lock file of the SQLite database file ``database``."""
    return f"{database}-writers"


class DatabaseCreation(creation.DatabaseCreation):
    def _destroy_test_db(self, test_database_name: str, verbosity: int) -> None:
        super()._destroy_test_db(test_database_name, verbosity)  # type: ignore[misc]  # private
        # The lock file goes with the test database, or every test run leaves one.
        if test_database_name and not self.is_in_memory_db(test_database_name):
            with contextlib.suppress(FileNotFoundError):
                os.remove(writers_lock_path(str(test_database_name)))


class DatabaseWrapper(base.DatabaseWrapper):
    creation_class = DatabaseCreation

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writers_fd: int | None = None
        self._holds_writers_lock = False

    def _writers_lock_fd(self) -> int | None:
        if self.is_in_memory_db():
            return None
        if self._writers_fd is None:
            path = writers_lock_path(str(self.settings_dict["NAME"]))
            self._writers_fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        return self._writers_fd

    def _take_writers_lock(self) -> None:
        fd = self._writers_lock_fd()
        if fd is None or self._holds_writers_lock:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            # As long as SQLite's own busy timeout (OPTIONS "timeout"), then the same error.
            timeout = float(self.settings_dict["OPTIONS"].get("timeout", 5))
            if not _wait_for_lock(fd, timeout):
                raise OperationalError(
                    "database is locked (waiting for the writers' lock)"
                ) from None
        self._holds_writers_lock = True

    def _release_writers_lock(self) -> None:
        if self._holds_writers_lock and self._writers_fd is not None:
            self._holds_writers_lock = False
            fcntl.flock(self._writers_fd, fcntl.LOCK_UN)

    def _start_transaction_under_autocommit(self) -> None:
        self._take_writers_lock()
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]  # private: not in django-stubs
        except BaseException:
            self._release_writers_lock()
            raise

    def _release_unless_in_transaction(self) -> None:
        # A COMMIT that failed leaves the transaction open: the lock goes with its rollback.
        if self.connection is None or not self.connection.in_transaction:
            self._release_writers_lock()

    def _commit(self) -> None:
        try:
            super()._commit()  # type: ignore[misc]  # private: not in django-stubs
        finally:
            self._release_unless_in_transaction()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]  # private: not in django-stubs
        finally:
            self._release_unless_in_transaction()

    def _close(self) -> None:
        # Closing the connection ends any transaction it had open (SQLite rolls it back).
        try:
            super()._close()  # type: ignore[misc]  # private: not in django-stubs
        finally:
            self._release_writers_lock()
            if self._writers_fd is not None:
                os.close(self._writers_fd)
                self._writers_fd = None
