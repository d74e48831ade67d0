"""Match day after publishing: the record, the doors, releases, the waitlist and the
notices a change gives."""
