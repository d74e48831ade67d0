"""Settings of `benchmarks/web.py`'s server: pitchpass's own, with two bare endpoints
added in front of its URLs (web_urls.py), so that both are served by one server, one
middleware stack and one database."""

from pitchpass.web.settings import *  # noqa: F403

ROOT_URLCONF = "web_urls"
