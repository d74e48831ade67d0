"""HTTP: the API (django-ninja), the pages and their forms, URLs, middleware and the
Django admin. These modules call services only: they do not import the models (the
import-linter contract in pyproject.toml, run by `make lint`; the admin, which edits
the models by nature, is its one exception)."""
