"""The task worker of ``manage.py serve`` (ajedrez.task_worker): an idle worker only
reads, so on SQLite it never takes the write lock that moves need; a ready task is
claimed and run by django-tasks-db's own loop."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection
from django_tasks_db.models import DBTaskResult

from ajedrez import task_worker
from ajedrez.task_worker import LookFirstWorker, WorkerThread
from games.tasks import send_notification_mail

# Real commits, so that a transaction's BEGIN (the write lock on SQLite) is seen as
# the worker would send it in production, not folded into the test's own transaction.
pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every statement this thread's connection sends, BEGIN included."""
    seen: list[str] = []

    def record(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
        seen.append(sql)
        return execute(sql, *args)

    with connection.execute_wrapper(record):
        yield seen


def _writes_or_locks(sql: str) -> bool:
    words = sql.lstrip().upper()
    return not words.startswith("SELECT") or "FOR UPDATE" in words


def worker() -> LookFirstWorker:
    return LookFirstWorker(interval=1, worker_id="test-worker")


def test_an_idle_worker_only_reads():
    idle = worker()
    with statements() as seen:
        for _look in range(3):
            idle.look_and_run()
    assert seen, "the worker should look at the queue"
    assert [sql for sql in seen if _writes_or_locks(sql)] == []
    assert not any(sql.lstrip().upper().startswith(("BEGIN", "SAVEPOINT")) for sql in seen)


def test_a_task_that_is_not_due_yet_is_not_claimed():
    from datetime import timedelta

    from django.utils import timezone

    later = send_notification_mail.using(run_after=timezone.now() + timedelta(hours=1))
    later.enqueue(999_999)
    with statements() as seen:
        worker().look_and_run()
    assert [sql for sql in seen if _writes_or_locks(sql)] == []
    assert DBTaskResult.objects.get().status == "READY"


def test_a_ready_task_is_claimed_and_run_by_the_library_loop():
    send_notification_mail.enqueue(999_999)  # no such notification: a quick "skipped"
    send_notification_mail.enqueue(999_998)
    with statements() as seen:
        worker().look_and_run()
    # Both run in one batch; each claim took the lock (on SQLite the write lock, a BEGIN
    # IMMEDIATE or EXCLUSIVE): the recording above does see it when it happens.
    assert list(DBTaskResult.objects.values_list("status", flat=True)) == ["SUCCESSFUL"] * 2
    assert any(_writes_or_locks(sql) for sql in seen)
    if connection.vendor == "sqlite":
        assert sum(sql.startswith("BEGIN") for sql in seen) == 3  # two claims, one empty
    result = DBTaskResult.objects.first()
    assert result is not None
    assert result.return_value.startswith("skipped: the notification is gone")


def test_the_thread_stops_at_once_even_in_a_long_pause():
    thread = WorkerThread(interval=3600)
    thread.start()
    thread.stop(timeout=10)
    assert not thread.is_alive()


def test_the_batch_chatter_of_the_library_is_not_logged(caplog):
    send_notification_mail.enqueue(999_999)
    with caplog.at_level("INFO"):
        worker().look_and_run()
    messages = [record.getMessage() for record in caplog.records]
    assert any("state=SUCCESSFUL" in message for message in messages), messages
    assert not any(message.startswith(task_worker._BATCH_CHATTER) for message in messages)


def test_the_worker_outlives_a_database_that_fails_and_logs_it_once(monkeypatch, caplog):
    """Out of descriptors, or the database restarting: the looks fail for a while, the
    worker logs the first failure only, says when it reads again, and goes on."""
    from django.db import OperationalError

    looks = iter([False, "fail", "fail", "fail", False, False])
    flaky = worker()

    def has_ready_task() -> bool:
        outcome = next(looks)
        if outcome == "fail":
            raise OperationalError("unable to open database file")
        return bool(outcome)

    def pause() -> None:
        if len(pauses) == 5:
            flaky.running = False
        pauses.append(1)

    pauses: list[int] = []
    monkeypatch.setattr(flaky, "has_ready_task", has_ready_task)
    monkeypatch.setattr(flaky, "pause", pause)
    with caplog.at_level("INFO", logger="ajedrez.tasks"):
        flaky.run()  # returns, rather than raising out of the thread
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "ajedrez.tasks"]
    assert [level for level, _ in said] == ["INFO", "ERROR", "WARNING", "INFO"], said
    assert "cannot read the queue" in said[1][1] and "reads the queue again" in said[2][1]
    assert len(pauses) == 6


def test_tasks_left_running_by_a_dead_worker_are_queued_again_and_run():
    from datetime import timedelta
    from io import StringIO

    from django.core.management import call_command
    from django.utils import timezone

    send_notification_mail.enqueue(999_999)
    send_notification_mail.enqueue(999_998)
    dead, busy = DBTaskResult.objects.order_by("enqueued_at", "id")
    # Claimed as the library claims, by a worker that then died (or is still at it).
    dead.claim("killed-worker")
    busy.claim("live-worker")
    DBTaskResult.objects.filter(pk=dead.pk).update(
        started_at=timezone.now() - timedelta(minutes=11)
    )
    out = StringIO()
    call_command("requeue_stale_tasks", stdout=out)
    assert "Put 1 task(s)" in out.getvalue()
    assert dict(DBTaskResult.objects.values_list("pk", "status")) == {
        dead.pk: "READY", busy.pk: "RUNNING"
    }
    worker().look_and_run()
    dead.refresh_from_db()
    assert dead.status == "SUCCESSFUL"
    assert dead.return_value.startswith("skipped: the notification is gone")


@pytest.mark.parametrize("minutes", ["0", "4", "-5", "ten", ""])
def test_requeueing_refuses_a_time_a_live_send_could_still_take(minutes, settings):
    from django.core.management import CommandError, call_command

    settings.EMAIL_TIMEOUT = 30  # a send may take ten of them: 5 minutes at least

    send_notification_mail.enqueue(999_999)
    DBTaskResult.objects.get().claim("live-worker")
    with pytest.raises(CommandError):
        call_command("requeue_stale_tasks", "--minutes", minutes)
    assert DBTaskResult.objects.get().status == "RUNNING"


def test_the_mail_worker_leaves_the_engines_queue_to_its_own_worker():
    from games.analysis_tasks import analyse_game

    analyse_game.enqueue(999_999)  # no such analysis: a quick "skipped"
    mail = WorkerThread(interval=1).worker
    assert not mail.has_ready_task()
    mail.look_and_run()
    assert DBTaskResult.objects.get().status == "READY"
    engine_worker = WorkerThread(interval=1, analysis=True).worker
    assert engine_worker.has_ready_task()
    engine_worker.look_and_run()
    result = DBTaskResult.objects.get()
    assert (result.status, result.queue_name) == ("SUCCESSFUL", "analysis")
    assert result.return_value.startswith("skipped")


def test_the_engines_worker_leaves_the_mail_alone():
    send_notification_mail.enqueue(999_999)
    engine_worker = WorkerThread(interval=1, analysis=True).worker
    assert not engine_worker.has_ready_task()
    engine_worker.look_and_run()
    assert DBTaskResult.objects.get().status == "READY"
