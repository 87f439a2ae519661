"""The background-task workers inside ``manage.py serve``: django-tasks-db's own worker
(the loop of ``manage.py db_worker``) on a thread of the server's process, so that mail
goes out with no other command, and a second one for the engine's queue (the analyses,
which take a while). The mail's worker shares the process's cache with the sockets, which
is what lets it see who is on the site without Redis. A deployment of several processes
runs ``manage.py db_worker --queue-name '*' --exclude-queues analysis`` and ``manage.py
db_worker --queue-name analysis`` instead (docs/deploy.md): any number of workers share a
queue, each task claimed by one (row locks on PostgreSQL).
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.db import connections
from django.utils import timezone
from django.utils.crypto import get_random_string
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger("ajedrez.tasks")

# What django-tasks-db's worker says each time its loop starts and ends: every batch
# here, so at INFO they would fill the console with nothing to read.
_BATCH_CHATTER = ("Starting worker", "No more tasks to run")


class _DropBatchChatter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            isinstance(record.msg, str) and record.msg.startswith(_BATCH_CHATTER)
        )


class LookFirstWorker(Worker):
    """django-tasks-db's worker that looks for a ready task with a plain read before it
    claims one.

    The library's loop claims inside ``exclusive_transaction``: on SQLite a ``BEGIN
    IMMEDIATE`` (or ``EXCLUSIVE``), the database's one write lock, taken every
    ``interval`` even when the queue is empty, and a move committing at that moment
    waits behind it. Here an idle
    worker only reads (a ``SELECT`` on the queue's index, which WAL lets run beside any
    writer); when a task is ready, the library's own loop runs in batch mode, claiming
    and running tasks, with its locking and bookkeeping, until none is left, then
    returns to looking. Not a fork: the claim, the run and the results are the library's.
    """

    def __init__(
        self,
        *,
        interval: float,
        worker_id: str,
        queue_names: list[str] | None = None,
        excluded_queue_names: list[str] | None = None,
    ) -> None:
        super().__init__(
            queue_names=queue_names or ["*"],
            interval=interval,
            batch=True,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=worker_id,
            excluded_queue_names=excluded_queue_names or [],
        )
        self._wake = threading.Event()

    def has_ready_task(self) -> bool:
        """Whether a task waits to be run: the query of the library's claim, unlocked."""
        tasks = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            tasks = tasks.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            tasks = tasks.exclude(queue_name__in=self.excluded_queue_names)
        return tasks.exists()

    def pause(self) -> None:
        """Wait ``interval`` between looks, or less if :meth:`stop` is called."""
        self._wake.wait(self.interval)

    def look_and_run(self) -> None:
        # The look keeps the thread's connection from one look to the next: closing it
        # after each (what close_old_connections does with SQLite's CONN_MAX_AGE of 0)
        # would open the database file again every interval, and fail while the process
        # is out of file descriptors. The library's loop, once a task is ready, closes
        # and opens connections around tasks as after a request.
        if self.has_ready_task():
            super().run()

    def run(self) -> None:
        logger.info("task worker %s started", self.worker_id)
        failing = False
        while self.running:
            try:
                self.look_and_run()
            except Exception:
                # The database gone for a moment (restarting, out of descriptors): the
                # worker must outlive it, or mail stops until the process restarts.
                # Logged once per episode, not every interval.
                connections.close_all()
                if not failing:
                    logger.exception(
                        "task worker %s cannot read the queue; trying again every %s s",
                        self.worker_id, self.interval,
                    )
                failing = True
            else:
                if failing:
                    logger.warning("task worker %s reads the queue again", self.worker_id)
                failing = False
            if self.running:
                self.pause()
        logger.info("task worker %s stopped", self.worker_id)

    def stop(self) -> None:
        self.running = False
        self._wake.set()


# The engine's queue (games.analysis_tasks) has a worker of its own: a game's analysis
# takes a while, and no mail should wait behind it.
ANALYSIS_QUEUE = "analysis"


class WorkerThread(threading.Thread):
    """Runs the worker until :meth:`stop`; the task in hand, if any, is finished first.

    By default every queue but the engine's; ``analysis=True``: the engine's alone, with
    its engine process stopped when the thread ends."""

    def __init__(self, *, interval: float, analysis: bool = False) -> None:
        super().__init__(name="analysis-worker" if analysis else "task-worker", daemon=True)
        self.analysis = analysis
        worker_id = f"serve-{'analysis-' if analysis else ''}{get_random_string(12)}"
        if analysis:
            self.worker = LookFirstWorker(
                interval=interval, worker_id=worker_id, queue_names=[ANALYSIS_QUEUE]
            )
        else:
            self.worker = LookFirstWorker(
                interval=interval, worker_id=worker_id, excluded_queue_names=[ANALYSIS_QUEUE]
            )

    def run(self) -> None:
        # Signals belong to the main thread (Daphne's): the worker's own handlers are
        # never installed here, and stop() ends the loop instead.
        try:
            self.worker.run()
        except Exception:
            logger.exception("the task worker stopped on an error")
        finally:
            if self.analysis:
                from games.analysis_tasks import close_thread_engine

                close_thread_engine()
            connections.close_all()

    def stop(self, timeout: float = 35.0) -> None:
        self.worker.stop()
        self.join(timeout)


logging.getLogger("django_tasks_db").addFilter(_DropBatchChatter())


def requeue_stale(*, older_than: timedelta) -> int:
    """Put back in the queue the tasks marked running since before ``older_than`` ago:
    claimed by a worker that died in the middle (django-tasks-db has no lease to expire
    such a claim). Each runs again from the start; a mail task checks again whether
    its mail is still wanted. Returns how many."""
    stale = DBTaskResult.objects.running().filter(started_at__lt=timezone.now() - older_than)
    count = stale.update(status="READY")
    if count:
        logger.warning("put %d stale running task(s) back in the queue", count)
    return count
