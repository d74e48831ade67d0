"""A password validator beside Django's own (settings.AUTH_PASSWORD_VALIDATORS)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError


class VariedValidator:
    """A password of at least `distinct` different characters, not all of them spaces:
    ten spaces, or "aaaaaaaaaa", pass Django's length, common and numeric checks."""

    def __init__(self, distinct: int = 5) -> None:
        self.distinct = distinct

    def validate(self, password: str, user: Any = None) -> None:
        if not password.strip() or len(set(password)) < self.distinct:
            raise ValidationError(
                f"This password has too few different characters: it needs at least"
                f" {self.distinct}, not all of them spaces.",
                code="password_too_plain",
            )

    def get_help_text(self) -> str:
        return f"Your password must have at least {self.distinct} different characters."
