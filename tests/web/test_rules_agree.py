"""One home for every rule: what the desk shows around a decision (the request form's room
hint, the access list) agrees with the core's decision of every request of the example
scenarios, as loaded into the database and read back through the web layer."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from django.http import QueryDict
from hypothesis import given, settings

from pitchpass.core import decide_match
from pitchpass.core.codes import ReasonCode
from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import decisions
from profiles import examples

pytestmark = pytest.mark.django_db

try:  # the core's strategy of generated scenarios
    from core.test_properties import scenarios
except ImportError:
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "core"))
    from test_properties import scenarios  # type: ignore[no-redef]
SCENARIOS = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))


def _form(zone: str, phases: list[str], crew: int) -> QueryDict:
    form = QueryDict(mutable=True)
    form.update({"zone": zone, "crew": str(crew)})
    form.setlist("phases", phases)
    return form


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_the_hint_says_closed_exactly_where_the_core_refuses_closed(path: Path) -> None:
    """For every request, as if it were being asked for again (it left out): the cells
    the hint calls closed are the cells of the core's `closed` reasons."""
    store.load(parse_text(path.read_text(), path.name))
    for key in store.match_keys():
        match = m.Match.objects.get(key=key)
        scenario = store.read_scenario(key)
        for decision in decide_match(scenario, key).decisions:
            request = decision.request
            closed_by_core = {
                (r.zone, r.phase) for r in decision.reasons if r.code is ReasonCode.CLOSED
            }
            if request.locked:
                continue  # a published grant is granted whatever; the form never asks it
            cells = decisions.room(
                match, request.zone, list(request.phases), request.crew, request.id
            )
            assert {(c.zone, c.phase) for c in cells if c.closed} == closed_by_core, request.id


def test_a_dressing_room_behind_a_closed_tunnel_is_hinted_closed() -> None:
    """The bug this replaced: the hint read only the room's own `closed`, and showed places
    left in the away dressing room at half-time while the tunnel was closed then."""
    from pitchpass.web.http.pages import room_hint

    path = SCENARIOS[[p.stem for p in SCENARIOS].index("manchester-derby-2017")]
    store.load(parse_text(path.read_text(), path.name))
    match = m.Match.objects.get(key="mun-mci-2017-12-10")
    tunnel = match.venue.zones.get(key="tunnel")
    tunnel.closed = ["half-time"]
    tunnel.save()
    admin = _admin()
    hint = room_hint(admin, match.key, _form("away-dressing-room", ["half-time", "post-match"], 2))
    assert (
        "tunnel (on the way to away-dressing-room), half-time: closed (a request for it is refused)"
        in hint.lines
    )
    assert not any(line.startswith("away-dressing-room, half-time") for line in hint.lines)
    assert "away-dressing-room, post-match: 4 of 4 places left" in hint.lines


def _admin():  # type: ignore[no-untyped-def]
    from pitchpass.web.services.accounts import do_add_user

    do_add_user("root", "admin", None, "pw-for-tests-only-7")
    from django.contrib.auth.models import User

    return User.objects.get(username="root")


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_once_all_is_published_the_access_list_holds_the_grids_crews(path: Path) -> None:
    """Every grant of the core's decision published: the access list's crews in each zone
    and phase (passing through included) add up to the places the grid shows used."""
    from django.contrib.auth.models import User

    from pitchpass.web.services import board

    store.load(parse_text(path.read_text(), path.name))
    _admin()
    admin = User.objects.get(username="root")
    for key in store.match_keys():
        match = m.Match.objects.get(key=key)
        output = decisions.do_decide(admin, key)
        decisions.do_publish(admin, key)
        zones = [z.key for z in match.venue.zones.all()]
        phases = [u["phase"] for u in output["usage"] if u["zone"] == zones[0]]
        listed = board.access_list(decisions.published_places(match), zones, phases)
        crews = {
            (entry["zone"], phase): sum(int(c.split("(")[-1].split(",")[0].rstrip(")")) for c in cs)
            for entry in listed
            for phase, cs in entry["phases"]
        }
        used = {(u["zone"], u["phase"]): u["used"] for u in output["usage"] if u["used"]}
        assert crews == used


def _clear() -> None:
    """An empty database for the next generated scenario (ids repeat across them). The
    audit stays: it is append-only, and its entries name the old matches by their ids."""
    m.Match.objects.all().delete()  # its requests, incidents and runs with it
    m.Venue.objects.all().delete()
    m.Competition.objects.all().delete()
    m.Organisation.objects.all().delete()


@settings(max_examples=examples(25))
@given(doc=scenarios())
def test_generated_scenarios_agree_through_the_web_layer(doc: dict[str, Any]) -> None:
    """Generated scenarios (the core's Hypothesis strategy) stored and read back: the
    decision the desk makes (do_decide) is the core's of the file; the hint's closed cells
    are the core's `closed` reasons; once published, the access list holds the grid."""
    from django.contrib.auth.models import User

    from pitchpass.core import decide_document
    from pitchpass.web.services import board

    _clear()
    for request in doc["requests"]:  # the desk works the no-show bar out from its own
        request.pop("no_shows", None)  # no-shows (none here): a load does not keep it
    store.load(copy.deepcopy(doc))
    if not User.objects.filter(username="root").exists():
        _admin()
    admin = User.objects.get(username="root")
    expected = {r["match"]: r for r in decide_document(copy.deepcopy(doc))["matches"]}
    for key in store.match_keys():
        match = m.Match.objects.get(key=key)
        output = decisions.do_decide(admin, key)
        assert output == expected[key]
        scenario = store.read_scenario(key)
        for decision in decide_match(scenario, key).decisions:
            request = decision.request
            if request.locked:
                continue
            core = {(r.zone, r.phase) for r in decision.reasons if r.code is ReasonCode.CLOSED}
            cells = decisions.room(
                match, request.zone, list(request.phases), request.crew, request.id
            )
            assert {(c.zone, c.phase) for c in cells if c.closed} == core, request.id
        decisions.do_publish(admin, key)
        zones = [z.key for z in match.venue.zones.all()]
        phases = list(dict.fromkeys(u["phase"] for u in output["usage"]))
        listed = board.access_list(decisions.published_places(match), zones, phases)
        crews = {(e["zone"], p): len(cs) > 0 for e in listed for p, cs in e["phases"]}
        used = {(u["zone"], u["phase"]): True for u in output["usage"] if u["used"]}
        assert crews == used
