"""What the browser tests share: the demo site they drive."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Site:
    url: str
    passwords: dict[str, str]
