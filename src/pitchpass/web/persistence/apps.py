from django.apps import AppConfig


class PitchpassConfig(AppConfig):
    name = "pitchpass.web.persistence"
    label = "pitchpass"
    verbose_name = "pitchpass"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Every write of an account's rows replaces the accounts' mark (marks.py): what
        processes keep of tokens and their users is read afresh at the next call."""
        from django.contrib.auth.models import User

        from pitchpass.web.persistence import marks
        from pitchpass.web.persistence import models as m

        marks.watch(User, m.Profile, m.ApiToken, m.Organisation)
