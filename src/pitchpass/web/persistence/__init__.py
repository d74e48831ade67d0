"""Persistence: the Django app that stores matches (models, migrations), loads and exports
scenarios (store), and what every change goes through (changes: the match row locked,
its version moved on, an audit entry). Nothing here decides or authorises."""
