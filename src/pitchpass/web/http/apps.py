from typing import Any

from django.apps import AppConfig


class HttpConfig(AppConfig):
    """The pages' templates and static files (the models are persistence's app)."""

    name = "pitchpass.web.http"
    label = "pitchpass_http"
    verbose_name = "pitchpass pages"

    def ready(self) -> None:
        """Signing in and out, and failing to, go to the audit (services.accounts)."""
        from django.contrib.auth import signals

        from pitchpass.web.http.throttles import client_address
        from pitchpass.web.services import accounts

        def address(request: Any) -> str:
            return client_address(request) if request is not None else ""

        def signed_in(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
            accounts.record_sign_in(user, address(request))

        def signed_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
            accounts.record_sign_out(user, address(request))

        def failed(sender: Any, credentials: Any, request: Any = None, **kwargs: Any) -> None:
            if getattr(request, "axes_locked_out", False):
                return  # refused by the lockout, not tried: its attempts are axes's record
            accounts.record_failed_sign_in(str(credentials.get("username", "")), address(request))

        signals.user_logged_in.connect(signed_in, weak=False, dispatch_uid="pitchpass-sign-in")
        signals.user_logged_out.connect(signed_out, weak=False, dispatch_uid="pitchpass-out")
        signals.user_login_failed.connect(failed, weak=False, dispatch_uid="pitchpass-failed")
