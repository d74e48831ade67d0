from django.apps import AppConfig


class PitchpassConfig(AppConfig):
    name = "pitchpass.web.persistence"
    label = "pitchpass"
    verbose_name = "pitchpass"
    default_auto_field = "django.db.models.BigAutoField"
