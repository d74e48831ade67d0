"""What the browser tests share: the demo site they drive."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Site:
    url: str
    passwords: dict[str, str]
    home: Path  # its PITCHPASS_HOME, for the CLI (`pitchpass token create`)
