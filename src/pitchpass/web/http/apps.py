from django.apps import AppConfig


class HttpConfig(AppConfig):
    """The pages' templates and static files (the models are persistence's app)."""

    name = "pitchpass.web.http"
    label = "pitchpass_http"
    verbose_name = "pitchpass pages"
