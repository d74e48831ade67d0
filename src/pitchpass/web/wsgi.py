"""The app as a WSGI application, for a server of one's own choosing:
`gunicorn pitchpass.web.wsgi` (`pitchpass serve` runs the same under gunicorn). The
database must be prepared first: `pitchpass serve` does it, or
`pitchpass migrate`."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pitchpass.web.settings")
application = get_wsgi_application()
