"""The zone doors (issue 11, section 3): each reason a door refuses, and, over generated
scan sequences, that what the doors admit never puts more of a crew inside than its size
nor more people in a zone than its places: checked against an independent count."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from pitchpass.core.match_day import doors
from pitchpass.core.model import Phase, Request
from profiles import examples

PRE = Phase("pre-match", -60, 0)
POST = Phase("post-match", 112, 180)
SUBMITTED = datetime(2017, 11, 27, tzinfo=UTC)


def _request(rid: str, zone: str = "tunnel", crew: int = 2, cameras: int = 1) -> Request:
    return Request(rid, "m", "bt-sport", zone, ("post-match",), crew, SUBMITTED, cameras)


def _check(door: doors.Door, found: doors.Pass | None, **counts: float) -> doors.Verdict:
    values = {"inside_crew": 0, "inside_zone": 0, "capacity": 46, "minute": 120.0} | counts
    return doors.check(door, found, phase=POST, **values)  # type: ignore[arg-type]


TUNNEL_IN = doors.Door("tunnel", "post-match", doors.IN)


def test_each_reason_a_door_refuses() -> None:
    crew = doors.pass_of(_request("r02"), ())
    assert _check(TUNNEL_IN, crew).admitted
    assert _check(TUNNEL_IN, None).reason == doors.UNKNOWN
    revoked = doors.pass_of(_request("r02"), (), revoked="filmed the warm-up without consent")
    assert _check(TUNNEL_IN, revoked).reason == doors.REVOKED
    assert "without consent" in _check(TUNNEL_IN, revoked).text
    pitch = doors.Door("pitch-side", "post-match", doors.IN)
    wrong = _check(pitch, crew)
    assert wrong.reason == doors.WRONG_ZONE and "for tunnel, not pitch-side" in wrong.text
    early = doors.Door("tunnel", "pre-match", doors.IN)
    assert _check(early, crew).reason == doors.WRONG_PHASE
    waiting = _check(TUNNEL_IN, crew, minute=90.0)  # the door opens at 112 - 15 = 97
    assert waiting.reason == doors.NOT_YET_OPEN and "in 7 minutes" in waiting.text
    assert _check(TUNNEL_IN, crew, minute=97.0).admitted
    assert _check(TUNNEL_IN, crew, minute=None).admitted  # no clock: not checked
    both = _check(TUNNEL_IN, crew, inside_crew=2)
    assert both.reason == doors.CREW_INSIDE and "all 2 of its crew" in both.text
    full = _check(TUNNEL_IN, crew, inside_crew=1, inside_zone=46)
    assert full.reason == doors.FULL and "46 of 46" in full.text
    out = doors.Door("tunnel", "post-match", doors.OUT)
    assert _check(out, crew).reason == doors.NONE_INSIDE
    # One who is in may always leave: revoked, the phase over, the zone full.
    assert _check(out, revoked, inside_crew=1, inside_zone=46, minute=500.0).admitted


def test_a_dressing_room_pass_opens_the_tunnel_it_is_reached_through() -> None:
    room = doors.pass_of(_request("r24", zone="away-dressing-room"), ("tunnel",))
    assert room.zones == ("away-dressing-room", "tunnel")
    assert _check(TUNNEL_IN, room).admitted
    assert _check(doors.Door("away-dressing-room", "post-match", doors.IN), room).admitted
    assert _check(doors.Door("home-dressing-room", "post-match", doors.IN), room).reason == (
        doors.WRONG_ZONE
    )


def test_inside_and_present_read_the_admitted_scans_in_order() -> None:
    scans = [
        doors.Scan("r02", "tunnel", doors.IN, 113),
        doors.Scan("r02", "tunnel", doors.IN, 114),
        doors.Scan("r03", "tunnel", doors.IN, 115),
        doors.Scan("r02", "tunnel", doors.OUT, 120),
        doors.Scan("r03", "tunnel", doors.OUT, 121),
        doors.Scan("r04", "pitch-side", doors.IN, 116),
    ]
    assert doors.inside(scans, "tunnel") == {"r02": 1}
    assert doors.inside(scans, "tunnel", 116) == {"r02": 2, "r03": 1}
    filming = [_request("r02"), _request("r03", cameras=0), _request("r04")]
    assert doors.present(scans, "tunnel", 116, filming) == ["r02"]  # r03 has no camera
    assert doors.present(scans, "tunnel", 122, filming) == ["r02"]
    assert doors.present(scans, "tunnel", 112, filming) == []
    # A whole minute is the whole of it: a crew let in during minute 112 was there.
    assert doors.present(scans, "tunnel", 113, filming) == ["r02"]
    late = [doors.Scan("r04", "tunnel", doors.IN, 112.5), *scans]
    assert doors.present(late, "tunnel", 112, filming) == ["r04"]
    assert doors.present(late, "tunnel", 112.25, filming) == []  # that moment: not yet in


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from([doors.IN, doors.OUT]),
                  st.integers(0, 40).map(lambda n: n / 4)),
        max_size=12,
    ),
    st.integers(0, 10),
)  # fmt: skip
def test_present_at_a_whole_minute_is_anyone_inside_at_some_moment_of_it(
    rows: list[tuple[str, str, float]], minute: int
) -> None:
    scans = [doors.Scan(who, "tunnel", way, t) for who, way, t in sorted(rows, key=lambda r: r[2])]
    filming = [_request(who) for who in ("a", "b", "c")]
    moments = [minute] + [s.minute for s in scans if minute < s.minute < minute + 1]
    seen = {who for t in moments for who in doors.inside(scans, "tunnel", t)}
    assert set(doors.present(scans, "tunnel", minute, filming)) == seen


CREWS = {"a": 2, "b": 1, "c": 3}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([*CREWS, "nobody"]), st.sampled_from(doors.DIRECTIONS)),
        max_size=40,
    ),
    st.integers(min_value=0, max_value=6),
)
def test_what_the_doors_admit_never_overfills_a_crew_or_a_zone(
    attempts: list[tuple[str, str]], places: int
) -> None:
    """The oracle counts people with a plain tally, apart from `doors.inside`."""
    passes = {k: doors.pass_of(_request(k, crew=n), ()) for k, n in CREWS.items()}
    admitted: list[doors.Scan] = []
    tally = dict.fromkeys(CREWS, 0)
    for n, (who, direction) in enumerate(attempts):
        crews = doors.inside(admitted, "tunnel")
        verdict = _check(
            doors.Door("tunnel", "post-match", direction),
            passes.get(who),
            inside_crew=crews.get(who, 0),
            inside_zone=sum(crews.values()),
            capacity=places,
        )
        if who == "nobody":
            assert verdict.reason == doors.UNKNOWN
            continue
        room = tally[who] < CREWS[who] and sum(tally.values()) < places
        expected = room if direction == doors.IN else tally[who] > 0
        assert verdict.admitted == expected, (who, direction, tally, verdict)
        if verdict.admitted:
            tally[who] += 1 if direction == doors.IN else -1
            admitted.append(doors.Scan(who, "tunnel", direction, 120 + n))
        assert all(0 <= tally[k] <= CREWS[k] for k in CREWS)
        assert sum(tally.values()) <= places
    assert doors.inside(admitted, "tunnel") == {k: n for k, n in tally.items() if n}


ZONES = ("tunnel", "away-dressing-room", "pitch-side")
PHASES = {p.id: p for p in (PRE, POST)}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(ZONES[1:]),
            st.lists(st.sampled_from(list(PHASES)), min_size=1, max_size=2, unique=True),
            st.booleans(),
        ),
        max_size=6,
    )
)
def test_the_stewards_list_holds_just_the_passes_a_door_admits(
    asked: list[tuple[str, list[str], bool]],
) -> None:
    """`lets_in` (the access list) against `check` itself, with room and the clock set
    aside: a pass is listed at a zone and phase exactly when its door admits it then."""
    passes = [
        doors.pass_of(
            Request(f"r{n}", "m", "bt-sport", zone, tuple(phases), 2, SUBMITTED),
            ("tunnel",) if zone == "away-dressing-room" else (),
            revoked="gone" if revoked else None,
        )
        for n, (zone, phases, revoked) in enumerate(asked)
    ]
    listed = {
        (zone, phase): [p.request for p in found]
        for zone, phase, found in doors.lets_in(passes, ZONES, list(PHASES))
    }
    assert list(listed) == [(z, p) for z in ZONES for p in PHASES if (z, p) in listed]  # order
    for zone in ZONES:
        for phase in PHASES:
            door = doors.Door(zone, phase, doors.IN)
            admitted = [
                p.request
                for p in passes
                if doors.check(
                    door, p, inside_crew=0, inside_zone=0, capacity=99, phase=PHASES[phase],
                    minute=None,
                ).admitted
            ]  # fmt: skip
            assert listed.get((zone, phase), []) == admitted


def test_a_place_given_back_keeps_the_doors_verdict_and_tells_the_steward() -> None:
    admitted = doors.Verdict(True, None, "r23 (Play Sports, crew 2): in, 1 of its 2")
    back = doors.given_back(admitted, ["post-match"], "18:17")
    assert (back.admitted, back.reason) == (True, None)
    assert back.text == (
        "r23 (Play Sports, crew 2): in, 1 of its 2; its post-match place, released as a"
        " no-show at 18:17, is given back (scanned offline before the release)"
    )
