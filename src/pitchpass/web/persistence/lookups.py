"""Rows read in one statement with no query compiled: what the API reads at every call
(a match by its key), where compiling the ORM's query costs more than running it. Each
value is converted by its field's converters and each row made by its model
(Model.from_db), as the ORM's own reads do, so it is the row the ORM would have given
(tests/web/test_rows.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Field, Model

from pitchpass.web.persistence import models as m


@dataclass(frozen=True)
class _Read:
    statement: str
    parts: tuple[tuple[type[Model], list[str], list[list[Callable[..., Any]]]], ...]


_READS: dict[tuple[str, bool], _Read] = {}


def match_by_key(key: str, with_competition: bool = False) -> m.Match | None:
    """The match with this key (and its competition, read with it), or None."""
    read = _read(with_competition)
    with connection.cursor() as cursor:
        cursor.execute(read.statement, [key])
        found = cursor.fetchone()
    if found is None:
        return None
    made, start = [], 0
    for model, names, converters in read.parts:
        values = list(found[start : start + len(names)])
        start += len(names)
        for n, field_converters in enumerate(converters):
            for convert in field_converters:
                values[n] = convert(values[n], None, connection)
        made.append(model.from_db(connection.alias, names, values))
    match = made[0]
    if with_competition:
        match._state.fields_cache["competition"] = made[1]
    assert isinstance(match, m.Match)
    return match


def _read(with_competition: bool) -> _Read:
    known = _READS.get((connection.vendor, with_competition))
    if known is not None:
        return known
    quote = connection.ops.quote_name
    models: list[tuple[type[Model], str]] = [(m.Match, "a")]
    joined = ""
    if with_competition:
        models.append((m.Competition, "c"))
        table = quote(m.Competition._meta.db_table)
        joined = f" JOIN {table} c ON c.{quote('id')} = a.{quote('competition_id')}"
    columns, parts = [], []
    for model, alias in models:
        fields: list[Field[Any, Any]] = list(model._meta.concrete_fields)
        columns += [f"{alias}.{quote(str(f.column))}" for f in fields]
        converters = [_converters(f) for f in fields]
        parts.append((model, [f.attname for f in fields], converters))
    statement = (
        f"SELECT {', '.join(columns)} FROM {quote(m.Match._meta.db_table)} a{joined}"
        f" WHERE a.{quote('key')} = %s"
    )
    read = _Read(statement, tuple(parts))
    _READS[connection.vendor, with_competition] = read
    return read


def _converters(field: Field[Any, Any]) -> list[Callable[..., Any]]:
    """What the ORM's compiler applies to the field's value as read (JSON text to its
    value on SQLite, say): the backend's converters, then the field's."""
    column = field.cached_col
    found = [*connection.ops.get_db_converters(column), *field.get_db_converters(connection)]
    return [lambda value, _, conn, c=c: c(value, column, conn) for c in found]
