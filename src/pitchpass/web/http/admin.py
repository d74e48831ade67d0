"""Django admin for league admins: reference data (organisations, competitions with their
policy and phases, venues with zones and cameras, matches, users' roles) is edited here.

Requests, incidents, decisions and the audit log are shown but changed only through the
pages and the API, where every change takes the match lock and leaves an audit entry. An
edit here that can change a match's decisions (a capacity, a tier, a kick-off) counts as a
change of every match it touches: their version moves on, so that a proposal made before
it cannot be published, and each gets an audit entry. An edit that would leave one of
them a scenario the core rejects is refused (`admin_checks`), with what was typed kept.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, ClassVar
from weakref import WeakKeyDictionary

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from pitchpass.core.deciding.policy import closes_at, deadline_of
from pitchpass.core.match_day import notices as notice_kinds
from pitchpass.web.persistence import models as m
from pitchpass.web.services import accounts, admin_checks, sending
from pitchpass.web.services.accounts import ORG_KIND
from pitchpass.web.services.entries import requests_close


def matches_touched(obj: Model) -> QuerySet[m.Match]:
    """The matches whose decisions an edit of `obj` may change."""
    if isinstance(obj, m.Match):
        return m.Match.objects.filter(pk=obj.pk)
    if isinstance(obj, m.Competition):
        return m.Match.objects.filter(competition=obj)
    if isinstance(obj, m.Venue):
        return m.Match.objects.filter(venue=obj)
    if isinstance(obj, m.Zone | m.Camera):
        return m.Match.objects.filter(venue_id=obj.venue_id)
    if isinstance(obj, m.Incident):
        return m.Match.objects.filter(pk=obj.match_id)
    # An organisation: the matches that name it (sides, host, requests, partner, tier
    # rules, camera operator); a new one is in none yet.
    return m.Match.objects.filter(pk__in=admin_checks.touched(obj))


class ChangesAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Saving counts as a change of the matches touched (see the module's docstring), and
    is refused when it would leave one of them a scenario the core rejects."""

    def save_form(self, request: HttpRequest, form: Any, change: bool) -> Any:
        obj = super().save_form(request, form, change)  # not saved yet: the rows are as before
        was = type(obj).objects.get(pk=obj.pk) if change else None
        before = admin_checks.touched(was) | _matches_of(was) if was else set()
        # The match lock first, all at once in one order, before any row is written (as
        # every other change takes it): a decide, publish, submission or load never waits
        # in the other order. A zone moved from another venue: that venue's matches too.
        admin_checks.lock(before | admin_checks.touched(obj) | _matches_of(obj))
        if isinstance(obj, m.Organisation) and set(form.changed_data) <= DECIDES_NOTHING:
            _checked[request] = set()  # a name (the form wants one) changes no match's validity
            return obj
        _checked[request] = (admin_checks.touched(was) if was else set()) | admin_checks.touched(
            obj
        )
        return obj

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        pks = _checked.pop(request)
        if pks or not isinstance(form.instance, m.Organisation):
            pks |= admin_checks.touched(form.instance)
        admin_checks.after_edit(pks, _allowed.get(request, set()))
        changed = _really_changed(form)
        if change and not changed and not any(f.has_changed() for f in formsets):
            return
        before = {f: _plain(form.initial.get(f)) for f in changed}
        after = {f: _plain(form.cleaned_data.get(f)) for f in changed}
        named = isinstance(form.instance, m.Organisation) and set(changed) <= DECIDES_NOTHING
        _touch(request, form.instance, before, after, bump=not named)  # a name decides nothing

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        for attempt in range(3):  # the edit; the form again, or the edit allowing old problems
            try:
                return super().changeform_view(request, object_id, form_url, extra_context)
            except admin_checks.Recheck as recheck:  # the admin's transaction rolled back
                new = admin_checks.new_problems(recheck)
                if new or attempt > 0:  # the same form, failing with them: what was typed stays
                    _refused[request] = new or sorted(recheck.found.values())
                else:  # only problems there before: save again, allowing those
                    _allowed[request] = set(recheck.found)
        raise RuntimeError("unreachable: the third attempt shows the form")

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        problems = _refused.get(request)
        return form if problems is None else _refusing(form, problems)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        pk = obj.pk

        def delete() -> None:
            obj.pk = pk  # deleting sets it to None; a second try needs it back
            super(ChangesAdmin, self).delete_model(request, obj)

        self._delete(request, [obj], delete)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        rows = list(queryset)
        self._delete(
            request, rows, lambda: super(ChangesAdmin, self).delete_queryset(request, queryset)
        )

    def _delete(self, request: HttpRequest, rows: list[Any], delete: Callable[[], None]) -> None:
        pks = set().union(*(admin_checks.touched(obj) for obj in rows))

        def attempt(allowed: set[tuple[int, str, str]]) -> None:
            with transaction.atomic():
                admin_checks.lock(pks.union(*(_matches_of(obj) for obj in rows)))
                for obj in rows:
                    _touch(
                        request,
                        obj,
                        {"deleted": str(obj)},
                        None,
                        bump=not isinstance(obj, m.Incident),
                    )
                delete()
                admin_checks.after_edit(pks, allowed)

        try:
            attempt(set())
        except admin_checks.Recheck as recheck:  # rolled back
            new = admin_checks.new_problems(recheck)
            if new:
                raise admin_checks.EditRefused(new) from None
            attempt(set(recheck.found))

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        try:
            return super().delete_view(request, object_id, extra_context)
        except admin_checks.EditRefused as refused:
            return self._not_deleted(request, refused)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        try:
            if request.method != "POST":
                return super().changelist_view(request, extra_context)
            with transaction.atomic():  # a bulk delete logs before it deletes: both or neither
                return super().changelist_view(request, extra_context)
        except admin_checks.EditRefused as refused:
            return self._not_deleted(request, refused)

    def _not_deleted(self, request: HttpRequest, refused: admin_checks.EditRefused) -> HttpResponse:
        said = NOT_DONE.replace("Not saved", "Not deleted")
        self.message_user(request, f"{said} {'; '.join(refused.problems)}", messages.ERROR)
        return HttpResponseRedirect(request.get_full_path())


NOT_DONE = "Not saved: a match would no longer be a valid scenario:"
# What one admin request carries from one step of the admin's view to the next.
_checked: WeakKeyDictionary[HttpRequest, set[int]] = WeakKeyDictionary()
_allowed: WeakKeyDictionary[HttpRequest, set[tuple[int, str, str]]] = WeakKeyDictionary()
_refused: WeakKeyDictionary[HttpRequest, list[str]] = WeakKeyDictionary()


def _refusing(form: Any, problems: list[str]) -> Any:
    """`form`, failing with the problems an earlier try of the same data met."""

    class Refusing(form):  # type: ignore[misc]
        def clean(self) -> Any:
            super().clean()
            raise forms.ValidationError([NOT_DONE, *problems])

    return Refusing


def _matches_of(obj: Model) -> set[int]:
    return set(matches_touched(obj).values_list("pk", flat=True))


def _touch(request: HttpRequest, obj: Model, before: Any, after: Any, bump: bool = True) -> None:
    """Move on the version of every match `obj` touches (unless the edit cannot change a
    decision: not `bump`), with an audit entry for each."""
    touched = matches_touched(obj)
    if bump:  # (every match's frame moved on when the edit took its locks)
        touched.update(version=F("version") + 1)
    target = f"{obj._meta.model_name} {getattr(obj, 'key', obj.pk)}"
    user = request.user if isinstance(request.user, User) else None
    admin_checks.record_edit(user, list(touched), target, before, after)


def _really_changed(form: Any) -> list[str]:
    """The fields whose value changed (a JSON field typed as before is not a change)."""
    return [
        f
        for f in form.changed_data
        if _plain(form.initial.get(f)) != _plain(form.cleaned_data.get(f))
    ]


def _plain(value: Any) -> Any:
    """A field's value as the audit log keeps it (JSON): rows by their primary key."""
    if isinstance(value, Model):
        return value.pk
    if isinstance(value, QuerySet) or (
        isinstance(value, list | tuple) and value and all(isinstance(v, Model) for v in value)
    ):
        return sorted(row.pk for row in value)  # a many-to-many field's rows
    if isinstance(value, list | dict | int | float | bool | str) or value is None:
        return value
    return str(value)


# An organisation's fields that no decision reads: edited, they move no match's version.
DECIDES_NOTHING = {"name", "notices"}


class ReadOnly(admin.ModelAdmin):  # type: ignore[type-arg]
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _texts(value: Any, field: str, like: str = '["tunnel"]') -> list[str]:
    """A list of ids typed as JSON (`like` one), or a form error saying what it should be."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise forms.ValidationError(f"{field} is a list of ids, like {like}")
    return value


class ZoneForm(forms.ModelForm):  # type: ignore[type-arg]
    """The JSON fields in the shapes a scenario has; the core then checks what they say."""

    class Meta:
        model = m.Zone
        fields = "__all__"
        help_texts: ClassVar[dict[str, str]] = {
            "capacity": "Places (people) at once, in every phase not listed below.",
            "capacity_by_phase": 'Places in some phases, as JSON: {"post-match": 46}; {} for none.',
            "via": 'Zones a crew passes through to get here, as JSON: ["tunnel"]; [] for none.',
            "closed": 'Phases no crew may be here, as JSON: ["first-half"]; [] for none.',
        }

    def clean_capacity_by_phase(self) -> Any:
        value = self.cleaned_data.get("capacity_by_phase")
        if not isinstance(value, dict):
            raise forms.ValidationError('places per phase, like {"post-match": 46}, or {}')
        return value

    def clean_via(self) -> Any:
        return _texts(self.cleaned_data.get("via"), "via")

    def clean(self) -> Any:
        cleaned = super().clean() or self.cleaned_data
        if cleaned.get("capacity") is None and cleaned.get("capacity_by_phase") == {}:
            raise forms.ValidationError(
                "Give the capacity (places at once; 0 lets no one in), places per phase,"
                " or both (the capacity then counts for the phases not listed)."
            )
        return cleaned

    def clean_closed(self) -> Any:
        return _texts(self.cleaned_data.get("closed"), "closed")


class CameraForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = m.Camera
        fields = "__all__"

    def clean_phases(self) -> Any:
        value = self.cleaned_data.get("phases")
        return None if value is None else _texts(value, "phases (or null: always there)")


class TierInline(admin.TabularInline):  # type: ignore[type-arg]
    model = m.Tier
    extra = 0


class PhaseInline(admin.TabularInline):  # type: ignore[type-arg]
    model = m.Phase
    extra = 0


class ZoneInline(admin.TabularInline):  # type: ignore[type-arg]
    model = m.Zone
    form = ZoneForm
    extra = 0


class CameraInline(admin.TabularInline):  # type: ignore[type-arg]
    model = m.Camera
    form = CameraForm
    extra = 0


def _kinds(value: Any) -> Any:
    """A list of kinds of notice typed as JSON; empty: every kind (None)."""
    if value in (None, "", []):
        return None
    unknown = set(_texts(value, "kinds", '["granted", "refused"]')) - set(notice_kinds.KINDS)
    if unknown:
        raise forms.ValidationError(
            f"unknown kinds: {', '.join(sorted(unknown))} (known: {', '.join(notice_kinds.KINDS)})"
        )
    return value


class KindsField(forms.JSONField):
    """A list typed as JSON where empty means every kind: shown empty, not `null`."""

    def prepare_value(self, value: Any) -> Any:
        return "" if value is None else super().prepare_value(value)


class OrganisationForm(forms.ModelForm):  # type: ignore[type-arg]
    notices = KindsField(
        required=False,
        help_text="The kinds of notice its users hear of unless they chose, like "
        f'["granted", "refused"]; empty: all ({", ".join(notice_kinds.KINDS)}).',
    )

    class Meta:
        model = m.Organisation
        fields = "__all__"

    def clean_notices(self) -> Any:
        return _kinds(self.cleaned_data.get("notices"))


@admin.register(m.Organisation)
class OrganisationAdmin(ChangesAdmin):
    form = OrganisationForm
    list_display = ("key", "name", "kind")
    list_filter = ("kind",)
    search_fields = ("key", "name")


@admin.register(m.Competition)
class CompetitionAdmin(ChangesAdmin):
    list_display = ("key", "name", "deadline", "within_tier")
    filter_horizontal = ("partners",)
    inlines = (TierInline, PhaseInline)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if "deadline" in form.changed_data:  # saved: say which matches it has just closed
            now = timezone.now()
            old = str(form.initial.get("deadline") or "")
            was = deadline_of(old) or dt.timedelta(0)
            for match in m.Match.objects.filter(competition=form.instance, kickoff__gt=now):
                closes = requests_close(match)
                was_open = closes_at(match.kickoff, was)  # the old deadline's
                if closes is not None and closes < now <= was_open:
                    when = closes.isoformat(sep=" ", timespec="minutes")
                    self.message_user(
                        request,
                        f"Requests for {match.key} are now closed: the deadline fell at {when}.",
                        messages.WARNING,
                    )


@admin.register(m.Venue)
class VenueAdmin(ChangesAdmin):
    list_display = ("key", "name")
    inlines = (ZoneInline, CameraInline)


@admin.register(m.Zone)
class ZoneAdmin(ChangesAdmin):
    form = ZoneForm
    list_display = ("key", "venue", "capacity", "occupant")
    list_filter = ("venue",)


class MatchForm(forms.ModelForm):  # type: ignore[type-arg]
    """The home and away sides are clubs (their officers run the match); the offset is
    only how the kick-off is written back in exports, within a day of UTC."""

    class Meta:
        model = m.Match
        fields = "__all__"
        help_texts: ClassVar[dict[str, str]] = {
            "kickoff": "In UTC (the admin's clock shows it so).",
            "kickoff_offset": "Minutes east of UTC the kick-off is written in when exported"
            " (60 for +01:00); the decisions use the UTC time above.",
            "home": "A club: its officer decides and publishes the match.",
            "away": "A club: its officer consents for its dressing room.",
            "televised_by": 'The broadcasters televising the match, by id: ["bt-sport"];'
            " null: its host (docs/section-k.md). A minimum owed to the televising"
            " broadcaster is owed to these.",
        }

    def clean_kickoff_offset(self) -> Any:
        value = self.cleaned_data.get("kickoff_offset")
        if value is not None and not -1440 < value < 1440:
            raise forms.ValidationError("minutes east of UTC, between -1439 and 1439")
        return value

    def clean(self) -> Any:
        cleaned = super().clean() or self.cleaned_data
        kickoff, offset = cleaned.get("kickoff"), cleaned.get("kickoff_offset")
        if kickoff is not None and offset is not None:
            try:
                kickoff.astimezone(dt.timezone(dt.timedelta(minutes=offset)))
            except OverflowError:
                self.add_error("kickoff", "too near the end of the calendar for that offset")
        for side in ("home", "away"):
            club = cleaned.get(side)
            if club is not None and club.kind != "club":
                self.add_error(side, f"{club.name} is a {club.kind}, not a club")
        return cleaned


@admin.register(m.Match)
class MatchAdmin(ChangesAdmin):
    form = MatchForm
    list_display = ("key", "competition", "venue", "home", "away", "kickoff", "host")
    list_filter = ("competition", "venue")
    readonly_fields = ("version", "frame", "incident_serial", "web_changes")


class ProfileForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = m.Profile
        fields = ("user", "role", "organisation", "venues")

    def clean(self) -> dict[str, Any]:
        """The same rules as `pitchpass user add`: an officer acts for a club, a media user
        for a broadcaster, producer or agency, the others for nobody in particular; only a
        steward is assigned venues (the doors of their matches)."""
        data = super().clean() or {}
        role, organisation = data.get("role"), data.get("organisation")
        kinds = ORG_KIND.get(role or "")
        if kinds and (organisation is None or organisation.kind not in kinds):
            raise forms.ValidationError(f"a {role} user acts for a {' or '.join(kinds)}")
        if data.get("venues") and role != "steward":
            raise forms.ValidationError("only stewards are assigned venues")
        return data


@admin.register(m.Profile)
class ProfileAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Roles are given here too; the admin role alone opens this admin site."""

    form = ProfileForm
    list_display = ("user", "role", "organisation")
    list_filter = ("role",)
    filter_horizontal = ("venues",)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        before = accounts.role_of(obj.pk)
        super().save_model(request, obj, form, change)
        user = obj.user
        user.is_staff = user.is_superuser = obj.role == "admin"
        user.save(update_fields=["is_staff", "is_superuser"])
        accounts.record_role(request.user, obj, before)  # type: ignore[arg-type]


@admin.register(m.ApiToken)
class ApiTokenAdmin(ReadOnly):
    """Tokens are listed and revoked (deleted) here; `pitchpass token create` makes them."""

    list_display = ("user", "created")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return True


@admin.register(m.CalendarFeed)
class CalendarFeedAdmin(ReadOnly):
    """Calendar feeds are listed (never their secrets: only digests are kept) and closed
    (deleted) here; their users make them on /calendar/."""

    list_display = ("organisation", "user", "made")
    exclude = ("digest",)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return True


@admin.register(m.Request)
class RequestAdmin(ReadOnly):
    list_display = ("key", "match", "by", "zone", "crew", "submitted", "locked")
    list_filter = ("match", "locked")
    search_fields = ("key", "by__name")


@admin.register(m.Incident)
class IncidentAdmin(ChangesAdmin):
    """Incidents are logged on the board or through the API; one logged by mistake (twice,
    or with a wrong minute) is deleted here, audited as any admin edit."""

    list_display = ("key", "match", "zone", "minute", "at", "what")
    list_filter = ("match",)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(m.DecisionRun)
class DecisionRunAdmin(ReadOnly):
    list_display = ("match", "number", "version", "made", "made_by")
    list_filter = ("match",)


@admin.register(m.AuditEntry)
class AuditEntryAdmin(ReadOnly):
    list_display = ("when", "username", "action", "match", "target")
    list_filter = ("action", "match")


@admin.register(m.WorkerBeat)
class WorkerBeatAdmin(ReadOnly):
    """The task workers that beat lately (`pitchpass worker`); the tasks themselves, with
    every failed attempt and its traceback, are under Task results."""

    list_display = ("worker", "host", "pid", "started", "seen")


@admin.register(m.Notice)
class NoticeAdmin(ReadOnly):
    """What each change told whom (services/notices.py); sent by the worker."""

    list_display = ("when", "kind", "organisation", "match", "request", "text")
    list_filter = ("kind", "organisation")
    search_fields = ("request", "text", "batch")


@admin.register(m.NoticeMail)
class NoticeMailAdmin(ReadOnly):
    list_display = ("sent", "user", "address", "notices", "batch")


class WebhookForm(forms.ModelForm):  # type: ignore[type-arg]
    kinds = KindsField(
        required=False,
        help_text='A list of kinds of notice, like ["granted", "refused"]; empty: all '
        f"({', '.join(notice_kinds.KINDS)}).",
    )

    class Meta:
        model = m.WebhookEndpoint
        fields = ("organisation", "url", "kinds", "active")

    def clean_url(self) -> str:
        url = str(self.cleaned_data["url"])
        problem = sending.check_url(url)
        if problem:
            raise forms.ValidationError(problem)
        return url

    def clean_kinds(self) -> Any:
        return _kinds(self.cleaned_data.get("kinds"))


@admin.register(m.WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """An organisation's webhook: its secret is made here (give it to the receiver, which
    checks each message's signature with it); how many deliveries it has had, its last,
    and a link to them all."""

    form = WebhookForm
    list_display = ("organisation", "url", "active", "created")
    readonly_fields = ("secret", "created", "deliveries")

    @admin.display(description="deliveries")
    def deliveries(self, obj: m.WebhookEndpoint) -> str:
        if obj.pk is None:
            return "none yet"
        count = obj.deliveries.count()
        last = obj.deliveries.order_by("-when", "-id").first()
        went = ""
        if last is not None:
            how = "delivered" if last.ok else f"failed: {last.error or last.status}"
            went = f"; the last {last.when:%Y-%m-%d %H:%M:%S} UTC, {how}"
        listed = reverse("admin:pitchpass_webhookdelivery_changelist")
        return format_html(
            '{} deliver{}{} (<a href="{}?endpoint__id__exact={}">see them</a>)',
            count, "y" if count == 1 else "ies", went, listed, obj.pk,
        )  # fmt: skip

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not obj.secret:
            obj.secret = sending.new_secret()
        super().save_model(request, obj, form, change)


@admin.register(m.WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnly):
    """Every attempt to deliver a notice to a webhook, newest first."""

    list_display = ("when", "endpoint", "notice", "attempt", "ok", "status", "error")
    list_filter = ("ok", "endpoint")


@admin.register(m.Pass)
class PassAdmin(ReadOnly):
    """Each published grant's pass (made by services/doors.py, never edited)."""

    list_display = ("code", "request", "made")
    search_fields = ("code", "request__key")


@admin.register(m.Offer)
class OfferAdmin(ReadOnly):
    """Places offered from the waitlist (services/waitlist.py) and how each was answered."""

    list_display = ("request", "state", "made", "until", "answered", "by")
    list_filter = ("state",)
    search_fields = ("request__key",)


@admin.register(m.Scan)
class ScanAdmin(ReadOnly):
    """Every scan at a zone door: who, where, when, with what result."""

    list_display = (
        "scanned",
        "match",
        "zone",
        "phase",
        "direction",
        "result",
        "reason",
        "request",
        "username",
    )
    list_filter = ("result", "reason", "zone", "direction")
    search_fields = ("request", "username", "text")
