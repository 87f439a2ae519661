"""Background tasks of the games app (django-tasks, database backend): rows in the
database, run by the worker thread of ``manage.py serve`` or by ``manage.py db_worker``."""

from __future__ import annotations

from django_tasks import task


@task(queue_name="mail")
def send_notification_mail(notification_id: int, attempt: int = 1) -> str:
    """Mail one notification to its recipient, if it still should be (games.mail)."""
    from games import mail

    return mail.deliver(notification_id, attempt=attempt)
