"""The pages' forms, as Django Forms: what each field must be (types, choices, sizes),
with errors said in the desk's words. A bound form keeps what was typed, so a refused
form is shown again as it was sent. The rules behind a request or an incident (room,
deadline, phases) are the services' and the core's, not the form's."""

from __future__ import annotations

from typing import Any

from django import forms

from pitchpass.core.codes import Status
from pitchpass.core.reading.fields import MAX_COUNT
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.limits import ID_LENGTH
from pitchpass.web.services.board import WHOLE


class DeskForm(forms.Form):
    """A form whose first error is a ServiceError, as the API's would be (same code, the
    field as its path)."""

    def checked(self) -> dict[str, Any]:
        if self.is_valid():
            return self.cleaned_data
        # Every problem, the first's path (as the services say a request's problems).
        found = [(field, _said(errors[0])) for field, errors in self.errors.as_data().items()]
        also = [m if m.startswith(f) else f"{f}: {m}" for f, m in found[1:]]  # named once
        first = found[0][0]
        message = "; also ".join([found[0][1], *also])
        raise ServiceError(ErrorCode.INVALID, message, "" if first == "__all__" else first)


def _said(error: forms.ValidationError) -> str:
    return SAID.get(error.code or "") or " ".join(error.messages)


# Django's own messages, said as the services say them (so the API and the pages agree).
SAID = {
    "null_characters_not_allowed": "text cannot hold a NUL character",
}


class WholeField(forms.CharField):
    """A whole number as typed: ASCII digits only (not "٣", "1_000", "3.0" or "+3"), from
    `low` up to the core's largest count."""

    def __init__(self, label: str, low: int, **kwargs: Any) -> None:
        super().__init__(max_length=20, **kwargs)
        self.name, self.low = label, low
        self.error_messages["required"] = f"{label} is needed"

    def clean(self, value: Any) -> int | None:
        text = super().clean(value)
        if not text:
            return None
        if not WHOLE.fullmatch(text):
            raise forms.ValidationError(f"{self.name} must be a whole number, not {text!r}")
        number = int(text)
        if not self.low <= number <= MAX_COUNT:
            raise forms.ValidationError(
                f"{self.name} must be at least {self.low}"
                if number < self.low
                else f"{self.name} must be at most {MAX_COUNT}"
            )
        return number


class RequestForm(DeskForm):
    """A request for a place: where, when, how many. `zones` and `phases` are the match's."""

    by = forms.CharField(required=False, max_length=ID_LENGTH, strip=True)
    zone = forms.ChoiceField(error_messages={"required": "choose a zone"})
    phases = forms.MultipleChoiceField(error_messages={"required": "tick at least one phase"})
    crew = WholeField("crew", 1)
    cameras = WholeField("cameras", 0, required=False)
    id = forms.CharField(required=False, max_length=ID_LENGTH, strip=True)

    def __init__(self, *args: Any, zones: list[str], phases: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        zone = self.fields["zone"]
        assert isinstance(zone, forms.ChoiceField)
        zone.choices = [(z, z) for z in zones]
        zone.error_messages["invalid_choice"] = "choose one of the venue's zones"
        ticked = self.fields["phases"]
        assert isinstance(ticked, forms.MultipleChoiceField)
        ticked.choices = [(p, p) for p in phases]
        ticked.error_messages["invalid_choice"] = "tick the match's phases only"

    def body(self) -> dict[str, Any]:
        """The API's request body (docs/contract.md's request, without match and submitted)."""
        data = self.checked()
        body: dict[str, Any] = {
            "zone": data["zone"],
            "phases": list(data["phases"]),
            "crew": data["crew"],
            "cameras": 0 if data["cameras"] is None else data["cameras"],  # left empty: none
        }
        for optional in ("id", "by"):
            if data[optional]:
                body[optional] = data[optional]
        return body


class IncidentForm(DeskForm):
    """What a steward saw: where, and the minute as the clock or the referee's board has
    it ("93", "87'", "45+2"); the services turn it into the clock with the match's phases."""

    zone = forms.ChoiceField(error_messages={"required": "choose the zone where it happened"})
    minute = forms.CharField(max_length=20, error_messages={"required": "the minute is needed"})
    what = forms.CharField(required=False)  # its length is the services' to bound

    def __init__(self, *args: Any, zones: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        zone = self.fields["zone"]
        assert isinstance(zone, forms.ChoiceField)
        zone.choices = [(z, z) for z in zones]
        zone.error_messages["invalid_choice"] = "choose one of the venue's zones"


class ReasonForm(DeskForm):
    """A revoke: its written reason (the service says when one is missing)."""

    reason = forms.CharField(required=False)  # the services bound it, for the API too


class OverrideForm(ReasonForm):
    """A decision by hand: grant or refuse, with its written reason."""

    status = forms.ChoiceField(
        choices=[(Status.GRANTED.value, "grant"), (Status.REFUSED.value, "refuse")],
        error_messages={
            "required": "choose grant or refuse",
            "invalid_choice": "choose grant or refuse",
        },
    )
