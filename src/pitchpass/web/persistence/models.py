"""Rows for everything a scenario holds (docs/contract.md), keyed by the scenario's own ids.

Each row keeps its scenario id in `key` and its place in the document in `position`, so
that a scenario exported from the database lists everything in the order it was loaded.
Lists of phase ids (a request's phases, a zone's closed phases) are JSON lists: they are
read and written whole, never queried one by one. Times are stored as instants (UTC) with
the UTC offset they were written with beside them (`*_offset`, minutes), so that a match
exported again reads as it was written.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

from pitchpass.core.reading.fields import unwritable
from pitchpass.web.limits import ID_LENGTH, NAME_LENGTH, RULE_LENGTH, TIER_LENGTH

KINDS = [(k, k) for k in ("broadcaster", "club", "producer", "agency", "other")]
OCCUPANTS = [("", "none"), ("home", "home"), ("away", "away")]
MODES = [("most-granted", "most-granted"), ("first-come", "first-come")]


def plain_id(value: str) -> None:
    """An id as the admin's forms take it: pages and the API put ids in their URLs."""
    if "/" in value or value != value.strip():
        raise ValidationError('an id has no "/" and no spaces around it')
    plain_name(value)


def plain_name(value: str) -> None:
    """A name or an id of one line, as a load takes it (core.fields.unwritable): no
    control character or line break (an e-mail's subject names an organisation) and no
    lone surrogate (no database can write it)."""
    wrong = unwritable(value)
    if wrong:
        raise ValidationError(wrong)


class Organisation(models.Model):
    key = models.CharField(max_length=ID_LENGTH, unique=True, validators=[plain_id])
    name = models.CharField(max_length=NAME_LENGTH, validators=[plain_name])
    kind = models.CharField(max_length=20, choices=KINDS)
    position = models.PositiveIntegerField(default=0)
    # The kinds of notice (core/match_day/notices.py) its users hear of, unless they
    # chose; null: all.
    notices = models.JSONField(null=True, blank=True, default=None)

    class Meta:
        ordering = ["position", "key"]

    def __str__(self) -> str:
        return self.name


class Competition(models.Model):
    """A competition with its broadcast partners, its policy and its plan of phases."""

    key = models.CharField(max_length=ID_LENGTH, unique=True, validators=[plain_id])
    name = models.CharField(max_length=NAME_LENGTH, validators=[plain_name])
    partners = models.ManyToManyField(Organisation, blank=True, related_name="partner_of")
    deadline = models.CharField(max_length=20, default="5d")  # Nm, Nh or Nd
    within_tier = models.CharField(max_length=20, choices=MODES, default="most-granted")
    # Match day (docs/scenario-extensions.md): minutes before a grant's first phase that an
    # absent crew is released, minutes a promoted crew has to accept, no-shows that refuse
    # an organisation's next request (0: never).
    release_before = models.PositiveIntegerField(default=5)
    accept_within = models.PositiveIntegerField(default=30)
    no_show_limit = models.PositiveIntegerField(default=2)
    # Releases (docs/scenario-extensions.md, "Releases"): none sooner than `release_grace`
    # minutes after the publish that granted the place, the crew warned `release_warning`
    # minutes before; the tiers named never released (None: those of the host rule).
    release_grace = models.PositiveIntegerField(default=60)
    release_warning = models.PositiveIntegerField(default=30)
    release_exempt = models.JSONField(null=True, blank=True, default=None)
    # The season rules as the loaded file wrote them (`policy.season`, validated by the core;
    # None: none). The desk decides each match under them (store.export gives the engine the
    # season: the other matches' published grants and open requests).
    season = models.JSONField(null=True, blank=True, default=None)

    def __str__(self) -> str:
        return self.name


class Hindsight(models.Model):
    """The price of deciding a competition match by match (core.hindsight), worked out by
    the worker: asked from the season page at one version of the competition's data
    (`wanted`: fixtures_store.season_version), `result` is `pitchpass season --hindsight
    --json`'s at the version `made`, or `failed` says why the last try failed."""

    competition = models.OneToOneField(
        Competition, on_delete=models.CASCADE, related_name="hindsight"
    )
    wanted = models.CharField(max_length=200, blank=True, default="")
    asked = models.DateTimeField(null=True, blank=True)
    made = models.CharField(max_length=200, blank=True, default="")
    done = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True, default=None)
    matches_done = models.PositiveIntegerField(default=0)  # progress, as it works
    matches = models.PositiveIntegerField(default=0)
    failed = models.TextField(blank=True, default="")


class Tier(models.Model):
    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="tiers")
    name = models.CharField(max_length=TIER_LENGTH, validators=[plain_name])
    rule = models.CharField(
        max_length=RULE_LENGTH
    )  # host | partner | club | any | org:<id> | kind:<kind>
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "name"], name="unique_tier_name")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.rule})"


class Phase(models.Model):
    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="phases")
    key = models.CharField(max_length=ID_LENGTH, validators=[plain_id])
    start = models.FloatField()  # minutes from kick-off, inclusive
    end = models.FloatField()  # exclusive
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "key"], name="unique_phase_key")
        ]

    def __str__(self) -> str:
        return self.key


class Venue(models.Model):
    key = models.CharField(max_length=ID_LENGTH, unique=True, validators=[plain_id])
    name = models.CharField(max_length=NAME_LENGTH, validators=[plain_name])
    position = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return self.name


class Zone(models.Model):
    venue = models.ForeignKey(Venue, on_delete=models.CASCADE, related_name="zones")
    key = models.CharField(max_length=ID_LENGTH, validators=[plain_id])
    name = models.CharField(max_length=NAME_LENGTH, validators=[plain_name])
    capacity = models.PositiveIntegerField(null=True, blank=True)  # the default, if any
    capacity_by_phase = models.JSONField(default=dict, blank=True)  # phase id -> places
    via = models.JSONField(default=list, blank=True)  # zone ids of the same venue, in order
    occupant = models.CharField(max_length=4, choices=OCCUPANTS, blank=True, default="")
    closed = models.JSONField(default=list, blank=True)  # phase ids
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["venue", "position"]
        constraints = [models.UniqueConstraint(fields=["venue", "key"], name="unique_zone_key")]

    def __str__(self) -> str:
        return f"{self.venue.key}: {self.key}"


class Camera(models.Model):
    """A fixed camera of the venue, present whatever is decided."""

    venue = models.ForeignKey(Venue, on_delete=models.CASCADE, related_name="cameras")
    key = models.CharField(max_length=ID_LENGTH, validators=[plain_id])
    name = models.CharField(max_length=NAME_LENGTH, blank=True, default="", validators=[plain_name])
    zone = models.ForeignKey(Zone, on_delete=models.CASCADE, related_name="cameras")
    operator = models.ForeignKey(
        Organisation, on_delete=models.PROTECT, null=True, blank=True, related_name="cameras"
    )
    phases = models.JSONField(null=True, blank=True)  # phase ids; null: always there
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["venue", "position"]
        constraints = [models.UniqueConstraint(fields=["venue", "key"], name="unique_camera_key")]

    def __str__(self) -> str:
        return self.key


class Match(models.Model):
    key = models.CharField(max_length=ID_LENGTH, unique=True, validators=[plain_id])
    competition = models.ForeignKey(Competition, on_delete=models.PROTECT, related_name="matches")
    venue = models.ForeignKey(Venue, on_delete=models.PROTECT, related_name="matches")
    home = models.ForeignKey(Organisation, on_delete=models.PROTECT, related_name="home_matches")
    away = models.ForeignKey(Organisation, on_delete=models.PROTECT, related_name="away_matches")
    kickoff = models.DateTimeField()
    kickoff_offset = models.IntegerField(default=0)
    # Bumped by every change that can alter a decision (requests, consent, published
    # grants); a decision run remembers it, and publishing a run made before is refused.
    version = models.PositiveIntegerField(default=0)
    # Bumped by every change to what a request or an incident is checked against (its
    # competition, policy, phases, venue, zones, organisations: a load, an admin's edit),
    # never by a request: the checked frame is kept by it (services/entries.py).
    frame = models.PositiveIntegerField(default=0)
    # The highest n of the incident ids "incident-n" this match has had (logged, loaded,
    # deleted since): an id made up for a new incident is never one used before.
    incident_serial = models.PositiveIntegerField(default=0)
    # The kinds of change made on the web (store.WEB_CHANGES) since the match was last
    # loaded from a file: a load refuses to overwrite them unless --replace.
    web_changes = models.JSONField(default=list, blank=True)
    # The moment the worker is next asked to tend the match (services/waitlist.py): a tend
    # queues the next one only when that moment moves, so the tasks do not multiply.
    tend_at = models.DateTimeField(null=True, blank=True, default=None)
    host = models.ForeignKey(
        Organisation, on_delete=models.PROTECT, null=True, blank=True, related_name="hosted"
    )
    # The keys of the broadcasters televising the match, as loaded (docs/section-k.md);
    # None: its host televises it.
    televised_by = models.JSONField(null=True, blank=True, default=None)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["kickoff", "position"]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return self.key


class Request(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="requests")
    key = models.CharField(max_length=ID_LENGTH, validators=[plain_id])
    by = models.ForeignKey(Organisation, on_delete=models.PROTECT, related_name="requests")
    zone = models.ForeignKey(Zone, on_delete=models.PROTECT, related_name="requests")
    phases = models.JSONField()  # phase ids, in the order written
    crew = models.PositiveIntegerField()
    cameras = models.PositiveIntegerField(default=1)
    submitted = models.DateTimeField()
    submitted_offset = models.IntegerField(default=0)
    consent = models.ManyToManyField(Organisation, blank=True, related_name="consented_to")
    locked = models.BooleanField(default=False)  # granted and published
    # Set when a published grant is taken back (the officer's reason): from then on the
    # request is out of every decision and export; it can still be withdrawn.
    revoked = models.TextField(blank=True, default="")
    position = models.PositiveIntegerField()
    # The match's version when the request was last sent or its consent changed: a run made
    # at an older version decided it as it was before, so it waits for the next decide.
    changed_in = models.PositiveIntegerField(default=0)
    # The occupant's officer refused (or took back) consent since the request was last
    # sent as it is: "refused" is not "not given yet".
    consent_refused = models.BooleanField(default=False)
    # What its organisation was last told of it when published ({"status", "reasons"}), so
    # that a refusal published again alike is not told twice (core/match_day/notices.py).
    told = models.JSONField(null=True, blank=True, default=None)
    # The first release of one of its phases because none of its crew had checked in
    # (every phase released: `revoked` too): counted once against its organisation (the
    # no-show bar).
    no_show = models.DateTimeField(null=True, blank=True, default=None)
    # When it became a published grant (a publish, an accepted offer): a grant made after
    # its release time keeps its place for the grace after it (core/match_day/release.py). None:
    # loaded so, or before.
    granted_at = models.DateTimeField(null=True, blank=True, default=None)
    # The phases of a published grant released as a no-show, one by one (core/match_day/release.py):
    # it keeps its other phases; all of them released, it is released whole (`no_show`).
    released = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["match", "position"]
        constraints = [models.UniqueConstraint(fields=["match", "key"], name="unique_request_key")]
        # A match's requests in order, and its last position (a submission's MAX): an
        # index, not a sort of every request.
        indexes = [models.Index(fields=["match", "position"], name="request_order")]

    def __str__(self) -> str:
        return f"{self.match.key}: {self.key}"


class Incident(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="incidents")
    key = models.CharField(max_length=ID_LENGTH, validators=[plain_id])
    zone = models.ForeignKey(Zone, on_delete=models.PROTECT, related_name="incidents")
    minute = models.FloatField(null=True, blank=True)  # exactly one of minute and at
    at = models.DateTimeField(null=True, blank=True)
    at_offset = models.IntegerField(default=0)
    what = models.TextField(blank=True, default="")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["match", "position"]
        constraints = [models.UniqueConstraint(fields=["match", "key"], name="unique_incident_key")]


ROLES = [
    ("admin", "league admin"),
    ("officer", "club media officer"),
    ("media", "broadcaster / producer"),
    ("steward", "steward / match official"),
]


class Profile(models.Model):
    """A user's role, and the organisation it acts for (an officer's club, a media user's
    broadcaster or producer)."""

    user = models.OneToOneField("auth.User", on_delete=models.CASCADE, related_name="profile")
    role = models.CharField(max_length=10, choices=ROLES)
    organisation = models.ForeignKey(
        Organisation, on_delete=models.PROTECT, null=True, blank=True, related_name="members"
    )
    # The kinds of notice this user hears of; null: as its organisation chose.
    notices = models.JSONField(null=True, blank=True, default=None)
    # When the user last opened their notices: newer ones are "new".
    notices_seen = models.DateTimeField(null=True, blank=True)
    # A steward's venues, assigned by a league admin: the doors of their matches are the
    # steward's to work (services/doors.py); none, no door.
    venues = models.ManyToManyField(Venue, blank=True, related_name="stewards")

    def __str__(self) -> str:
        return f"{self.user.username} ({self.role})"


class ApiToken(models.Model):
    """A bearer token for the API; only its SHA-256 digest is kept."""

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="api_tokens")
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField(null=True, blank=True)  # None: made before expiry was kept
    last_used = models.DateTimeField(null=True, blank=True)  # to the minute


class AppendOnly(Exception):
    """The audit is written once: its entries are never changed or removed."""


class AuditQuerySet(models.QuerySet["AuditEntry"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnly("audit entries are never changed")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnly("audit entries are never removed")


class AuditEntry(models.Model):
    """Every change: who, when, what, and the state before and after. Append-only (here,
    and by a trigger on PostgreSQL), each entry sealed with the digest of the one before
    in its chain (persistence/audit.py): `pitchpass audit verify` finds the first entry edited,
    removed or reordered. Its user and match are kept by id and name, even once deleted
    (no cascade ever touches the audit)."""

    # The chain it is sealed in (audit.chain_of): "match:<its match's row>", else "site".
    chain = models.CharField(max_length=40, default="site", db_index=True)
    when = models.DateTimeField()
    user = models.ForeignKey(
        "auth.User",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    # Who, by name, kept when the user is deleted: "(command line)" for `pitchpass load`
    # and the account commands, "" for an attempt by nobody known (a failed sign-in).
    username = models.CharField(max_length=150, blank=True, default="")
    action = models.CharField(max_length=40)
    match = models.ForeignKey(
        Match,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="audit",
    )
    target = models.CharField(max_length=200, blank=True, default="")
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    digest = models.CharField(max_length=64, blank=True, default="")  # sha256 hex

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["when", "pk"]
        verbose_name_plural = "audit entries"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise AppendOnly("audit entries are never changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnly("audit entries are never removed")


class AuditHead(models.Model):
    """The digest of the newest audit entry of a chain and how many it holds (a row per
    chain): taken with the lock by each new entry of the chain, so that its entries are
    chained one after another, and so that removing the newest ones is seen too."""

    chain = models.CharField(max_length=40, unique=True, default="site")
    digest = models.CharField(max_length=64, blank=True, default="")
    entries = models.PositiveBigIntegerField(default=0)


class DecisionRun(models.Model):
    """One run of `decide` for a match: its whole output, as `pitchpass decide --json` gives
    it for the match. The newest run is the current proposal; older ones are history."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="runs")
    number = models.PositiveIntegerField()  # 1, 2, ... per match
    version = models.PositiveIntegerField(default=0)  # the match's version it was made from
    output = models.JSONField()
    # Overrides in effect in this run: [{"request", "status", "reason"}], in the order made.
    overrides = models.JSONField(default=list, blank=True)
    # The requests held when the run was made, published or offered a place and not
    # answered yet (their grants are not this run's choice); None for runs made before
    # this was kept.
    locked = models.JSONField(null=True, blank=True, default=None)
    made = models.DateTimeField(auto_now_add=True)
    made_by = models.ForeignKey(
        "auth.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    published = models.DateTimeField(null=True, blank=True, default=None)  # its grants locked
    # Under season rules: what the competition's other matches held when it was made
    # (store.held_digest; "" without rules), and, for a matchweek, the matches decided
    # with it and the mark their runs share (services/matchweek.py).
    season_held = models.CharField(max_length=64, blank=True, default="")
    together = models.JSONField(default=list, blank=True)
    batch = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        ordering = ["match", "number"]
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="one_run_number")]


class Decision(models.Model):
    """One request's decision in one run, for querying and history."""

    run = models.ForeignKey(DecisionRun, on_delete=models.CASCADE, related_name="decisions")
    request = models.ForeignKey(Request, on_delete=models.CASCADE, related_name="decisions")
    status = models.CharField(max_length=10)
    tier = models.CharField(max_length=TIER_LENGTH)
    reasons = models.JSONField(default=list)

    class Meta:
        ordering = ["run", "request__position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "request"], name="one_decision_per_run")
        ]


class SentForm(models.Model):
    """A page form that made something (a request, an incident): sent again as it was (a
    double click, back and send again) it makes nothing more. Unique, so that two sent
    at the same moment make one: the second's transaction fails and rolls back."""

    once = models.CharField(max_length=40)  # the form's own random mark
    fingerprint = models.CharField(max_length=64)  # sha256 of what was typed
    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+")
    made = models.CharField(max_length=ID_LENGTH)  # the id of what it made
    when = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["once", "fingerprint"], name="one_form_once")
        ]


class RetriedAnswer(models.Model):
    """The answer to an API call sent with an Idempotency-Key: a retry with the same key
    and the same call gets it again instead of acting twice. `status` 0 while the first
    is still being answered."""

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=ID_LENGTH)
    fingerprint = models.CharField(max_length=64)  # sha256 of method, path and body
    status = models.PositiveSmallIntegerField(default=0)
    body = models.JSONField(null=True, blank=True)
    when = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_answer_per_key")]


class WorkerBeat(models.Model):
    """A running `pitchpass worker` (services/queue.py): it writes `seen` every few
    seconds. A task left running by a worker whose beat stopped (killed, its machine gone)
    is put back in the queue by the next worker that looks."""

    worker = models.CharField(max_length=64, unique=True)  # its id in the task rows
    host = models.CharField(max_length=200, blank=True, default="")
    pid = models.PositiveIntegerField(default=0)
    started = models.DateTimeField()
    seen = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.worker} ({self.host}, pid {self.pid})"


class Notice(models.Model):
    """One thing an organisation is told (core/match_day/notices.py), written in the transaction of
    the change it tells of. The notices of one change share a batch: its users get one
    e-mail per batch, its webhooks one message per notice. Only ever about the
    organisation's own requests (or, for an incident, where it holds a place)."""

    batch = models.CharField(max_length=32, db_index=True)
    kind = models.CharField(max_length=20)
    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="+")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="notices")
    request = models.CharField(max_length=ID_LENGTH, blank=True, default="")  # its id, if any
    when = models.DateTimeField()
    text = models.TextField()  # in words, as the e-mail and the page say it
    data = models.JSONField(default=dict)  # as webhooks send it

    class Meta:
        ordering = ["when", "id"]
        indexes = [models.Index(fields=["organisation", "when"], name="notice_by_org")]

    def __str__(self) -> str:
        return f"{self.kind} {self.request} ({self.organisation_id})"


class NoticeMail(models.Model):
    """A batch's e-mail sent to a user: sent once (the task run again skips it)."""

    batch = models.CharField(max_length=32)
    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+")
    address = models.CharField(max_length=254)
    notices = models.PositiveIntegerField()
    sent = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["batch", "user"], name="one_mail_a_batch")]


class WebhookEndpoint(models.Model):
    """Where an organisation wants its notices sent as signed HTTP POSTs (Standard
    Webhooks). `kinds` null: every kind."""

    organisation = models.ForeignKey(
        Organisation, on_delete=models.CASCADE, related_name="webhooks"
    )
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=100)  # "whsec_" + base64, as the spec writes it
    kinds = models.JSONField(null=True, blank=True, default=None)
    active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.organisation.key}: {self.url}"


class WebhookDelivery(models.Model):
    """One attempt to deliver a notice to an endpoint, and how it went."""

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    notice = models.ForeignKey(Notice, on_delete=models.CASCADE, related_name="deliveries")
    attempt = models.PositiveIntegerField()
    when = models.DateTimeField()
    ok = models.BooleanField(default=False)
    status = models.PositiveIntegerField(null=True, blank=True)  # the HTTP status, if any
    error = models.TextField(blank=True, default="")
    seconds = models.FloatField(default=0)

    class Meta:
        ordering = ["-when", "-id"]
        verbose_name_plural = "webhook deliveries"


class Pass(models.Model):
    """A published grant's pass for its crew. `code` is what a steward types (random, no
    personal data); the QR code carries it signed (services/doors.py)."""

    request = models.OneToOneField(Request, on_delete=models.CASCADE, related_name="pass_of")
    code = models.CharField(max_length=16, unique=True)
    made = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "passes"

    def __str__(self) -> str:
        return f"pass {self.code} ({self.request_id})"


class Scan(models.Model):
    """One scan at a zone door, admitted or refused: who, where, when, with what result.
    The admitted ones count the people in and out of each zone."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="scans")
    pass_of = models.ForeignKey(
        Pass, on_delete=models.SET_NULL, null=True, blank=True, related_name="scans"
    )
    request = models.CharField(max_length=ID_LENGTH, blank=True, default="")  # kept if withdrawn
    zone = models.CharField(max_length=ID_LENGTH)
    phase = models.CharField(max_length=ID_LENGTH)
    direction = models.CharField(max_length=3)  # in | out
    result = models.CharField(max_length=8)  # admitted | refused
    reason = models.CharField(max_length=20, blank=True, default="")
    text = models.TextField()
    by = models.ForeignKey(
        "auth.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    username = models.CharField(max_length=150, blank=True, default="")
    scanned = models.DateTimeField()  # at the door (its clock, if it was offline)
    received = models.DateTimeField()  # by the server
    key = models.CharField(max_length=64, blank=True, default="")  # the door's, once only
    # Who is inside the zone just after this scan, in the order of `scanned`
    # (core/match_day/doors.py counts them): of its crew, and in all. A scan reads the
    # newest ones, not the door's whole history; a scan sent later from an offline door
    # counts the later ones again.
    crew_inside = models.PositiveIntegerField(default=0)
    zone_inside = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["scanned", "id"]
        # The newest scan of a door, and of a crew at it, read at every scan: in the
        # order of (scanned, id) straight from the index, whatever the door's history.
        indexes = [
            models.Index(fields=["match", "zone", "scanned", "id"], name="scan_by_door"),
            models.Index(fields=["match", "zone", "request", "scanned", "id"], name="scan_by_crew"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "key"], condition=~models.Q(key=""), name="one_scan_a_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.zone} {self.direction} {self.result} ({self.request})"


class PassSheet(models.Model):
    """An organisation's passes for a match as a PDF (`scope`: the organisation's id, or
    "*" for every pass, the home officer's and admins'), made by a task. `wanted` is the
    fingerprint of the passes asked for, `made` that of the PDF kept: ready when equal."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="+")
    scope = models.CharField(max_length=100)
    wanted = models.CharField(max_length=64)
    made = models.CharField(max_length=64, blank=True, default="")
    pdf = models.BinaryField(blank=True, default=b"")
    asked = models.DateTimeField(null=True, blank=True)  # the task last queued
    when = models.DateTimeField(null=True, blank=True)  # the PDF made

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "scope"], name="one_sheet_a_scope")]


class Offer(models.Model):
    """A place offered from the waitlist (core/match_day/waitlist.py): open until `until`, then
    accepted (the request is a published grant), declined or lapsed (off the waitlist)."""

    OPEN, ACCEPTED, DECLINED, LAPSED = "open", "accepted", "declined", "lapsed"
    STATES = [(s, s) for s in (OPEN, ACCEPTED, DECLINED, LAPSED)]

    request = models.OneToOneField(Request, on_delete=models.CASCADE, related_name="offer")
    made = models.DateTimeField()
    until = models.DateTimeField()
    state = models.CharField(max_length=10, choices=STATES, default=OPEN)
    answered = models.DateTimeField(null=True, blank=True)
    by = models.ForeignKey(
        "auth.User", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The phases offered: those of the request still to come when the place was offered
    # (core.waitlist.promote); empty (an offer made before they were kept): every phase.
    phases = models.JSONField(default=list, blank=True)

    def __str__(self) -> str:
        return f"offer of {self.request_id}: {self.state}"


class CalendarFeed(models.Model):
    """The secret address of a calendar feed (`/feeds/<secret>.ics`, services/exports.py):
    an organisation's, which its media users share, or one user's own. Only the SHA-256
    digest of the secret is kept, as for API tokens: a copy of the database opens no feed.
    Made anew (rotated), the row takes the new digest and the old address answers 404."""

    organisation = models.OneToOneField(
        Organisation, on_delete=models.CASCADE, null=True, blank=True, related_name="feed"
    )
    user = models.OneToOneField(
        "auth.User", on_delete=models.CASCADE, null=True, blank=True, related_name="feed"
    )
    digest = models.CharField(max_length=64, unique=True)
    made = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(organisation__isnull=False, user__isnull=True)
                | models.Q(organisation__isnull=True, user__isnull=False),
                name="feed_of_one_owner",
            )
        ]

    def __str__(self) -> str:
        return f"feed of {self.organisation_id or self.user_id}"
