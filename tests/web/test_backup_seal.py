"""A backup is sealed with the site's secret key (issue 28, section 11): `restore` took a
backup edited by hand (a media user made an admin, a token's digest swapped), and the
audit's chain, a plain hash, verified intact after it. Now an edited backup, or one sealed
with another key, is refused and nothing is restored, unless the operator says
`--unsealed`; a malformed backup is refused with its reason, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings
from test_workflow_api import future_derby

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.backup import BadBackup, backup, restore
from pitchpass.web.services.accounts import do_add_user, do_create_token

pytestmark = pytest.mark.django_db(transaction=True)
RIGHT = "pw-for-tests-only-7"


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    """A backup of the derby with a media user, the database emptied after it."""
    store.load(future_derby())
    do_add_user("tv", "media", "bt-sport", RIGHT)
    do_create_token("tv")
    path = tmp_path / "backup.json"
    backup(path)
    call_command("flush", interactive=False, verbosity=0)
    assert not User.objects.exists()
    return path


def _edit(path: Path, change: Any) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def _rows(document: dict[str, Any], model: str) -> list[dict[str, Any]]:
    return [row for row in document["rows"] if row["model"] == model]


def test_a_backup_restores_where_its_seal_holds(saved: Path) -> None:
    rows, warning = restore(saved)
    assert warning == "" and rows > 0
    assert m.Profile.objects.get(user__username="tv").role == "media"


def test_a_media_user_made_an_admin_in_the_file_is_refused(saved: Path) -> None:
    def promote(document: dict[str, Any]) -> None:
        _rows(document, "pitchpass.profile")[0]["fields"]["role"] = "admin"

    _edit(saved, promote)
    with pytest.raises(BadBackup, match="seal does not hold"):
        restore(saved)
    assert not User.objects.exists() and not m.Match.objects.exists()  # nothing restored
    _, warning = restore(saved, unsealed=True)  # the operator's own choice, said
    assert "nothing proves it unedited" in warning
    assert m.Profile.objects.get(user__username="tv").role == "admin"


def test_a_token_swapped_in_the_file_is_refused(saved: Path) -> None:
    def swap(document: dict[str, Any]) -> None:
        _rows(document, "pitchpass.apitoken")[0]["fields"]["digest"] = "0" * 64

    _edit(saved, swap)
    with pytest.raises(BadBackup, match="seal does not hold"):
        restore(saved)
    assert not m.ApiToken.objects.exists()


def test_a_backup_sealed_with_another_key_is_refused(saved: Path) -> None:
    with override_settings(SECRET_KEY="another-site-entirely"), pytest.raises(BadBackup):
        restore(saved)
    assert not User.objects.exists()


def test_a_backup_from_before_seals_is_taken_only_when_told(saved: Path) -> None:
    def unseal(document: dict[str, Any]) -> None:
        document["pitchpass-backup"] = 1
        del document["seal"]

    _edit(saved, unseal)
    with pytest.raises(BadBackup, match="has no seal"):
        restore(saved)
    rows, warning = restore(saved, unsealed=True)
    assert rows > 0 and "has no seal" in warning


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("not json at all", "not JSON"),
        ('{"pitchpass-backup": 2, "rows": {"model": "auth.user"}}', "not a pitchpass backup"),
        ('{"pitchpass-backup": 2, "rows": [{"model": "pitchpass.nothing", "pk": 1,'
         ' "fields": {}}]}', "row 1 cannot be restored"),
        ('{"pitchpass-backup": 2, "rows": [{"model": "pitchpass.profile", "pk": 1,'
         ' "fields": {"user": 99, "role": "admin"}}]}', "cannot be restored"),
        ('{"pitchpass-backup": 2, "rows": [{"model": "auth.user", "pk": "x",'
         ' "fields": {"username": "a"}}]}', "row 1 cannot be restored"),
        ('{"pitchpass-backup": 2, "rows": [["auth.user"]]}', "row 1 cannot be restored"),
    ],
)  # fmt: skip
def test_a_malformed_backup_is_refused_with_its_reason(
    tmp_path: Path, written: str, said: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(written)
    with pytest.raises(BadBackup, match=said):
        restore(path, unsealed=True)
    assert not User.objects.exists() and not m.Profile.objects.exists()
