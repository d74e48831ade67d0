"""The web adapter: Django models that persist scenarios, and (later) the API and pages.

Decisions are never made here: `store.py` maps rows to a scenario document and back, and
the core decides.
"""
