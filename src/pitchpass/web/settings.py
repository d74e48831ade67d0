"""Django settings: SQLite in PITCHPASS_HOME by default, PostgreSQL when DATABASE_URL is set.
Every value from the environment is read by django-environ (`env` below), typed."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import environ


class _Env(environ.Env):  # type: ignore[misc]  # django-environ ships no types
    """django-environ's reader, stricter: a value is taken as written (one starting with
    "$", as a secret key may, is not the name of another variable), a yes-or-no is one of
    1, true, yes, on or 0, false, no, off (or empty), and an error names the variable."""

    YES = ("1", "true", "yes", "on")
    NO = ("0", "false", "no", "off", "")

    def get_value(
        self, var: str, cast: Any = None, default: Any = environ.Env.NOTSET, **_: Any
    ) -> Any:
        if var not in self.ENVIRON:
            if default is self.NOTSET:
                raise ValueError(f"{var} must be set")
            return default
        value = self.ENVIRON[var]
        try:
            if cast is bool:
                said = value.strip().lower()
                if said not in self.YES + self.NO:
                    raise ValueError("a yes or no is 1, true, yes, on or 0, false, no, off")
                return said in self.YES
            return self.parse_value(value, cast)
        except ValueError as error:
            raise ValueError(f"{var}={value!r} cannot be read: {error}") from None


env = _Env()
HOME = Path(env.str("PITCHPASS_HOME", "~/.local/share/pitchpass")).expanduser()


def database(url: str | None, home: Path) -> dict[str, Any]:
    """Django's DATABASES["default"] for a `postgres://user:password@host:port/name` URL
    (read by django-environ), or the embedded SQLite file in `home` when there is none."""
    if not url:
        home.mkdir(parents=True, exist_ok=True)
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(home / "pitchpass.sqlite3"),
            # One writer at a time, taken when a transaction starts: SQLite ignores
            # SELECT ... FOR UPDATE, so this is what serialises changes to a match there.
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
        }
    scheme = urlparse(url).scheme
    if scheme not in ("postgres", "postgresql"):
        raise ValueError(f"DATABASE_URL must start with postgres://, not {scheme}://")
    found: dict[str, Any] = environ.Env.db_url_config(url)
    # The query's options go to the driver (`?sslmode=require&connect_timeout=5`), but
    # conn_max_age, Django's own: how long a connection is kept (seconds; else
    # PITCHPASS_CONN_MAX_AGE, else 0: `pitchpass serve --workers N` keeps them 60 s).
    driver: dict[str, Any] = dict(found.pop("OPTIONS", {}))
    keep = found.pop("CONN_MAX_AGE", env.str("PITCHPASS_CONN_MAX_AGE", "0"))
    if not str(keep).isdigit():
        raise ValueError(
            f"conn_max_age (PITCHPASS_CONN_MAX_AGE) must be whole seconds, not {keep!r}"
        )
    # Parameters bound by the server and statements prepared after 5 runs on a connection
    # (psycopg's own): a query's plan is made once, not at every call (planning a board's
    # joins costs more than running them). `?server_side_binding=false` or
    # `?prepare_threshold=none` turn them off (a pooler in transaction mode needs that).
    binding = str(driver.pop("server_side_binding", "true")).lower()
    if binding not in ("true", "false"):
        raise ValueError(f"server_side_binding must be true or false, not {binding!r}")
    threshold = str(driver.pop("prepare_threshold", "5")).lower()
    if threshold != "none" and not threshold.isdigit():
        raise ValueError(f"prepare_threshold must be a whole number or none, not {threshold!r}")
    driver["server_side_binding"] = binding == "true"
    driver["prepare_threshold"] = None if threshold == "none" else int(threshold)
    return found | {
        "NAME": found["NAME"] or "pitchpass",
        "OPTIONS": driver,
        "CONN_MAX_AGE": int(keep),
        "CONN_HEALTH_CHECKS": True,
    }


def cache(url: str | None) -> dict[str, object]:
    """Django's CACHES["default"], where the API's rates are counted: in this process's
    memory when PITCHPASS_CACHE_URL is unset (one server process); in the database's
    table `pitchpass_cache` for `database`, or in Redis for a `redis://` URL, shared by
    every process and server (`pitchpass serve --workers N` uses the database unless
    told otherwise)."""
    if not url:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    if url == "database":
        return {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "pitchpass_cache",
        }
    if urlparse(url).scheme in ("redis", "rediss"):
        found: dict[str, object] = environ.Env.cache_url_config(url)
        return found | {"BACKEND": "django.core.cache.backends.redis.RedisCache"}
    raise ValueError(f"PITCHPASS_CACHE_URL must be `database` or a redis:// URL, not {url!r}")


def _secret_key(home: Path) -> str:
    """From PITCHPASS_SECRET_KEY, else a key kept in the data folder (made on first use)."""
    if env.str("PITCHPASS_SECRET_KEY", ""):
        return str(env.str("PITCHPASS_SECRET_KEY"))
    path = home / "secret-key"
    if not path.exists():
        home.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


# Production (PITCHPASS_PRODUCTION=1, behind an HTTPS proxy): the secret key and the
# host names come from the environment, or the server does not start; cookies only over
# HTTPS, HSTS, the proxy's X-Forwarded-Proto trusted. `python -m django check --deploy`
# is clean then (tests/web/test_settings.py).
PRODUCTION = env.bool("PITCHPASS_PRODUCTION", False)
if PRODUCTION and not env.str("PITCHPASS_SECRET_KEY", ""):
    raise ValueError("PITCHPASS_SECRET_KEY must be set in production (PITCHPASS_PRODUCTION=1)")
if PRODUCTION and not env.list("PITCHPASS_ALLOWED_HOSTS", default=[]):
    raise ValueError(
        "PITCHPASS_ALLOWED_HOSTS (the host names served, separated by commas) must be set"
        " in production (PITCHPASS_PRODUCTION=1)"
    )
SECRET_KEY = _secret_key(HOME)
DEBUG = env.bool("PITCHPASS_DEBUG", False) and not PRODUCTION
ALLOWED_HOSTS = [
    host.strip()
    for host in env.list(
        "PITCHPASS_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"]
    )
    if host.strip()
]
# Proxies in front that add the client's address to X-Forwarded-For (1 in production,
# behind its HTTPS proxy; none otherwise): the address the lockout, the rates and the
# audit count is then the one the last trusted proxy saw, not the proxy's own, and one a
# client writes into the header itself is never believed.
# One place reads it (http/throttles.client_address): the rates, the audit and the
# sign-in lockout (AXES_CLIENT_IP_CALLABLE) all count that address; gunicorn passes the
# proxies' headers on untouched (server.options): the app alone decides what to believe.
# Not django-ipware's count: given a client's own X-Forwarded-For in front of the proxy's
# entry, it answers the proxy's address, which would lock everyone out behind it.
PITCHPASS_PROXIES = env.int("PITCHPASS_PROXIES", 1 if PRODUCTION else 0)
NINJA_NUM_PROXIES = PITCHPASS_PROXIES
# The API's lists come in pages: ?limit= (100 by default, at most 1,000) and ?offset=,
# answered as {"items": [...], "count": all of them}.
NINJA_PAGINATION_PER_PAGE = 100
NINJA_PAGINATION_MAX_LIMIT = 1000
AXES_CLIENT_IP_CALLABLE = "pitchpass.web.http.throttles.client_address"
if PRODUCTION:
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^health/$", r"^metrics$"]  # asked over plain HTTP
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = 31_536_000  # a year
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    CSRF_TRUSTED_ORIGINS = [f"https://{host}" for host in ALLOWED_HOSTS]
# E-mail (notifications, sent by `pitchpass worker`): by default each message is written
# as a file into PITCHPASS_HOME/mail (read them there); PITCHPASS_EMAIL_BACKEND=smtp sends
# through EMAIL_HOST (PITCHPASS_EMAIL_HOST, _PORT, _USER, _PASSWORD, _TLS=1), `console`
# prints them, and any other value is a backend's dotted path (django-anymail's, once
# installed, with its own settings).
_MAIL_BACKENDS = {
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}
EMAIL_BACKEND = _MAIL_BACKENDS.get(
    env.str("PITCHPASS_EMAIL_BACKEND", "file"), env.str("PITCHPASS_EMAIL_BACKEND", "")
)
EMAIL_FILE_PATH = env.str("PITCHPASS_EMAIL_FILE_PATH", str(HOME / "mail"))
EMAIL_HOST = env.str("PITCHPASS_EMAIL_HOST", "localhost")
EMAIL_PORT = env.int("PITCHPASS_EMAIL_PORT", 25)
EMAIL_HOST_USER = env.str("PITCHPASS_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = env.str("PITCHPASS_EMAIL_PASSWORD", "")
EMAIL_USE_TLS = env.bool("PITCHPASS_EMAIL_TLS", False)
EMAIL_TIMEOUT = 20
DEFAULT_FROM_EMAIL = env.str("PITCHPASS_EMAIL_FROM", "pitchpass <desk@pitchpass.invalid>")
# The task queue (services/queue.py): Django's tasks API, its rows in this database, run
# by `pitchpass worker`. A failed task waits PITCHPASS_TASK_RETRY_DELAY seconds before its
# second attempt, four times longer before each next; a worker beats every
# PITCHPASS_WORKER_BEAT seconds, and one silent for three beats has its tasks taken back.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
PITCHPASS_TASK_RETRY_DELAY = env.float("PITCHPASS_TASK_RETRY_DELAY", 10.0)
PITCHPASS_WORKER_BEAT = env.float("PITCHPASS_WORKER_BEAT", 5.0)
# Notices (services/sending.py): links in e-mails start with PITCHPASS_BASE_URL; webhooks
# go to public addresses only unless PITCHPASS_WEBHOOK_PRIVATE=1 (a private network, tests).
PITCHPASS_BASE_URL = env.str("PITCHPASS_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
PITCHPASS_WEBHOOK_PRIVATE = env.bool("PITCHPASS_WEBHOOK_PRIVATE", False)
# A delivery's whole exchange (connect, send, the answer) within this many seconds; an
# endpoint that ran out of time is not tried again for PITCHPASS_WEBHOOK_PAUSE seconds
# (its notices wait for their next attempts), so a receiver that hangs holds the worker
# once, not once per notice.
PITCHPASS_WEBHOOK_TIMEOUT = env.float("PITCHPASS_WEBHOOK_TIMEOUT", 5.0)
PITCHPASS_WEBHOOK_PAUSE = env.float("PITCHPASS_WEBHOOK_PAUSE", 60.0)
DATABASES = {"default": database(env.str("DATABASE_URL", ""), HOME)}
CACHES = {"default": cache(env.str("PITCHPASS_CACHE_URL", ""))}
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_tasks",
    "django_tasks_db",  # the task queue's rows (TASKS below)
    "ninja",  # /api/docs from its own static files, not a CDN (no internet needed)
    "pitchpass.web.persistence.apps.PitchpassConfig",
    "pitchpass.web.http.apps.HttpConfig",
    "axes",  # sign-in lockout: AXES_* below
    "health_check",  # /health/ (http/operations.py): its page's template
    "django_prometheus",  # /metrics (http/operations.py)
]
# django-prometheus counts each request between its first and last middleware.
MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "pitchpass.web.logs.RequestId",  # each record while a request is answered names it
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "pitchpass.web.http.middleware.PageErrors",
    "pitchpass.web.http.middleware.PageWrites",
    "pitchpass.web.http.middleware.ReadOnce",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last of the app's, as django-axes asks
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]
# Sign-in lockout (django-axes): after 5 failures for one username (from anywhere), or
# from one address (whatever the usernames), signing in is refused for an hour, the right
# password too; a success clears the count. An admin unlocks at /admin/axes/ or with
# `pitchpass user unlock USERNAME`.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_COOLOFF_TIME = 1  # hour
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "pitchpass/locked_out.html"
AXES_VERBOSE = False
# The API's rates (http/throttles.py): every call and each change, per user; wrong tokens,
# per address. Counted in CACHES (above): shared by every process when it is the
# database or Redis.
PITCHPASS_API_RATE = env.str("PITCHPASS_API_RATE", "600/m")
PITCHPASS_API_WRITE_RATE = env.str("PITCHPASS_API_WRITE_RATE", "120/m")
PITCHPASS_API_BAD_TOKEN_RATE = env.str("PITCHPASS_API_BAD_TOKEN_RATE", "20/m")
# No page may be framed by another (a framed board's Decide and Publish would work for
# whoever frames it): X-Frame-Options and CSP frame-ancestors both say so.
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): scripts only from this site's files (no inline
# script or handler: the pages' behaviour is in static/pitchpass/desk.js), nothing framed
# by or framing another site, forms sent only here. Styles may be inline (the grid's bars
# are widths in style attributes).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# A request body the app takes: 1 MB (a request or an incident is a few hundred bytes).
DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000_000
# Passwords (`pitchpass user add --password`, the admin): Django's validators.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "pitchpass.web.passwords.VariedValidator"},  # ten spaces pass the others
]
CSRF_FAILURE_VIEW = "pitchpass.web.http.pages.csrf_failure"  # the app's own page, not Django's
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
ROOT_URLCONF = "pitchpass.web.http.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "pitchpass.web.http.pages.role_name",
            ]
        },
    }
]
USE_TZ = True
TIME_ZONE = "UTC"
STATIC_URL = "static/"
# Served by WhiteNoise straight from the installed packages: no collectstatic step.
WHITENOISE_USE_FINDERS = True
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "login"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Every record to stderr as one JSON object a line, with the request's id while one is
# answered (pitchpass.web.logs); one record a request answered (PITCHPASS_LOG_REQUESTS).
PITCHPASS_LOG_REQUESTS = env.bool("PITCHPASS_LOG_REQUESTS", True)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json"}},
    "formatters": {"json": {"()": "pitchpass.web.logs.formatter"}},
    "loggers": {
        "pitchpass.requests": {"level": "INFO"},
        "health_check": {"level": "ERROR"},  # a check that fails is in /health/'s answer
    },
    "root": {"handlers": ["stderr"], "level": "WARNING"},
}
