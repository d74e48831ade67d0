"""Accounts are audited as matches are (issue 10): users added and deactivated, roles
given in the admin, tokens made and revoked, sign-ins, failed ones and sign-outs, loads;
each entry keeps who did it by name, also once that user is deleted."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from test_workflow_api import future_derby

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import (
    do_add_user,
    do_create_token,
    do_deactivate,
    do_revoke_token,
    tokens_of,
)

pytestmark = pytest.mark.django_db
RIGHT = "pw-for-tests-only-7"


def _entries() -> list[tuple[str, str, str]]:
    return [(e.action, e.username, e.target) for e in m.AuditEntry.objects.order_by("pk")]


def test_account_changes_and_sign_ins_are_in_the_audit() -> None:
    do_add_user("ed", "steward", None, RIGHT)
    do_create_token("ed")
    do_revoke_token(tokens_of("ed")[0].pk)
    browser = Client(REMOTE_ADDR="10.2.2.2")
    assert (
        browser.post("/login/", {"username": "ed", "password": "wrong-one-12"}).status_code == 200
    )
    assert browser.post("/login/", {"username": "ed", "password": RIGHT}).status_code == 302
    browser.post("/logout/")
    do_deactivate("ed")
    assert _entries() == [
        ("user-add", "(command line)", "ed"),
        ("token-create", "(command line)", "ed"),
        ("token-revoke", "(command line)", "ed"),
        ("sign-in-failed", "", "ed"),
        ("sign-in", "ed", "ed"),
        ("sign-out", "ed", "ed"),
        ("user-deactivate", "(command line)", "ed"),
    ]
    failed = m.AuditEntry.objects.get(action="sign-in-failed")
    assert failed.after == {"address": "10.2.2.2"} and failed.user is None


def test_a_role_given_in_the_admin_is_audited_with_before_and_after() -> None:
    store.load(future_derby())
    do_add_user("admin", "admin", None, RIGHT)
    do_add_user("tv", "media", "bt-sport", RIGHT)
    admin = Client()
    admin.force_login(User.objects.get(username="admin"))
    profile = m.Profile.objects.get(user__username="tv")
    changed = admin.post(
        f"/admin/pitchpass/profile/{profile.pk}/change/",
        {"user": profile.user_id, "role": "steward", "organisation": ""},
    )
    assert changed.status_code == 302, changed.content.decode()[:2000]
    entry = m.AuditEntry.objects.get(action="role")
    assert (entry.username, entry.target) == ("admin", "tv")
    assert entry.before == {"role": "media", "org": "bt-sport"}
    assert entry.after == {"role": "steward", "org": None}


def test_an_entry_keeps_its_users_name_when_the_user_is_deleted() -> None:
    store.load(future_derby())
    assert m.AuditEntry.objects.get(action="load").username == "(command line)"
    do_add_user("ed", "steward", None, RIGHT)
    Client().post("/login/", {"username": "ed", "password": RIGHT})
    User.objects.filter(username="ed").delete()
    entry = m.AuditEntry.objects.get(action="sign-in")
    assert entry.username == "ed" and not User.objects.filter(pk=entry.user_id).exists()
