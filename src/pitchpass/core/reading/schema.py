"""The JSON Schema of the scenario format (version 1), for editors and other tools.

It describes shapes and bounds; rules that span the document (references, overlapping
phases, locked requests that overflow) are the validator's alone. Keep in step with
`read_setup.py` and `read_matches.py`: a test checks every example against both.
"""

from __future__ import annotations

from typing import Any

from pitchpass.core.reading.read_season import MINIMUM_CHOICES
from pitchpass.core.reading.read_setup import KINDS

_ID = {"type": ["string", "integer"], "minLength": 1}
_IDS = {"type": "array", "items": _ID}
_TIME = {
    "type": "string",
    "pattern": r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$",
    "description": "date and time with a timezone, e.g. 2017-12-10T16:30:00+00:00",
}
_PLACES = {"type": "integer", "minimum": 0}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    # Unknown fields are only warnings for the CLI, but an editor should flag them as typed:
    # a misspelt `consent` or `locked` changes decisions without a word.
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _season() -> dict[str, Any]:
    """`policy.season` (docs/scenario-extensions.md, "Season rules")."""
    who = {"type": "string", "minLength": 1}
    quota = _object(
        {
            "for": who,
            "per": {"enum": ["match", "day", "season"]},
            "counts": {"enum": ["requests", "places"]},
            "at_most": _PLACES,
            "zones": {"type": "array", "items": _ID, "minItems": 1},
        },
        ["for", "per", "counts", "at_most"],
    )
    cell = _object(
        {"zone": _ID, "phases": {"type": "array", "items": _ID, "minItems": 1}},
        ["zone", "phases"],
    )
    minimum = _object(
        {
            "name": {"type": "string", "minLength": 1},
            "to": who,
            "at_least": {"type": "integer", "minimum": 1},
            "cells": {"type": "array", "items": cell, "minItems": 1},
            "section": {"enum": ["K"]},  # docs/section-k.md: sets the five below at once
            **{key: {"enum": list(options)} for key, options in MINIMUM_CHOICES.items()},
        },
        ["name", "at_least", "cells"],
    )
    minimum["anyOf"] = [{"required": ["to"]}, {"required": ["section"]}]
    rotation = _object({"zone": _ID, "phase": _ID, "tier": _ID}, ["zone", "phase", "tier"])
    return _object(
        {
            "quotas": {"type": "array", "items": quota},
            "minimums": {"type": "array", "items": minimum},
            "rotations": {"type": "array", "items": rotation},
        },
        [],
    )


def scenario_schema() -> dict[str, Any]:
    zone = _object(
        {
            "id": _ID,
            "name": {"type": "string"},
            "capacity": {
                "oneOf": [
                    _PLACES,
                    {"type": "object", "additionalProperties": _PLACES, "minProperties": 1},
                ]
            },
            "via": _IDS,
            "occupant": {"enum": ["home", "away"]},
            "closed": _IDS,
        },
        ["id", "capacity"],
    )
    camera = _object(
        {"id": _ID, "name": {"type": "string"}, "zone": _ID, "operator": _ID, "phases": _IDS},
        ["id", "zone"],
    )
    request = _object(
        {
            "id": _ID,
            "match": _ID,
            "by": _ID,
            "zone": _ID,
            "phases": {"type": "array", "items": _ID, "minItems": 1},
            "crew": {"type": "integer", "minimum": 1},
            "cameras": {"type": "integer", "minimum": 0, "default": 1},
            "submitted": _TIME,
            "consent": _IDS,
            "locked": {"type": "boolean", "default": False},
            "no_shows": {"type": "integer", "minimum": 0, "default": 0},
        },
        ["id", "match", "by", "zone", "phases", "crew", "submitted"],
    )
    incident = _object(
        {
            "id": _ID,
            "match": _ID,
            "zone": _ID,
            "minute": {"type": "number"},
            "at": _TIME,
            "what": {"type": "string"},
        },
        ["id", "match", "zone"],
    )
    incident["oneOf"] = [{"required": ["minute"]}, {"required": ["at"]}]
    tier_rule = {
        "type": "string",
        "pattern": r"^(host|partner|club|any|org:.+|kind:(" + "|".join(KINDS) + "))$",
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pitchpass.example/schema/scenario-1.json",
        "title": "pitchpass scenario (version 1)",
        "type": "object",
        "additionalProperties": False,
        "required": ["pitchpass", "competition", "venues", "organisations", "matches"],
        "properties": {
            "pitchpass": {"const": 1},
            "competition": _object(
                {"id": _ID, "name": {"type": "string"}, "partners": _IDS}, ["id"]
            ),
            "policy": _object(
                {
                    "deadline": {"type": "string", "pattern": r"^\s*\d+\s*[mhd]\s*$"},
                    "within_tier": {"enum": ["most-granted", "first-come"]},
                    "tiers": {
                        "type": "array",
                        "items": _object({"name": _ID, "rule": tier_rule}, ["name", "rule"]),
                    },
                    "match_day": _object(
                        {
                            "release_before": {"type": "integer", "minimum": 0, "maximum": 14},
                            "accept_within": {"type": "integer", "minimum": 1, "maximum": 1440},
                            "release_grace": {"type": "integer", "minimum": 0, "maximum": 1440},
                            "release_warning": {"type": "integer", "minimum": 0, "maximum": 1440},
                            "release_exempt": {"type": "array", "items": _ID},
                            "no_show_limit": {
                                "type": "integer",
                                "minimum": 0,
                                "maximum": 1_000_000,
                            },
                        },
                        [],
                    ),
                    "season": _season(),
                },
                [],
            ),
            "phases": {
                "type": "array",
                "minItems": 1,
                "items": _object(
                    {"id": _ID, "start": {"type": "number"}, "end": {"type": "number"}},
                    ["id", "start", "end"],
                ),
            },
            "venues": {
                "type": "array",
                "items": _object(
                    {
                        "id": _ID,
                        "name": {"type": "string"},
                        "zones": {"type": "array", "items": zone},
                        "cameras": {"type": "array", "items": camera},
                    },
                    ["id", "zones"],
                ),
            },
            "organisations": {
                "type": "array",
                "items": _object(
                    {"id": _ID, "name": {"type": "string"}, "kind": {"enum": list(KINDS)}},
                    ["id", "kind"],
                ),
            },
            "matches": {
                "type": "array",
                "items": _object(
                    {
                        "id": _ID,
                        "name": {"type": "string"},
                        "venue": _ID,
                        "home": _ID,
                        "away": _ID,
                        "kickoff": _TIME,
                        "host": _ID,
                        "televised_by": {"type": "array", "items": _ID, "uniqueItems": True},
                    },
                    ["id", "venue", "home", "away", "kickoff"],
                ),
            },
            "requests": {"type": "array", "items": request},
            "incidents": {"type": "array", "items": incident},
        },
    }
