"""Sign-in lockout (django-axes, issue 10): after 5 failures for one username, from
anywhere, or from one address, whatever the usernames, signing in is refused for an hour,
the right password too, with a page that says so (429); an admin unlocks."""

from __future__ import annotations

import pytest
from django.test import Client

from pitchpass.web.errors import ServiceError
from pitchpass.web.services.accounts import do_add_user, do_unlock

pytestmark = pytest.mark.django_db
RIGHT = "pw-for-tests-only-7"


@pytest.fixture(autouse=True)
def _lockout_on(settings) -> None:  # type: ignore[no-untyped-def]
    settings.AUTHENTICATION_BACKENDS = [
        "axes.backends.AxesStandaloneBackend",
        "django.contrib.auth.backends.ModelBackend",
    ]
    settings.AXES_ENABLED = True
    do_add_user("ed", "steward", None, RIGHT)
    do_add_user("al", "steward", None, RIGHT)


def _sign_in(username: str, password: str, address: str = "10.0.0.1") -> int:
    client = Client(REMOTE_ADDR=address)
    return client.post("/login/", {"username": username, "password": password}).status_code


def test_the_right_password_is_held_back_after_five_failures() -> None:
    assert _sign_in("ed", RIGHT) == 302  # signs in
    for _ in range(4):
        assert _sign_in("ed", "wrong-password") == 200  # the form again, with its error
    assert _sign_in("ed", "wrong-password") == 429  # the fifth locks
    client = Client(REMOTE_ADDR="10.0.0.9")  # from elsewhere: the username is locked
    locked = client.post("/login/", {"username": "ed", "password": RIGHT})
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Signing in is locked for now" in page and "even with the right password" in page
    assert do_unlock("ed") >= 1
    assert _sign_in("ed", RIGHT, "10.0.0.9") == 302


def test_one_address_trying_many_usernames_is_locked() -> None:
    for name in ("x1", "x2", "x3", "x4"):
        assert _sign_in(name, "wrong-password", "10.0.0.2") == 200
    assert _sign_in("x5", "wrong-password", "10.0.0.2") == 429
    assert _sign_in("al", RIGHT, "10.0.0.2") == 429  # that address, whatever the username
    assert _sign_in("al", RIGHT, "10.0.0.3") == 302  # another address signs al in


def test_unlocking_an_unknown_user_says_so() -> None:
    with pytest.raises(ServiceError) as refused:
        do_unlock("nobody")
    assert refused.value.message == 'unknown user "nobody"'


def _through_proxy(username: str, password: str, forwarded: str) -> int:
    """A sign-in as a proxy on this machine passes it on: the proxy's own address, and
    the client's added at the end of X-Forwarded-For (after whatever the client sent)."""
    client = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)
    return client.post("/login/", {"username": username, "password": password}).status_code


def test_behind_a_trusted_proxy_one_attacker_locks_out_only_itself(settings) -> None:  # type: ignore[no-untyped-def]
    """Issue 26, section 7: with one trusted proxy (PITCHPASS_PROXIES=1) the lockout
    counts the client's address the proxy added, not the proxy's: an attacker's failures,
    even with an X-Forwarded-For of its own naming someone else, lock its address only."""
    settings.PITCHPASS_PROXIES = 1
    attacker, user = "203.0.113.9", "198.51.100.7"
    for name in ("x1", "x2", "x3", "x4"):  # spoofing the user's address in front of its own
        assert _through_proxy(name, "wrong-password", f"{user}, {attacker}") == 200
    assert _through_proxy("x5", "wrong-password", attacker) == 429
    assert _through_proxy("al", RIGHT, user) == 302  # everyone else behind the proxy signs in
    assert _through_proxy("al", RIGHT, attacker) == 429


def test_without_a_trusted_proxy_a_forwarded_address_is_never_believed(settings) -> None:  # type: ignore[no-untyped-def]
    settings.PITCHPASS_PROXIES = 0
    for n, name in enumerate(("x1", "x2", "x3", "x4")):  # a new address in each header
        client = Client(REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}")
        assert client.post("/login/", {"username": name, "password": "no"}).status_code == 200
    locked = Client(REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="192.0.2.99")
    assert locked.post("/login/", {"username": "x5", "password": "no"}).status_code == 429
