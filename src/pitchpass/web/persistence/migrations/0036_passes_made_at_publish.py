"""Passes are made as grants are published (persistence/passes.py), no longer on the
first read of a match's passes: the grants published before, whose passes nobody read
yet, get theirs here, so that reading passes writes nothing."""

import secrets

from django.db import migrations
from django.db.models import Q

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # as persistence/passes.py (codes never change)


def make_missing(apps, schema_editor):  # type: ignore[no-untyped-def]
    Request = apps.get_model("pitchpass", "Request")
    Pass = apps.get_model("pitchpass", "Pass")
    published = Q(locked=True) | (Q(granted_at__isnull=False) & ~Q(revoked=""))
    missing = list(
        Request.objects.filter(published, pass_of__isnull=True).values_list("pk", flat=True)
    )
    taken = set(Pass.objects.values_list("code", flat=True))
    made = []
    for pk in missing:
        code = "".join(secrets.choice(ALPHABET) for _ in range(10))
        while code in taken:
            code = "".join(secrets.choice(ALPHABET) for _ in range(10))
        taken.add(code)
        made.append(Pass(request_id=pk, code=code))
    Pass.objects.bulk_create(made, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("pitchpass", "0035_names_of_one_line")]

    operations = [migrations.RunPython(make_missing, migrations.RunPython.noop)]
