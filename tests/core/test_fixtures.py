"""A fixture list in (issue 12, section 1): CSV and ICS read into rows, clubs and venues
matched by id or name, bad rows named with the nearest name, nothing added when a row is
wrong unless asked to skip it, and a changed list moving matches, never silently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pitchpass.core import decide_document
from pitchpass.core.reading.fixture_files import MAX_ROWS, read_csv, read_ics
from pitchpass.core.reading.fixtures import Retold, import_fixtures
from pitchpass.core.reading.problems import ScenarioInvalid

SEED = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"


def _seed() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(SEED.read_text())
    return document


CSV = """\
date,time,home,away,venue
2017-12-26,15:00,Manchester City,Manchester United,
2018-03-10,12:30,man-united,man-city,Old Trafford
"""


def test_a_csv_fixture_list_adds_matches_that_decide() -> None:
    fixtures, problems = read_csv(CSV, timezone="Europe/London")
    assert problems == []
    document = _seed()
    document["venues"].append({"id": "etihad", "name": "Etihad Stadium", "zones": []})
    document["matches"].append(
        {
            **document["matches"][0],
            "id": "mci-mutv",
            "home": "man-city",
            "away": "mutv",
            "venue": "etihad",
        }
    )
    done = import_fixtures(document, fixtures)
    assert done.added == ("man-city-man-united-2017-12-26",)
    added = done.document["matches"][-1]
    assert added["venue"] == "etihad"  # the home club's ground, from its home matches
    assert added["kickoff"] == "2017-12-26T15:00:00+00:00"  # local time, winter
    assert [m.match for m in done.moved] == ["mun-mci-2017-12-10"]  # same pair, no id
    assert decide_document(done.document)["matches"]  # the scenario still decides


def test_a_moved_match_says_which_requests_its_deadline_now_makes_late() -> None:
    rows = (
        "id,kickoff,home,away\nmun-mci-2017-12-10,2017-12-08T20:00:00+00:00,man-united,man-city\n"
    )
    fixtures, _ = read_csv(rows)
    done = import_fixtures(_seed(), fixtures)
    (moved,) = done.moved
    assert (moved.kickoff_before, moved.kickoff_after) == (
        "2017-12-10T16:30:00+00:00",
        "2017-12-08T20:00:00+00:00",
    )
    assert moved.requests == len(_seed()["requests"]) and moved.now_in_time == ()
    # The deadline moved from 2017-12-05 16:30 to 12-03 20:00: requests sent in between.
    sent = {r["id"]: r["submitted"] for r in _seed()["requests"]}
    assert moved.now_late and all(str(sent[r]) > "2017-12-03 20:00" for r in moved.now_late)
    assert set(moved.now_late) == {
        r for r, at in sent.items() if "2017-12-03 20:00" < str(at) <= "2017-12-05 16:30"
    }
    again = import_fixtures(done.document, fixtures)
    assert again.moved == () and again.unchanged == ("mun-mci-2017-12-10",)


def test_unknown_names_are_named_with_the_nearest_and_nothing_is_added() -> None:
    rows = "kickoff,home,away,venue\n2018-01-01T15:00:00Z,Man City,manchester united,Old Traford\n"
    fixtures, _ = read_csv(rows)
    with pytest.raises(ScenarioInvalid) as refused:
        import_fixtures(_seed(), fixtures)
    said = {p.path: p.message for p in refused.value.problems}
    assert said["row 2.home"].startswith('unknown club "Man City"')
    assert "did you mean" in said["row 2.home"]
    assert 'did you mean "Old Trafford"' in said["row 2.venue"]
    assert "row 2.away" not in said  # a name in another case is the club's name
    skipped = import_fixtures(_seed(), fixtures, skip=True)
    assert skipped.added == () and [p.path for p in skipped.skipped] == [
        "row 2.home",
        "row 2.venue",
    ]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("home,away,kickof\n", "header"),  # and so no kickoff: two problems
        ("home,away\n", "header"),
        ("kickoff,home,away\n2018-01-01T15:00,man-united,man-city\n", "row 2.kickoff"),
        ("date,time,home,away\n2018-01-01,15:00,man-united,man-city\n", "row 2.timezone"),
        ("date,time,home,away,timezone\n2018-01-01,15:00,a,b,Mars/Base\n", "row 2.timezone"),
        ("kickoff,home,away\nsoon,man-united,man-city\n", "row 2.kickoff"),
        ("kickoff,home,away\n2018-01-01T15:00Z,,man-city\n", "row 2.home"),
    ],
)
def test_bad_csv_rows_are_named(text: str, where: str) -> None:
    _, problems = read_csv(text)
    assert {p.path for p in problems} == {where}


ICS = """\
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//fixtures//EN
BEGIN:VEVENT
UID:derby-1@league.test
DTSTART:20180107T150000Z
SUMMARY:Manchester United v Manchester City
LOCATION:Old Trafford
END:VEVENT
BEGIN:VEVENT
UID:friendly@league.test
DTSTART;TZID=Europe/London:20180701T193000
RRULE:FREQ=WEEKLY;COUNT=3
EXDATE;TZID=Europe/London:20180708T193000
SUMMARY:man-city vs man-united
END:VEVENT
BEGIN:VEVENT
UID:bad@league.test
DTSTART;VALUE=DATE:20180801
SUMMARY:Manchester City - Manchester United
END:VEVENT
END:VCALENDAR
"""


def test_an_ics_fixture_list_expands_recurring_events_and_names_bad_ones() -> None:
    fixtures, problems = read_ics(ICS)
    assert [p.path for p in problems] == ["event 3.dtstart"]
    assert [(f.where, f.kickoff.isoformat()) for f in fixtures] == [
        ("event 1", "2018-01-07T15:00:00+00:00"),
        ("event 2", "2018-07-01T19:30:00+01:00"),
        ("event 2, 2018-07-15", "2018-07-15T19:30:00+01:00"),  # the 8th is left out
    ]
    document = _seed()
    document["matches"].append(
        {**document["matches"][0], "id": "mci-x", "home": "man-city", "away": "mutv"}
    )
    done = import_fixtures(document, fixtures)
    # The one derby of the file without an id is the scenario's derby, moved; the two
    # friendlies (one pair twice) are new, never moves of one another.
    assert [m.match for m in done.moved] == ["mun-mci-2017-12-10"]
    assert done.added == ("man-city-man-united-2018-07-01", "man-city-man-united-2018-07-15")


def test_an_unbounded_recurring_event_is_refused_not_expanded_forever() -> None:
    text = ICS.replace("FREQ=WEEKLY;COUNT=3", "FREQ=DAILY")
    fixtures, problems = read_ics(text)
    assert "event 2.rrule" in [p.path for p in problems]
    assert [f.where for f in fixtures] == ["event 1"]


def test_not_an_ics_file_is_one_problem() -> None:
    _, problems = read_ics("hello")
    assert len(problems) == 1 and "iCalendar" in problems[0].message


def test_ids_hosts_and_shared_names() -> None:
    rows = (
        "id,kickoff,home,away,host\n"
        "derby-2,2018-02-01T20:00:00Z,man-united,man-city,Sky Sports\n"
        "bad/id,2018-02-02T20:00:00Z,man-united,man-city,\n"
    )
    fixtures, _ = read_csv(rows)
    document = _seed()
    sky = next(o for o in document["organisations"] if o["id"] == "sky-sports")
    with pytest.raises(ScenarioInvalid) as refused:
        import_fixtures(document, fixtures)
    assert [p.path for p in refused.value.problems] == ["row 3.id"]
    done = import_fixtures(document, fixtures[:1])
    assert done.added == ("derby-2",)  # its own id: a new match, not a move of the derby
    assert done.document["matches"][-1]["host"] == "sky-sports"
    document["organisations"].append({**sky, "id": "sky-2"})  # two named "Sky Sports"
    with pytest.raises(ScenarioInvalid) as shared:
        import_fixtures(document, fixtures[:1])
    assert "names 2 organisations: sky-sports, sky-2" in shared.value.problems[0].message


def test_the_broadcasters_televising_each_match_by_id_or_name() -> None:
    """`televised_by` (docs/section-k.md): ids or names with `;` between. A new match gets
    them; a match the file has already, at the same kick-off and venue, is not moved but
    *retold* (its broadcasters changed, never silently); a name that is nobody's is named
    with the nearest, a club is refused by the scenario's own check."""
    rows = (
        "id,kickoff,home,away,televised_by\n"
        "derby-2,2018-02-01T20:00:00Z,man-united,man-city,BT Sport; sky-sports\n"
        "mun-mci-2017-12-10,2017-12-10T16:30:00Z,man-united,man-city,bt-sport\n"
    )
    fixtures, problems = read_csv(rows)
    assert problems == [] and fixtures[0].televised_by == ("BT Sport", "sky-sports")
    done = import_fixtures(_seed(), fixtures)
    assert done.added == ("derby-2",) and done.moved == ()
    derby = Retold("mun-mci-2017-12-10", "sky-sports", "sky-sports", None, ("bt-sport",))
    assert done.retold == (derby,)
    assert done.unchanged == ()
    televised = {x["id"]: x.get("televised_by") for x in done.document["matches"]}
    assert televised == {"mun-mci-2017-12-10": ["bt-sport"], "derby-2": ["bt-sport", "sky-sports"]}
    again = import_fixtures(done.document, fixtures)
    assert again.retold == () and set(again.unchanged) == {"mun-mci-2017-12-10", "derby-2"}
    misspelt = rows.replace("BT Sport;", "BT Sprot;").replace(",bt-sport\n", ",man-city\n")
    wrong, _ = read_csv(misspelt)
    with pytest.raises(ScenarioInvalid) as refused:
        import_fixtures(_seed(), wrong)
    assert [p.path for p in refused.value.problems] == [
        "row 2.televised_by[0]",
        "row 3.televised_by[0]",
    ]
    assert 'did you mean "BT Sport"' in refused.value.problems[0].message
    with pytest.raises(ScenarioInvalid) as club:  # named at its row, as a misspelling is
        import_fixtures(_seed(), wrong[1:])
    assert [(p.path, p.message) for p in club.value.problems] == [
        ("row 3.televised_by[0]", '"man-city" is a club, not a broadcaster')
    ]
    twice, _ = read_csv(rows.replace("BT Sport; sky-sports", "BT Sport; bt-sport"))
    with pytest.raises(ScenarioInvalid) as listed:
        import_fixtures(_seed(), twice)
    assert [p.path for p in listed.value.problems] == ["row 2.televised_by[1]"]


NEVER = """\
BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//fixtures//EN
BEGIN:VEVENT
DTSTART:20180107T150000Z
SUMMARY:Manchester United v Manchester City
RRULE:{rule}
END:VEVENT
END:VCALENDAR
"""


@pytest.mark.parametrize(
    ("rule", "named"),
    [
        ("FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30", "BYMONTH, BYMONTHDAY are not read"),
        ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "BYMONTH, BYMONTHDAY are not read"),
        ("FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6", "BYSETPOS is not read"),
        ("FREQ=HOURLY;COUNT=3", "FREQ=HOURLY: a match recurs at most daily"),
        ("FREQ=MONTHLY;BYDAY=SA", "BYDAY with FREQ=MONTHLY is not read"),
        ("FREQ=WEEKLY;BYDAY=1SA;COUNT=2", "BYDAY=1SA: only weekdays"),
    ],
)
def test_a_recurrence_that_may_never_occur_is_refused_by_its_parts_not_walked(
    rule: str, named: str
) -> None:
    # FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30 never occurs: expanded, it walked every day to
    # the year 9999 (14.5 s an event) and ended "0 added".
    fixtures, problems = read_ics(NEVER.format(rule=rule))
    assert fixtures == []
    assert [p.path for p in problems] == ["event 1.rrule"]
    assert named in problems[0].message


def test_the_rule_parts_read_expand_within_their_count() -> None:
    fixtures, problems = read_ics(NEVER.format(rule="FREQ=WEEKLY;INTERVAL=2;BYDAY=SA,SU;COUNT=4"))
    assert problems == []
    assert [f.kickoff.date().isoformat() for f in fixtures] == [
        "2018-01-07", "2018-01-20", "2018-01-21", "2018-02-03",
    ]  # fmt: skip


def test_an_ics_of_too_many_events_is_refused_before_it_is_parsed() -> None:
    event = "BEGIN:VEVENT\r\nDTSTART:20180107T150000Z\r\nSUMMARY:A v B\r\nEND:VEVENT\r\n"
    text = f"BEGIN:VCALENDAR\r\n{event * (MAX_ROWS + 1)}END:VCALENDAR\r\n"
    fixtures, problems = read_ics(text)
    assert fixtures == []
    assert [p.message for p in problems] == ["20,001 events, more than the 20,000 a list may have"]
