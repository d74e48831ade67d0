"""`pitchpass user add` takes only names a reader can tell apart and passwords that are
more than spaces (issue 28, section 11): a 151-character name was a traceback on
PostgreSQL, names with spaces, control characters or another script's look-alike letters
were added, and so was a password of ten spaces."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.services.accounts import do_add_user

pytestmark = pytest.mark.django_db
RIGHT = "pw-for-tests-only-7"


@pytest.mark.parametrize(
    "username",
    [
        "a" * 151,  # past Django's column of 150
        "ed smith",  # a space: "ed  smith" and "ed smith" read alike
        " ed",
        "ed\n",
        "ed\x1b[31m",  # a terminal's escape
        "\u0435d",  # a Cyrillic "e" (U+0435)
        "ed\u202e",  # a right-to-left override
        "",
        "-ed",
    ],
)
def test_a_username_that_cannot_be_told_apart_or_stored_is_refused(username: str) -> None:
    with pytest.raises(ServiceError) as refused:
        do_add_user(username, "steward", None, RIGHT)
    assert (refused.value.code, refused.value.path) == (ErrorCode.INVALID, "username")
    assert not User.objects.exists()


def test_the_longest_username_is_kept_whole() -> None:
    do_add_user("a" * 150, "steward", None, RIGHT)
    assert User.objects.get().username == "a" * 150


def test_a_name_differing_only_in_case_is_taken_already() -> None:
    do_add_user("ed", "steward", None, RIGHT)
    with pytest.raises(ServiceError) as refused:
        do_add_user("Ed", "steward", None, RIGHT)
    assert (refused.value.code, refused.value.path) == (ErrorCode.DUPLICATE, "username")
    assert '"ed"' in refused.value.message  # the name taken, as it is written
    assert User.objects.count() == 1


@pytest.mark.parametrize("password", [" " * 10, "aaaaaaaaaaaa", "abababababab", "\t" * 12])
def test_a_password_of_spaces_or_few_characters_is_refused(password: str) -> None:
    with pytest.raises(ServiceError) as refused:
        do_add_user("ed", "steward", None, password)
    assert (refused.value.code, refused.value.path) == (ErrorCode.INVALID, "password")
    assert not User.objects.exists()
