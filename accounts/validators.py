"""User names every front door accepts: the wire protocols reserve ``:`` ``,`` and ``#``."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

USERNAME_MAX_LENGTH = 30

username_validator = RegexValidator(
    r"^[A-Za-z0-9_.-]{1,30}\Z",
    _("1 to 30 characters: letters, digits and _ - . only."),
    code="invalid_username",
)

GUEST_NAME_MAX_LENGTH = 30

# A gateway's guest: a registered name's characters plus those IRC allows in a nick.
guest_name_validator = RegexValidator(
    r"^[A-Za-z0-9_.\-\[\]\\`^{}|]{1,30}\Z",
    _("1 to 30 characters: letters, digits and _ - . [ ] \\ ` ^ { } | only."),
    code="invalid_guest_name",
)

# An IRC channel without its "#": part of a guest's user name, so kept to plain characters.
channel_validator = RegexValidator(
    r"^[A-Za-z0-9_-]{1,30}\Z",
    _("1 to 30 characters after the #: letters, digits, _ and - only."),
    code="invalid_channel",
)
