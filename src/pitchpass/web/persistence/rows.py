"""A row written in one statement, with no query compiled: what a submission writes
while it holds the match lock (the request, its audit entry), where every millisecond is
one that every other submission to the match waits for. Each field's value is prepared for
the database by the field itself, as the ORM's own INSERT does (JSON, times, booleans)."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Model


def insert(row: Model, computed: dict[str, tuple[str, list[Any]]] | None = None) -> None:
    """INSERT `row` (every concrete field but its primary key) and set its primary key
    from the statement (RETURNING: SQLite 3.35+, PostgreSQL). `computed`: fields given as
    SQL (a scalar subquery and its parameters), read in the statement itself; the row
    keeps None for them. Nothing is checked that the database does not check (no model
    validation, and no model signals: the app listens to none of those, only to
    sign-ins and sign-outs, http/apps.py)."""
    statement, params = insert_statement(row, computed)
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        inserted(row, cursor.fetchone()[0])


def insert_statement(
    row: Model,
    computed: dict[str, tuple[str, list[Any]]] | None = None,
    source: str = "",
    returning: tuple[str, ...] = (),
) -> tuple[str, list[Any]]:
    """The statement of `insert` and its parameters; with a `source` (a table or a
    statement's name in a WITH), INSERT ... SELECT ... FROM it: one row for each of its
    rows, none if it has none (`computed` may then name its columns). It returns the
    primary key, then the columns of the fields named in `returning`."""
    computed = computed or {}
    meta = row._meta
    quote = connection.ops.quote_name
    columns, values, params = [], [], []
    for field in meta.concrete_fields:
        if field.primary_key:
            continue
        columns.append(quote(str(field.column)))
        if field.name in computed:
            sql, extra = computed[field.name]
            values.append(f"({sql})")
            params += extra
        else:
            values.append("%s")
            params.append(field.get_db_prep_save(field.pre_save(row, True), connection))
    rows = (
        f"SELECT {', '.join(values)} FROM {source}" if source else f"VALUES ({', '.join(values)})"
    )
    back = [quote(str(meta.pk.column))]
    back += [quote(str(meta.get_field(name).column)) for name in returning]  # type: ignore[union-attr]
    table = quote(meta.db_table)
    statement = f"INSERT INTO {table} ({', '.join(columns)}) {rows} RETURNING {', '.join(back)}"
    return statement, params


def inserted(row: Model, pk: Any) -> None:
    """`row` as the ORM leaves a row it has just inserted."""
    row.pk = pk
    row._state.adding = False
    row._state.db = connection.alias


def quoted(model: type[Model], field: str = "") -> str:
    """A model's table, or one of its fields' column, quoted for SQL."""
    meta = model._meta
    name = meta.get_field(field).column if field else meta.db_table  # type: ignore[union-attr]
    return connection.ops.quote_name(str(name))
