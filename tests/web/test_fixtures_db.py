"""A fixture list into the database (issue 12, section 1): the stored competition gets
the new matches, a moved match is moved under its lock, its runs stale, audited, and the
report says so; nothing stored without `write`."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from pitchpass.core.reading.fixture_files import read_csv
from pitchpass.core.reading.problems import ScenarioInvalid
from pitchpass.web.errors import ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.fixtures_store import import_into_database
from pitchpass.web.services import decisions

pytestmark = pytest.mark.django_db
SEED = "mun-mci-2017-12-10"
LIST = """\
kickoff,home,away,venue
2017-12-08T20:00:00+00:00,Manchester United,Manchester City,
2018-04-07T17:30:00+01:00,man-city,man-united,Old Trafford
"""


def _competition() -> str:
    return m.Match.objects.get(key=SEED).competition.key


def test_a_fixture_list_moves_and_adds_matches_in_the_database(desk) -> None:
    rows, problems = read_csv(LIST)
    assert problems == []
    version = m.Match.objects.get(key=SEED).version
    dry, _ = import_into_database(_competition(), rows, skip=False, write=False)
    assert dry.added == ("man-city-man-united-2018-04-07",) and m.Match.objects.count() == 1
    done, stale = import_into_database(_competition(), rows, skip=False, write=True)
    moved = m.Match.objects.get(key=SEED)
    assert moved.kickoff.isoformat() == "2017-12-08T20:00:00+00:00" and moved.version > version
    assert [x.match for x in done.moved] == [SEED] and done.moved[0].now_late
    assert "stale: decide again" in stale[SEED] and "published grants stay" in stale[SEED]
    added = m.Match.objects.get(key="man-city-man-united-2018-04-07")
    where = (added.venue.key, added.home.key, added.kickoff_offset)
    assert where == ("old-trafford", "man-city", 60)
    entries = m.AuditEntry.objects.filter(action="fixtures").order_by("pk")
    assert [e.target for e in entries] == ["man-city-man-united-2018-04-07", SEED]
    assert entries[1].before["kickoff"] == "2017-12-10T16:30:00+00:00"
    with pytest.raises(ServiceError) as stale_run:  # the run was made before the move
        decisions.do_publish(User.objects.get(username="officer"), SEED)
    assert stale_run.value.code == "stale-run"
    again, _ = import_into_database(_competition(), rows, skip=False, write=True)
    assert again.added == () and again.moved == ()
    assert set(again.unchanged) == {SEED, "man-city-man-united-2018-04-07"}


def test_an_unknown_competition_or_club_writes_nothing(desk) -> None:
    rows, _ = read_csv(LIST.replace("Manchester City,", "Man City,", 1))
    with pytest.raises(ScenarioInvalid) as unknown:
        import_into_database("premier-leage", rows, skip=False, write=True)
    assert "did you mean" in unknown.value.problems[0].message
    with pytest.raises(ScenarioInvalid) as club:
        import_into_database(_competition(), rows, skip=False, write=True)
    assert [p.path for p in club.value.problems] == ["row 2.away"]
    assert m.Match.objects.count() == 1
    assert m.Match.objects.get(key=SEED).kickoff.isoformat() == "2017-12-10T16:30:00+00:00"


def test_a_load_of_the_old_file_does_not_undo_a_move_silently(desk) -> None:
    from pathlib import Path

    from pitchpass.core.reading.parse import parse_text
    from pitchpass.web.persistence import store

    seed = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"
    rows, _ = read_csv(LIST)
    import_into_database(_competition(), rows, skip=False, write=True)
    with pytest.raises(store.LoadRefused) as refused:
        store.load(parse_text(seed.read_text(), seed.name))
    assert "fixtures" in str(refused.value)
    assert m.Match.objects.get(key=SEED).kickoff.isoformat() == "2017-12-08T20:00:00+00:00"


def test_a_fixture_list_tells_the_broadcasters_televising_a_match_and_audits_it(desk) -> None:
    """A row for a stored match at its own kick-off and venue that names other televising
    broadcasters changes them (the match's version moves on: its runs are stale) and the
    audit says before and after; a new match is stored with them."""
    rows, _ = read_csv(
        "kickoff,home,away,venue,televised_by\n"
        "2017-12-10T16:30:00+00:00,man-united,man-city,,BT Sport\n"
        "2018-04-07T17:30:00+01:00,man-city,man-united,Old Trafford,sky-sports;bt-sport\n"
    )
    version = m.Match.objects.get(key=SEED).version
    done, stale = import_into_database(_competition(), rows, skip=False, write=True)
    assert [x.match for x in done.retold] == [SEED] and done.moved == ()
    derby = m.Match.objects.get(key=SEED)
    assert derby.televised_by == ["bt-sport"] and derby.version > version
    assert "stale: decide again" in stale[SEED]
    added = m.Match.objects.get(key="man-city-man-united-2018-04-07")
    assert added.televised_by == ["sky-sports", "bt-sport"]
    entry = m.AuditEntry.objects.get(action="fixtures", target=SEED)
    assert (entry.before["televised_by"], entry.after["televised_by"]) == (None, ["bt-sport"])
