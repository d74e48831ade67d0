"""Benchmark: a whole league season and one crowded match, decided three ways.

    .venv/bin/python benchmarks/decide_season.py          # everything; writes RESULTS.md
    .venv/bin/python benchmarks/decide_season.py --repeat 5

Each measured run is this script started again with `--only NAME` in a fresh process
(see README.md): the parent generates the scenarios (fixed seed), starts the children,
reads their timings, their peak memory (os.wait4) and their decisions, checks that the
PuLP baseline grants exactly what the engine grants, and writes RESULTS.md.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SEED = 2017
BIG_SEED = 1218
BIG_REQUESTS = 500

# ---------------------------------------------------------------------------------------
# The season: Premier League 2017/18 clubs and grounds; the media around them.

CLUBS = [  # id, short, name, ground id, ground name, size factor, popularity 0..1
    ("arsenal", "ars", "Arsenal", "emirates-stadium", "Emirates Stadium", 1.2, 0.85),
    ("bournemouth", "bou", "AFC Bournemouth", "vitality-stadium", "Vitality Stadium", 0.8, 0.1),
    ("brighton", "bha", "Brighton & Hove Albion", "amex-stadium", "Amex Stadium", 0.9, 0.15),
    ("burnley", "bur", "Burnley", "turf-moor", "Turf Moor", 0.8, 0.1),
    ("chelsea", "che", "Chelsea", "stamford-bridge", "Stamford Bridge", 1.1, 0.85),
    ("crystal-palace", "cry", "Crystal Palace", "selhurst-park", "Selhurst Park", 0.8, 0.2),
    ("everton", "eve", "Everton", "goodison-park", "Goodison Park", 1.0, 0.4),
    (
        "huddersfield",
        "hud",
        "Huddersfield Town",
        "john-smiths-stadium",
        "John Smith's Stadium",
        0.8,
        0.1,
    ),
    ("leicester", "lei", "Leicester City", "king-power-stadium", "King Power Stadium", 0.9, 0.35),
    ("liverpool", "liv", "Liverpool", "anfield", "Anfield", 1.1, 0.9),
    ("man-city", "mci", "Manchester City", "etihad-stadium", "Etihad Stadium", 1.1, 0.9),
    ("man-united", "mun", "Manchester United", "old-trafford", "Old Trafford", 1.2, 1.0),
    ("newcastle", "new", "Newcastle United", "st-james-park", "St James' Park", 1.0, 0.3),
    ("southampton", "sou", "Southampton", "st-marys-stadium", "St Mary's Stadium", 0.9, 0.2),
    ("stoke", "sto", "Stoke City", "bet365-stadium", "bet365 Stadium", 0.9, 0.15),
    ("swansea", "swa", "Swansea City", "liberty-stadium", "Liberty Stadium", 0.8, 0.15),
    ("tottenham", "tot", "Tottenham Hotspur", "wembley-stadium", "Wembley Stadium", 1.2, 0.8),
    ("watford", "wat", "Watford", "vicarage-road", "Vicarage Road", 0.8, 0.1),
    ("west-brom", "wba", "West Bromwich Albion", "the-hawthorns", "The Hawthorns", 0.8, 0.1),
    ("west-ham", "whu", "West Ham United", "london-stadium", "London Stadium", 1.1, 0.35),
]
DERBIES = {
    frozenset(p)
    for p in [
        ("man-united", "man-city"),
        ("liverpool", "everton"),
        ("arsenal", "tottenham"),
        ("chelsea", "tottenham"),
        ("arsenal", "chelsea"),
        ("man-united", "liverpool"),
        ("crystal-palace", "brighton"),
        ("west-ham", "tottenham"),
        ("stoke", "west-brom"),
    ]
}

PARTNERS = [  # the competition's broadcast rights holders
    ("sky-sports", "Sky Sports"),
    ("bt-sport", "BT Sport"),
    ("bbc-sport", "BBC Sport"),
    ("sky-sports-news", "Sky Sports News"),
    ("talksport", "talkSPORT"),
    ("nbc-sports", "NBC Sports"),
    ("bein-sports", "beIN Sports"),
    ("supersport", "SuperSport"),
    ("star-sports", "Star Sports"),
    ("optus-sport", "Optus Sport"),
    ("canal-plus", "Canal+"),
    ("sky-deutschland", "Sky Deutschland"),
    ("sky-italia", "Sky Italia"),
    ("dazn", "DAZN"),
    ("espn-brasil", "ESPN Brasil"),
    ("movistar", "Movistar+"),
]
OTHERS = [  # id, name, kind: not rights holders
    ("bbc-radio-5-live", "BBC Radio 5 Live", "broadcaster"),
    ("itv-news", "ITV News", "broadcaster"),
    ("channel-4-news", "Channel 4 News", "broadcaster"),
    ("premier-league-productions", "Premier League Productions", "producer"),
    ("whisper-films", "Whisper Films", "producer"),
    ("fulwell-73", "Fulwell 73", "producer"),
    ("amazon-documentaries", "Amazon documentaries", "producer"),
    ("getty-images", "Getty Images", "agency"),
    ("pa-media", "PA Media", "agency"),
    ("reuters", "Reuters", "agency"),
    ("afp", "AFP", "agency"),
    ("copa90", "COPA90", "other"),
]
HOSTS = ["sky-sports", "bt-sport", "premier-league-productions"]
UK_PARTNERS = ["sky-sports", "bt-sport", "bbc-sport", "sky-sports-news", "talksport"]
FOREIGN_PARTNERS = [p for p, _ in PARTNERS if p not in UK_PARTNERS]
DOC_MAKERS = ["whisper-films", "fulwell-73", "amazon-documentaries", "copa90"]
AGENCIES = ["getty-images", "pa-media", "reuters", "afp"]
NEWS = ["bbc-radio-5-live", "itv-news", "channel-4-news"]

# Zones of a real ground: base capacity (scaled by the ground's size), via, occupant, closed.
ZONES = [
    ("tunnel", "Players' tunnel", 28, [], None, []),
    (
        "home-dressing-room",
        "Home dressing room",
        4,
        ["tunnel"],
        "home",
        ["first-half", "second-half"],
    ),
    (
        "away-dressing-room",
        "Away dressing room",
        4,
        ["tunnel"],
        "away",
        ["first-half", "second-half"],
    ),
    ("pitch-side", "Pitch-side positions", 30, [], None, []),
    ("mixed-zone", "Mixed zone", 40, [], None, ["first-half", "second-half"]),
    (
        "flash-interview",
        "Flash-interview positions",
        10,
        [],
        None,
        ["arrival", "first-half", "second-half"],
    ),
    (
        "press-conference",
        "Press-conference room",
        50,
        [],
        None,
        ["arrival", "pre-match", "first-half", "half-time", "second-half"],
    ),
    ("commentary", "Commentary positions", 16, [], None, []),
]


def season_document(seed: int = SEED) -> dict[str, Any]:
    """A 20-club double round robin: 380 matches, 30-60 requests each."""
    rng = random.Random(seed)
    matches, requests, incidents = [], [], []
    for match in _fixtures(rng):
        matches.append(match)
        requests += _requests_for(rng, match)
        if rng.random() < 0.3:
            incidents.append(_incident(rng, match, len(incidents)))
    return {
        "pitchpass": 1,
        "competition": {
            "id": "premier-league-2017-18",
            "name": "Premier League 2017/18",
            "partners": [p for p, _ in PARTNERS],
        },
        "policy": {"deadline": "5d", "within_tier": "most-granted"},
        "venues": [_venue(club) for club in CLUBS],
        "organisations": _organisations(),
        "matches": matches,
        "requests": requests,
        "incidents": incidents,
    }


def _organisations() -> list[dict[str, str]]:
    orgs = [{"id": c[0], "name": c[2], "kind": "club"} for c in CLUBS]
    orgs += [{"id": i, "name": n, "kind": "broadcaster"} for i, n in PARTNERS]
    orgs += [{"id": i, "name": n, "kind": k} for i, n, k in OTHERS]
    return orgs


def _venue(club: tuple[Any, ...]) -> dict[str, Any]:
    size = club[5]
    zones = []
    for zone_id, name, base, via, occupant, closed in ZONES:
        zone: dict[str, Any] = {"id": zone_id, "name": name}
        if zone_id == "pitch-side":  # fewer positions at half-time: the pitch is being worked on
            zone["capacity"] = {"default": round(base * size), "half-time": round(base * size / 2)}
        else:
            zone["capacity"] = base if base <= 10 else round(base * size)
        if via:
            zone["via"] = via
        if occupant:
            zone["occupant"] = occupant
        if closed:
            zone["closed"] = closed
        zones.append(zone)
    cameras = [
        {"id": f"{club[3]}-cctv-tunnel", "zone": "tunnel", "operator": club[0]},
        {
            "id": f"{club[3]}-cctv-mixed-zone",
            "zone": "mixed-zone",
            "operator": club[0],
            "phases": ["post-match"],
        },
    ]
    return {"id": club[3], "name": club[4], "zones": zones, "cameras": cameras}


def _fixtures(rng: random.Random) -> list[dict[str, Any]]:
    """Circle-method double round robin, 38 weekends from 12 August 2017."""
    teams = list(range(len(CLUBS)))
    rounds = []
    for _ in range(len(teams) - 1):
        half = len(teams) // 2
        rounds.append([(teams[i], teams[-1 - i]) for i in range(half)])
        teams = [teams[0], teams[-1], *teams[1:-1]]
    rounds = [
        [(a, b) if (r + k) % 2 else (b, a) for k, (a, b) in enumerate(games)]
        for r, games in enumerate(rounds)
    ]
    rounds += [[(b, a) for a, b in games] for games in rounds]
    matches = []
    for number, games in enumerate(rounds):
        weekend = datetime(2017, 8, 12, tzinfo=UTC) + timedelta(weeks=number)
        for home, away in games:
            day = weekend + timedelta(days=rng.choice([0, 0, 0, 1, 1, 2]))
            hour, minute = rng.choice([(12, 30), (15, 0), (15, 0), (17, 30), (20, 0)])
            local = _london(day.replace(hour=hour, minute=minute))
            h, a = CLUBS[home], CLUBS[away]
            matches.append(
                {
                    "id": f"{h[1]}-{a[1]}-{local.date().isoformat()}",
                    "venue": h[3],
                    "home": h[0],
                    "away": a[0],
                    "kickoff": local.isoformat(),
                    "host": rng.choice(HOSTS),
                }
            )
    return matches


def _london(moment: datetime) -> datetime:
    """The UK's local time with its offset: BST from the last Sunday of March to that of October."""

    def last_sunday(month: int) -> datetime:
        day = datetime(moment.year, month, 31, 1, tzinfo=UTC)
        return day - timedelta(days=(day.weekday() + 1) % 7)

    summer = last_sunday(3) <= moment < last_sunday(10)
    return moment.replace(tzinfo=timezone(timedelta(hours=1 if summer else 0)))


def _interest(match: dict[str, Any]) -> float:
    pop = {c[0]: c[6] for c in CLUBS}
    derby = 0.5 if frozenset((match["home"], match["away"])) in DERBIES else 0.0
    return pop[match["home"]] + pop[match["away"]] + derby


def _requests_for(rng: random.Random, match: dict[str, Any]) -> list[dict[str, Any]]:
    """30-60 requests; the bigger the match, the more of them, and the more in the tunnel."""
    interest = _interest(match) + rng.uniform(-0.3, 0.3)
    count = max(30, min(60, round(30 + 16 * interest + rng.uniform(-4, 4))))
    kickoff = datetime.fromisoformat(match["kickoff"])
    locked = rng.random() < 0.25  # the host's commentary positions, already published
    out = []
    for k in range(count - locked):
        by, zone, phases, crew = _ask(rng, match, interest)
        request: dict[str, Any] = {
            "id": f"{match['id']}-r{k + 1:02d}",
            "match": match["id"],
            "by": by,
            "zone": zone,
            "phases": phases,
            "crew": crew,
            "submitted": _submitted(rng, kickoff).isoformat(),
        }
        if zone in ("press-conference", "commentary") or (zone == "mixed-zone" and crew == 1):
            request["cameras"] = 0 if rng.random() < 0.5 else 1
        if zone.endswith("dressing-room"):
            club = match["home"] if zone.startswith("home") else match["away"]
            if by != club and rng.random() < 0.75:
                request["consent"] = [club]
        out.append(request)
    if locked:
        out.append(
            {
                "id": f"{match['id']}-r{count:02d}",
                "match": match["id"],
                "by": match["host"],
                "zone": "commentary",
                "phases": ["first-half", "half-time", "second-half"],
                "crew": 2,
                "submitted": (kickoff - timedelta(days=20)).isoformat(),
                "locked": True,
            }
        )
    return out


def _ask(
    rng: random.Random, match: dict[str, Any], interest: float
) -> tuple[str, str, list[str], int]:
    """Who asks for which zone, phases and crew: (by, zone, phases, crew)."""
    tunnel_share = 0.12 + 0.16 * interest
    roll = rng.random()
    if roll < tunnel_share:
        by = rng.choice(FOREIGN_PARTNERS + UK_PARTNERS + [match["host"]] + NEWS)
        phases = rng.choice([["post-match"]] * 6 + [["arrival"], ["arrival", "post-match"]])
        return by, "tunnel", phases, rng.choice([1, 2, 2, 2, 3])
    roll -= tunnel_share
    if roll < 0.05:
        side = rng.choice(["home", "away"])
        club = match[side]
        by = club if rng.random() < 0.4 else rng.choice(DOC_MAKERS)
        phases = rng.choice(
            [["pre-match"], ["post-match"], ["pre-match", "post-match"]] * 3 + [["first-half"]]
        )
        return by, f"{side}-dressing-room", phases, rng.choice([1, 2])
    roll -= 0.05
    choices = [
        (
            0.25,
            "pitch-side",
            [
                ["pre-match"],
                ["first-half", "second-half"],
                ["first-half", "half-time", "second-half"],
                ["arrival", "pre-match"],
            ],
            AGENCIES + UK_PARTNERS + FOREIGN_PARTNERS + [match["home"], match["away"]],
            [1, 1, 2, 3],
        ),
        (
            0.2,
            "mixed-zone",
            [["post-match"]],
            NEWS + UK_PARTNERS + FOREIGN_PARTNERS + AGENCIES,
            [1, 1, 2, 3],
        ),
        (
            0.07,
            "flash-interview",
            [["post-match"], ["half-time"], ["half-time", "post-match"]] * 3 + [["second-half"]],
            [match["host"], *UK_PARTNERS[:3]],
            [2, 3],
        ),
        (
            0.13,
            "press-conference",
            [["post-match"]] * 9 + [["pre-match"]],
            NEWS + AGENCIES + UK_PARTNERS + FOREIGN_PARTNERS,
            [1, 1, 2],
        ),
    ]
    for share, zone, phase_sets, orgs, crews in choices:
        if roll < share:
            return rng.choice(orgs), zone, rng.choice(phase_sets), rng.choice(crews)
        roll -= share
    by = rng.choice(UK_PARTNERS + FOREIGN_PARTNERS + ["bbc-radio-5-live", match["host"]])
    phases = rng.choice(
        [
            ["first-half", "half-time", "second-half"],
            ["pre-match", "first-half", "half-time", "second-half", "post-match"],
        ]
    )
    return by, "commentary", phases, rng.choice([1, 2, 2, 3])


def _submitted(rng: random.Random, kickoff: datetime) -> datetime:
    """Mostly 5-30 days ahead; about 1 in 20 after the 5-day deadline."""
    if rng.random() < 0.05:
        ahead = timedelta(hours=rng.uniform(2, 119))
    else:
        ahead = timedelta(days=rng.uniform(5, 30))
    return (kickoff - ahead).replace(microsecond=0, second=0)


def _incident(rng: random.Random, match: dict[str, Any], number: int) -> dict[str, Any]:
    zone, minute, what = rng.choice(
        [
            ("pitch-side", rng.randint(1, 110), "Penalty claim"),
            ("pitch-side", rng.randint(1, 110), "Booking after a late challenge"),
            ("tunnel", rng.randint(48, 60), "Words exchanged at half-time"),
            ("away-dressing-room", rng.randint(115, 140), "Altercation at the dressing rooms"),
            ("mixed-zone", rng.randint(120, 170), "Manager walks out of an interview"),
        ]
    )
    return {
        "id": f"i{number + 1:03d}",
        "match": match["id"],
        "zone": zone,
        "minute": minute,
        "what": what,
    }


def big_match_document(seed: int = BIG_SEED, count: int = BIG_REQUESTS) -> dict[str, Any]:
    """One derby at Old Trafford with `count` crews after the tunnel and the dressing rooms."""
    rng = random.Random(seed)
    document = season_document(SEED)  # organisations, partners and the venue of the season
    venue = next(v for v in document["venues"] if v["id"] == "old-trafford")
    kickoff = datetime(2017, 12, 10, 16, 30, tzinfo=UTC)
    match = {
        "id": "mun-mci-2017-12-10",
        "venue": "old-trafford",
        "home": "man-united",
        "away": "man-city",
        "kickoff": kickoff.isoformat(),
        "host": "sky-sports",
    }
    tiers = [  # weight, who: the host, partners, the two clubs, others
        (0.04, ["sky-sports"]),
        (0.46, [p for p, _ in PARTNERS if p != "sky-sports"]),
        (0.15, ["man-united", "man-city"]),
        (0.35, NEWS + DOC_MAKERS + AGENCIES + ["premier-league-productions"]),
    ]
    requests = []
    for k in range(count):
        by = rng.choice(rng.choices([t[1] for t in tiers], [t[0] for t in tiers])[0])
        request: dict[str, Any] = {"id": f"c{k + 1:03d}", "match": match["id"], "by": by}
        if rng.random() < 0.7:
            request["zone"] = "tunnel"
            request["phases"] = rng.choice([["post-match"]] * 3 + [["arrival", "post-match"]])
        else:
            side = rng.choice(["home", "away"])
            request["zone"] = f"{side}-dressing-room"
            request["phases"] = rng.choice(
                [["pre-match"], ["post-match"], ["pre-match", "post-match"]]
            )
            request["consent"] = [match[side]]  # every crew may be there: they all compete
        request["crew"] = rng.choice([1, 2, 2, 3])
        ahead = timedelta(days=6, minutes=rng.randrange(30 * 24 * 60))
        request["submitted"] = (kickoff - ahead).isoformat()
        requests.append(request)
    return {
        **{k: document[k] for k in ("pitchpass", "competition", "policy", "organisations")},
        "venues": [venue],
        "matches": [match],
        "requests": requests,
        "incidents": [
            {
                "id": "altercation",
                "match": match["id"],
                "zone": "away-dressing-room",
                "minute": 125,
                "what": "Post-match altercation at the dressing rooms",
            }
        ],
    }


def first_come(document: dict[str, Any]) -> dict[str, Any]:
    return {**document, "policy": {**document["policy"], "within_tier": "first-come"}}


# ---------------------------------------------------------------------------------------
# One measured run, in its own process: `decide_season.py --only NAME IN OUT`.

RUNS = {  # name: (scenario file, how it is decided, what it is)
    "season-exact": ("season", "engine", "exact engine (most-granted), pool of all cores"),
    "season-exact-1": ("season", "engine-1", "exact engine, one process (for comparison)"),
    "season-first-come": ("season-fc", "engine", "first-come greedy, pool of all cores"),
    "season-pulp": ("season", "pulp", "PuLP + CBC baseline, one model per match"),
    "big-exact": ("big", "engine", f"one match, {BIG_REQUESTS} competing requests: exact engine"),
    "big-pulp": ("big", "pulp", f"one match, {BIG_REQUESTS} competing requests: PuLP baseline"),
    "season-cli": ("season", "cli", "`pitchpass decide FILE --json > /dev/null`, whole command"),
    "season-rules": (
        "season-rules",
        "engine",
        "the season with season rules (SEASON_RULES), decided jointly and exactly in one process",
    ),
}
SEASON_RULES_TARGET = 5.0  # seconds: issue 12, section 3
# The season rules measured (docs/scenario-extensions.md, "Season rules"): the Premier
# League's "enhancements" (each club grants each partner 2 dressing-room or flash-interview
# visits a season), each club's dressing rooms open once a season to each documentary
# producer, the tunnel after the match shared in turn among the partners, at most 6 people
# of one organisation in the tunnel at a match and 20 requests a season for each producer.
SEASON_RULES: dict[str, Any] = {
    "quotas": [
        {"for": "each", "per": "match", "counts": "places", "at_most": 6, "zones": ["tunnel"]},
        {"for": "kind:producer", "per": "season", "counts": "requests", "at_most": 20},
    ],
    "minimums": [
        {
            "name": "enhancements",
            "to": "partners",
            "at_least": 2,
            "cells": [
                {"zone": "home-dressing-room", "phases": ["pre-match"]},
                {"zone": "away-dressing-room", "phases": ["pre-match"]},
                {"zone": "flash-interview", "phases": ["half-time"]},
            ],
        },
        {
            "name": "behind-the-scenes",
            "to": "kind:producer",
            "at_least": 1,
            "cells": [
                {"zone": "home-dressing-room", "phases": ["pre-match", "post-match"]},
                {"zone": "away-dressing-room", "phases": ["pre-match", "post-match"]},
            ],
        },
    ],
    "rotations": [{"zone": "tunnel", "phase": "post-match", "tier": "partner"}],
}


def with_season_rules(document: dict[str, Any]) -> dict[str, Any]:
    return {**document, "policy": {**document["policy"], "season": SEASON_RULES}}


def run_child(name: str, source: Path, target: Path) -> None:
    """Read, import, load, decide; print the timings as JSON; write the granted sets."""
    started = time.perf_counter()
    document = json.loads(source.read_text())
    from pitchpass.cli.parallel import decide_all_json
    from pitchpass.core import load_document

    how = RUNS[name][1]
    most_granted = document["policy"].get("within_tier", "most-granted") == "most-granted"
    t0 = time.perf_counter()
    if how == "pulp":
        import pulp  # noqa: F401 - the baseline's own import cost, measured apart
    elif most_granted:
        import pitchpass.core.deciding.solver  # noqa: F401 - OR-Tools, which the engine imports lazily
    t1 = time.perf_counter()
    imported = how == "pulp" or most_granted
    rss_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scenario = load_document(document)
    t2 = time.perf_counter()
    rss_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if how == "pulp":
        import pulp_baseline

        granted = pulp_baseline.decide_season(scenario)
        t3 = time.perf_counter()
        summary: dict[str, Any] = {}
    else:
        # The CLI's `decide --json` path: in a pool, the workers build their matches' JSON.
        output = decide_all_json(scenario, workers=1 if how == "engine-1" else None)
        t3 = time.perf_counter()
        granted, summary = _granted(output)
    solver_loaded = "ortools" in sys.modules  # first-come should never need it
    target.write_text(json.dumps({"granted": granted, "summary": summary}))
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    timings = {
        "read": t0 - started,
        "import": t1 - t0 if imported else None,
        "load": t2 - t1,
        "decide": t3 - t2,
        "solver_loaded": solver_loaded,
        "rss_self_kb": own,
        "rss_children_kb": workers,
        "rss_import_kb": rss_import,
        "rss_load_kb": rss_load,
    }
    print(json.dumps(timings))


def _granted(output: dict[str, Any]) -> tuple[dict[str, list[str]], dict[str, Any]]:
    granted, by_tier, refused, over = {}, {}, {}, 0
    for match in output["matches"]:
        granted[match["match"]] = [
            d["request"] for d in match["decisions"] if d["status"] == "granted"
        ]
        for d in match["decisions"]:
            if d["status"] == "granted":
                by_tier[d["tier"]] = by_tier.get(d["tier"], 0) + 1
            for code in {r["code"] for r in d["reasons"]}:
                refused[code] = refused.get(code, 0) + 1
        over += sum(u["used"] > u["capacity"] for u in match["usage"])
    summary = {"granted_by_tier": by_tier, "refusals_by_code": refused, "cells_over": over}
    return granted, summary


def profile_child(source: Path, big: Path) -> None:
    """Where the time goes: cProfile of load and of a one-process decide, the solver's and
    the JSON's share timed without the profiler, and what the pool's workers send back."""
    import pitchpass.core.deciding.solver  # noqa: F401 - imported before, as in the runs
    from pitchpass.cli.parallel import decide_all_json
    from pitchpass.core import load_document

    document = json.loads(source.read_text())
    report: dict[str, Any] = {"load": _profiled(lambda: load_document(document))}
    scenario = load_document(document)
    report["matches"], report["requests"] = len(scenario.matches), len(scenario.requests)
    report["decide_serial"] = _profiled(lambda: decide_all_json(scenario, workers=1))
    report["payload"] = _payload(scenario)
    report["serial"], report["pooled"] = _serial_and_pooled(scenario)
    report["split"] = _split(scenario)
    big_scenario = load_document(json.loads(big.read_text()))
    report["big"] = _profiled(lambda: decide_all_json(big_scenario))
    print(json.dumps(report))


def _payload(scenario: Any) -> dict[str, float]:
    """What `decide_all_json`'s workers pickle back to the parent: each task's list of
    match JSON (`pitchpass.cli.parallel`'s chunks), dumped and loaded here in one process."""
    import pickle

    from pitchpass.cli.parallel import CHUNK
    from pitchpass.core import decide
    from pitchpass.core.explaining.report import match_json

    ids = [m.id for m in scenario.matches]
    parts = [
        [match_json(r) for r in decide(scenario, ids[i : i + CHUNK])]
        for i in range(0, len(ids), CHUNK)
    ]
    t = time.perf_counter()
    blobs = [pickle.dumps(part) for part in parts]
    dump = time.perf_counter() - t
    t = time.perf_counter()
    for blob in blobs:
        pickle.loads(blob)
    load = time.perf_counter() - t
    return {"bytes": sum(map(len, blobs)), "tasks": len(blobs), "dump": dump, "load": load}


def _split(scenario: Any) -> dict[str, float]:
    """One-process `decide` and `decide_json` of the season, timed without the profiler;
    `solve_group` is wrapped with a timer (in this process only). Best of 3."""
    import pitchpass.core.deciding.solver as solver
    from pitchpass.core import decide, decide_json

    original = solver.solve_group
    runs, spent = [], [0.0, 0]

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - started
            spent[1] += 1

    solver.solve_group = timed
    try:
        for _ in range(3):
            spent[:] = [0.0, 0]
            t0 = time.perf_counter()
            results = decide(scenario)
            t1 = time.perf_counter()
            decide_json(results)
            t2 = time.perf_counter()
            solved, groups = spent
            runs.append({"decide": t1 - t0, "json": t2 - t1, "solver": solved, "groups": groups})
    finally:
        solver.solve_group = original
    return min(runs, key=lambda r: r["decide"] + r["json"])


def _serial_and_pooled(scenario: Any) -> tuple[float, float]:
    """Best of 3 of `decide_all_json` in one process and with the pool."""
    from pitchpass.cli.parallel import decide_all_json

    serial, pooled = [], []
    for _ in range(3):
        t = time.perf_counter()
        decide_all_json(scenario, workers=1)
        serial.append(time.perf_counter() - t)
        t = time.perf_counter()
        decide_all_json(scenario)
        pooled.append(time.perf_counter() - t)
    return min(serial), min(pooled)


def _profiled(call: Any) -> dict[str, Any]:
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    call()
    profiler.disable()
    plain = time.perf_counter() - started
    stats = pstats.Stats(profiler, stream=io.StringIO())
    rows = []
    for (file, line, func), (_cc, calls, tottime, cumtime, _) in stats.stats.items():
        where = f"{_short(file)}:{line}({func})" if line else re.sub(r" at 0x\w+", "", func)
        rows.append({"where": where, "calls": calls, "tottime": tottime, "cumtime": cumtime})
    rows.sort(key=lambda r: -r["tottime"])
    total = sum(r["tottime"] for r in rows)
    return {"profiled_seconds": plain, "total_tottime": total, "top": rows[:12], "all": rows}


def _short(file: str) -> str:
    for marker in ("/src/", "/site-packages/", "/lib/python"):
        if marker in file:
            return file.split(marker, 1)[1]
    return file


# ---------------------------------------------------------------------------------------
# The parent: generate, measure each run in fresh processes, check, write RESULTS.md.


def measure(name: str, files: dict[str, Path], work: Path, timeout: float) -> dict[str, Any]:
    """One fresh process: its own timings, its wall time and its peak RSS (os.wait4)."""
    source = files[RUNS[name][0]]
    target = work / f"{name}.out.json"
    cli = RUNS[name][1] == "cli"
    if cli:  # what a user waits for: the installed command, its output thrown away
        command = [str(_pitchpass_command()), "decide", str(source), "--json"]
    else:
        command = [sys.executable, str(Path(__file__).resolve()), "--only", name]
        command += [str(source), str(target)]
    busy = _busy_seconds()
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stdout = subprocess.DEVNULL if cli else out
        child = subprocess.Popen(command, stdout=stdout, stderr=err, cwd=HERE.parent)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                child.kill()
                os.wait4(child.pid, 0)
                return {"timeout": timeout}
            time.sleep(0.005)
        wall = time.perf_counter() - started
        others = _busy_seconds() - busy - usage.ru_utime - usage.ru_stime
        child.returncode = os.waitstatus_to_exitcode(status)  # already reaped by wait4
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(), err.read().decode()
    if child.returncode != 0:
        raise SystemExit(f"run {name} failed ({child.returncode}):\n{errors}")
    timings = {} if cli else json.loads(text.strip().splitlines()[-1])
    timings["process"] = wall
    timings["others"] = [max(0.0, others / wall)]  # cores busy with other processes meanwhile
    timings["peak_rss_kb"] = usage.ru_maxrss  # the child or its largest reaped descendant
    timings["result"] = None if cli else json.loads(target.read_text())
    return timings


def _pitchpass_command() -> Path:
    """The `pitchpass` script installed beside this Python (the venv's)."""
    command = Path(sys.executable).parent / "pitchpass"
    if not command.exists():
        raise SystemExit(f"{command} not found: install the package (make install)")
    return command


def best(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Best (least) of each time over the repeats, and the worst (largest) memory."""
    done = [s for s in samples if "timeout" not in s]
    if not done:
        return {"timeout": samples[0]["timeout"]}
    out = {k: min(s[k] for s in done) for k in done[0] if isinstance(done[0][k], float)}
    for key in ("peak_rss_kb", "rss_self_kb", "rss_children_kb", "rss_import_kb", "rss_load_kb"):
        if key in done[0]:
            out[key] = max(s[key] for s in done)
    if "solver_loaded" in done[0]:
        out["solver_loaded"] = any(s["solver_loaded"] for s in done)
    out["repeats"] = len(done)
    out["result"] = done[0]["result"]
    # The figure each run is about: decide, or for the whole command its process time.
    main = "decide" if "decide" in done[0] else "process"
    out["samples"] = [(s[main], s["others"][0]) for s in done]
    return out


def _busy_seconds() -> float:
    """CPU time spent by the whole machine so far (every process, every core)."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def machine() -> dict[str, str]:
    import importlib.metadata as metadata

    cpu = "unknown"
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with open("/proc/meminfo") as info:
        for line in info:
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    return {
        "CPU": cpu,
        "cores (os.cpu_count / usable)": f"{os.cpu_count()} / {len(os.sched_getaffinity(0))}",
        "memory": memory,
        "OS": f"{platform.system()} {platform.release()}",
        "Python": platform.python_version(),
        "ortools": metadata.version("ortools"),
        "PuLP": metadata.version("pulp"),
        "CBC": "the one bundled with PuLP (PULP_CBC_CMD, default threads)",
        "pitchpass measured": _revision(),
    }


def _revision() -> str:
    """The commit of the engine measured, and whether src/ had uncommitted changes."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(HERE.parent), *args], capture_output=True,
                              text=True, check=False)  # fmt: skip
        return done.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "src")
    return f"commit {commit}" + (" with uncommitted changes in src/" if dirty else "")


def cpu_check() -> float:
    """Parallel speed of this machine now: a pure-Python loop, 2 processes vs 1 (2.0 is ideal)."""
    code = "sum(range(4_000_000))"
    one = _timed([sys.executable, "-c", code])
    started = time.perf_counter()
    both = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(2)]
    for p in both:
        p.wait()
    return 2 * one / (time.perf_counter() - started)


def _timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started


def season_stats(document: dict[str, Any]) -> dict[str, Any]:
    """The generated season in numbers; contended = eligible demand above the room left by
    locked grants in some zone and phase (the definition of "contended" used here)."""
    from pitchpass.core import load_document
    from pitchpass.core.deciding.places import capacities, footprint
    from pitchpass.core.deciding.policy import ineligibility

    scenario = load_document(document)
    per_match: dict[str, list[Any]] = {m.id: [] for m in scenario.matches}
    for request in scenario.requests:
        per_match[request.match].append(request)
    venues = {v.id: v for v in scenario.venues}
    contended, cells, reasons = 0, {}, {}
    for match in scenario.matches:
        venue = venues[match.venue]
        room = capacities(venue, scenario.phases)
        demand: dict[tuple[str, str], int] = {}
        for request in per_match[match.id]:
            barred = ineligibility(request, match, venue, scenario.policy)
            for code in {r.code.value for r in barred}:
                reasons[code] = reasons.get(code, 0) + 1
            for cell in footprint(request, venue):
                if request.locked:
                    room[cell] -= request.crew
                elif not barred:
                    demand[cell] = demand.get(cell, 0) + request.crew
        over = [cell for cell, need in demand.items() if need > room[cell]]
        contended += bool(over)
        for zone, phase in over:
            cells[f"{zone} {phase}"] = cells.get(f"{zone} {phase}", 0) + 1
    sizes = [len(v) for v in per_match.values()]
    return {
        "matches": len(scenario.matches),
        "venues": len(scenario.venues),
        "organisations": len(scenario.organisations),
        "non-club organisations": sum(o.kind != "club" for o in scenario.organisations),
        "requests": len(scenario.requests),
        "requests per match": f"{min(sizes)}-{max(sizes)}",
        "locked": sum(r.locked for r in scenario.requests),
        "incidents": len(scenario.incidents),
        "contended matches": contended,
        "ineligible by reason": reasons,
        "contended cells": dict(sorted(cells.items(), key=lambda kv: -kv[1])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="measure one run (internal: the parent starts these)")
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=5, help="repeats of the engine's runs")
    parser.add_argument("--baseline-repeat", type=int, default=3, help="repeats of the baseline")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per run")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    if args.only == "profile":
        profile_child(Path(args.paths[0]), Path(args.paths[1]))
    elif args.only:
        run_child(args.only, Path(args.paths[0]), Path(args.paths[1]))
    else:
        sys.exit(benchmark(args))


def benchmark(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(HERE.parent / "src"))
    started = time.perf_counter()
    load_before = os.getloadavg()
    season = season_document()
    documents = {
        "season": season, "season-fc": first_come(season), "big": big_match_document(),
        "season-rules": with_season_rules(season),
    }  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="pitchpass-bench-") as tmp:
        work = Path(tmp)
        files = {}
        for key, document in documents.items():
            files[key] = work / f"{key}.json"
            files[key].write_text(json.dumps(document))
        speed = cpu_check()
        # Rounds of every run in turn, so that a burst of load elsewhere on the machine
        # hits all of them alike rather than every sample of one.
        samples: dict[str, list[dict[str, Any]]] = {name: [] for name in RUNS}
        for round_ in range(max(args.repeat, args.baseline_repeat)):
            for name in RUNS:
                repeat = args.baseline_repeat if name.endswith("pulp") else args.repeat
                if round_ < repeat and "timeout" not in (samples[name] or [{}])[-1]:
                    samples[name].append(measure(name, files, work, args.timeout))
        results = {name: best(runs) for name, runs in samples.items()}
        for name, result in results.items():
            print(f"{name}: {_line(result)}", file=sys.stderr)
        profile = _profile(files)
    checks = _checks(results)
    stats = season_stats(season)
    zones = documents["big"]["venues"][0]["zones"]
    stats["big tunnel"] = next(z["capacity"] for z in zones if z["id"] == "tunnel")
    text = render(
        results, checks, stats, profile, speed, load_before, time.perf_counter() - started
    )
    args.output.write_text(text)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0 if all(ok for _, ok in checks) else 1


def _profile(files: dict[str, Path]) -> dict[str, Any]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--only",
        "profile",
        str(files["season"]),
        str(files["big"]),
    ]
    busy, before = _busy_seconds(), resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=HERE.parent)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    profile = json.loads(done.stdout.strip().splitlines()[-1])
    profile["others"] = max(0.0, (_busy_seconds() - busy - own) / wall)
    return profile


def _line(result: dict[str, Any]) -> str:
    if "timeout" in result:
        return f"did not finish in {result['timeout']:.0f} s"
    decide = f"decide {result['decide']:.3f} s, " if "decide" in result else ""
    return f"{decide}process {result['process']:.2f} s, peak {result['peak_rss_kb'] / 1024:.0f} MB"


def _checks(results: dict[str, Any]) -> list[tuple[str, bool]]:
    """Correctness: the baseline grants what the engine grants; nothing over capacity."""
    checks = []

    def granted(name: str) -> dict[str, list[str]] | None:
        result = results[name]
        return None if "timeout" in result else result["result"]["granted"]

    for exact, pulp in [("season-exact", "season-pulp"), ("big-exact", "big-pulp")]:
        a, b = granted(exact), granted(pulp)
        if b is None:
            checks.append((f"{pulp} did not finish: its decisions are not compared", True))
            continue
        differ = [m for m in a or {} if sorted(a[m]) != sorted(b.get(m, []))]
        checks.append(
            (
                f"{exact} and {pulp} grant the same requests in every match ({len(a or {})})"
                + (f" (differ in {len(differ)}: {differ[:5]})" if differ else ""),
                not differ and a is not None and set(a) == set(b),
            )
        )
    checks.append(
        (
            "the pool and one process decide the same",
            granted("season-exact") == granted("season-exact-1"),
        )
    )
    for name in ("season-exact", "season-first-come", "big-exact", "season-rules"):
        if "timeout" in results[name]:
            continue
        over = results[name]["result"]["summary"]["cells_over"]
        checks.append((f"{name}: no zone and phase over capacity ({over} over)", over == 0))
    return checks


def _ms(seconds: float) -> str:
    if seconds < 0.01:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _cum(profile: dict[str, Any], func: str, file_part: str = "") -> float:
    return sum(
        r["cumtime"]
        for r in profile["all"]
        if r["where"].endswith(f"({func})") or r["where"].endswith(f".{func}>")
        if file_part in r["where"]
    )


def render(
    results: dict[str, Any],
    checks: list[tuple[str, bool]],
    stats: dict[str, Any],
    profile: dict[str, Any],
    speed: float,
    load_before: tuple[float, float, float],
    elapsed: float,
) -> str:
    info = machine()
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        "# Benchmark results",
        "",
        f"Written by `benchmarks/decide_season.py` ({now}, {elapsed:.0f} s in all); do not edit "
        "by hand. How to run it and what is measured: [README.md](README.md).",
        "",
        "## Machine",
        "",
        "| | |",
        "| --- | --- |",
        *[f"| {k} | {v} |" for k, v in info.items()],
        f"| load average before the run | {' / '.join(f'{x:.2f}' for x in load_before)} |",
        f"| load average after the run | {' / '.join(f'{x:.2f}' for x in os.getloadavg())} |",
        f"| parallel speed now (2 processes vs 1, 2.0 = two free cores) | {speed:.2f} |",
        "",
    ]
    out += _scenario_section(stats)
    out += _runs_section(results)
    out += _ratio_section(results)
    out += ["## Same decisions", ""]
    out += [f"- {'OK' if ok else 'FAILED'}: {text}" for text, ok in checks]
    out += [""]
    out += _modes_section(results)
    out += _targets_section(results, profile, speed)
    out += _season_rules_section(results)
    out += [
        "## Issue 12's other figures",
        "",
        "Measured by their own scripts, each against its own baseline in its run: the whole "
        "`pitchpass decide --json` command from JSON and from YAML, and federations of 5,000 "
        "and 20,000 matches (time and peak memory): [RESULTS-cli.md](RESULTS-cli.md) "
        "(`cli_season.py`); deciding on a Dask or Ray cluster of two workers against the "
        "single machine: [RESULTS-cluster.md](RESULTS-cluster.md) (`cluster.py`).",
        "",
        "## Issue 27's figures",
        "",
        "One match of 20,000 competing requests decided exactly, and at twice and four times"
        " as many, beside first-come on the same documents in the same run:"
        " [RESULTS-big-match.md](RESULTS-big-match.md) (`big_match.py`). Loading the season"
        " with its rules into the desk's database, beside a bare bulk insert of the same"
        " rows: [RESULTS-season-load.md](RESULTS-season-load.md) (`season_load.py`). The"
        " season with rules, exactly, is the `season-rules` run above (target of issue 27:"
        " at most 1 s); at 1x, 2x and 4x its size, beside the same documents without rules,"
        " exact and first-come: [RESULTS-season-scale.md](RESULTS-season-scale.md)"
        " (`season_scale.py`). The season page at that scale:"
        " [RESULTS-season-page.md](RESULTS-season-page.md) (`season_page.py`).",
        "",
    ]
    out += _profile_section(profile)
    return "\n".join(out) + "\n"


def _scenario_section(stats: dict[str, Any]) -> list[str]:
    share = stats["contended matches"] / stats["matches"]
    cells = ", ".join(f"{k} ({v})" for k, v in list(stats["contended cells"].items())[:6])
    bars = ", ".join(f"{k} {v}" for k, v in sorted(stats["ineligible by reason"].items()))
    return [
        "## The scenarios",
        "",
        f"- **season** (seed {SEED}): {stats['matches']} matches (double round robin of 20 "
        f"clubs) at {stats['venues']} venues, {stats['organisations']} organisations "
        f"({stats['non-club organisations']} broadcasters, producers and agencies besides the "
        f"clubs), {stats['requests']} requests ({stats['requests per match']} per match, "
        f"{stats['locked']} locked), {stats['incidents']} incidents.",
        f"- contended matches (eligible demand above the places left in some zone and phase): "
        f"**{stats['contended matches']} of {stats['matches']} ({share:.0%})**; most often in "
        f"{cells}.",
        f"- requests ruled out before places are counted (a request can have several): {bars}.",
        f"- **big match** (seed {BIG_SEED}): one derby at Old Trafford with {BIG_REQUESTS} "
        "crews of 1-3 people (host, partners, the two clubs and others) after the tunnel "
        f"(capacity {stats['big tunnel']}) and the two dressing rooms (4 each, via the "
        "tunnel, all with consent).",
        "",
    ]


def _runs_section(results: dict[str, Any]) -> list[str]:
    out = [
        "## Runs",
        "",
        "Each run is a fresh process, repeated in rounds (every run once per round); times are "
        "the best of the repeats, memory the worst. "
        "*import* is `import pitchpass.core.deciding.solver` (OR-Tools) or `import pulp`, "
        "done before "
        "the clock for *decide* starts (OR-Tools for most-granted runs only); *decide* is "
        "`decide_all_json` on the loaded scenario, the CLI's `decide --json` path (the "
        "baseline: its whole decision); *process* is the child's whole life, from start-up to "
        "exit, as the parent saw it (it includes reading the JSON file and writing the "
        "decisions). *season-cli* is the installed command alone, timed as a process. Peak RSS "
        "is from `os.wait4`: the largest of the process and its reaped children (the pool's "
        "workers, CBC); *main / largest child* splits it.",
        "",
        "| run | what | repeats | import | load_document | decide | process | peak RSS "
        "| main / largest child |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, (_, _, what) in RUNS.items():
        r = results[name]
        if "timeout" in r:
            out.append(
                f"| {name} | {what} | - | - | - | did not finish in {r['timeout']:.0f} s "
                "| - | - | - |"
            )
            continue
        cli = "decide" not in r
        if cli:
            imported = load = decide = split = "-"
        else:
            imported = _ms(r["import"]) if "import" in r else "not imported"
            load, decide = _ms(r["load"]), f"**{_ms(r['decide'])}**"
            split = f"{r['rss_self_kb'] / 1024:.0f} / {r['rss_children_kb'] / 1024:.0f} MB"
        process = f"**{r['process']:.2f} s**" if cli else f"{r['process']:.2f} s"
        out.append(
            f"| {name} | {what} | {r['repeats']} | {imported} | {load} | {decide} | {process} | "
            f"{r['peak_rss_kb'] / 1024:.0f} MB | {split} |"
        )
    out.append("")
    samples = "; ".join(
        f"{name}: " + ", ".join(f"{_ms(s)} ({o:.1f})" for s, o in r["samples"])
        for name, r in results.items()
        if "timeout" not in r
    )
    loaded = [
        name
        for name, r in results.items()
        if RUNS[name][0] == "season-fc" and "timeout" not in r and r["solver_loaded"]
    ]
    out += [
        f"Every sample (*decide*; for season-cli the whole process), with (in brackets) how "
        f"many cores other processes on the machine kept busy on average during that run: "
        f"{samples}.",
        "",
        "OR-Tools was "
        + (f"imported by {', '.join(loaded)}" if loaded else "not imported by the first-come run")
        + " (checked in the child after deciding).",
        "",
    ]
    return out


def _ratio(results: dict[str, Any], slow: str, fast: str, key: str) -> str:
    a, b = results[slow], results[fast]
    if "timeout" in a:
        return f"> {a['timeout'] / b[key]:.0f}x"
    return f"{a[key] / b[key]:.1f}x"


def _ratio_section(results: dict[str, Any]) -> list[str]:
    out = [
        "## Against the PuLP baseline (same run)",
        "",
        "| | decide | whole process |",
        "| --- | ---: | ---: |",
    ]
    for fast, slow in [
        ("season-exact", "season-pulp"),
        ("season-exact-1", "season-pulp"),
        ("season-first-come", "season-pulp"),
        ("big-exact", "big-pulp"),
    ]:
        out.append(
            f"| {slow} / {fast} | {_ratio(results, slow, fast, 'decide')} | "
            f"{_ratio(results, slow, fast, 'process')} |"
        )
    return [*out, ""]


def _modes_section(results: dict[str, Any]) -> list[str]:
    exact = results["season-exact"]["result"]["summary"]
    greedy = results["season-first-come"]["result"]["summary"]
    tiers = sorted(set(exact["granted_by_tier"]) | set(greedy["granted_by_tier"]))
    a, b = (
        results["season-exact"]["result"]["granted"],
        results["season-first-come"]["result"]["granted"],
    )
    differ = sum(sorted(a[m]) != sorted(b[m]) for m in a)
    return [
        "## Most-granted against first-come (the season)",
        "",
        f"The two modes grant different sets in {differ} of {len(a)} matches.",
        "",
        "| granted | " + " | ".join(tiers) + " | refused for room |",
        "| --- |" + " ---: |" * (len(tiers) + 1),
        *[
            f"| {label} | "
            + " | ".join(str(s["granted_by_tier"].get(t, 0)) for t in tiers)
            + f" | {s['refusals_by_code'].get('capacity', 0)} |"
            for label, s in [("most-granted", exact), ("first-come", greedy)]
        ],
        "",
    ]


SEASON_TARGET, RATIO_TARGET, BIG_TARGET, MEMORY_TARGET_MB = 0.5, 25.0, 1.0, 300


def _targets_section(results: dict[str, Any], profile: dict[str, Any], speed: float) -> list[str]:
    season, big, pulp = results["season-exact"], results["big-exact"], results["season-pulp"]
    ratio = (pulp.get("decide") or pulp.get("timeout", 0)) / season["decide"]
    engine = {n: r for n, r in results.items() if not n.endswith("pulp") and "timeout" not in r}
    peak, largest = max((r["peak_rss_kb"] / 1024, n) for n, r in engine.items())
    children = [r for r in engine.values() if "rss_self_kb" in r]  # not season-cli
    tree = max(r["rss_self_kb"] + r["rss_children_kb"] for r in children) / 1024
    cores = os.cpu_count() or 1
    on = "" if cores == 2 else f" (on {cores} cores, not 2)"
    needed = (pulp.get("decide") or pulp.get("timeout", 0)) / RATIO_TARGET
    rows = [
        ("season exact, decide, 2 cores", f"< {SEASON_TARGET} s", _samples(season) + on,
         season["decide"] < SEASON_TARGET, _season_limit(results, profile, speed)),
        ("season exact against PuLP (decide)", f">= {RATIO_TARGET:.0f}x", f"{ratio:.1f}x",
         ratio >= RATIO_TARGET,
         f"the season's decide: {RATIO_TARGET:.0f}x would need it in {_ms(needed)}"),
        (f"one match, {BIG_REQUESTS} competing requests, exact, decide", f"< {BIG_TARGET} s",
         _ms(big["decide"]), big["decide"] < BIG_TARGET, _big_limits(profile)),
        ("peak memory, any engine run (largest process)", f"< {MEMORY_TARGET_MB} MB",
         f"{peak:.0f} MB ({largest}; in the child runs, main and largest worker together "
         f"at most {tree:.0f} MB)",
         peak < MEMORY_TARGET_MB, _memory_limits(season)),
    ]  # fmt: skip
    out = [
        "## Targets (issue 2, section 6)",
        "",
        "| target | wanted | measured | | limited by (where missed) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for what, wanted, figure, met, limit in rows:
        verdict = "met" if met else "missed"
        out.append(f"| {what} | {wanted} | {figure} | **{verdict}** | {'' if met else limit} |")
    out.append("")
    cli = results["season-cli"]
    if "timeout" not in cli:
        out += [
            f"Not a target, but what a user waits for: `pitchpass decide FILE --json > "
            f"/dev/null` on the season takes **{cli['process']:.2f} s** end to end (best of "
            f"{cli['repeats']}, peak RSS {cli['peak_rss_kb'] / 1024:.0f} MB). The season-exact "
            f"child, for comparison: OR-Tools import {_ms(season['import'])}, `load_document` "
            f"{_ms(season['load'])}, decide {_ms(season['decide'])}, whole process "
            f"{season['process']:.2f} s.",
            "",
        ]
    return out


def _season_rules_section(results: dict[str, Any]) -> list[str]:
    rules, plain, greedy = (
        results["season-rules"], results["season-exact-1"], results["season-first-come"]
    )  # fmt: skip
    out = [
        "## Season rules (issue 12, section 3)",
        "",
        "The season again, with `policy.season` set to `SEASON_RULES` in decide_season.py: "
        "quotas (6 people of an organisation in the tunnel a match; 20 requests a season for "
        "each producer), the minimum `enhancements` (each club grants each of the 6 "
        "partners 2 visits a season to a dressing room before kick-off or the flash interview "
        "at half-time; `behind-the-scenes`: each club opens a dressing room once a season to "
        "each documentary producer) and a rotation of the tunnel after the match among the "
        "partners. Every "
        "match that the rules link is decided in one exact CP-SAT model (one process: the "
        "pool splits by match, which the rules do not allow).",
        "",
    ]
    if "timeout" in rules:
        return [*out, f"Did not finish in {rules['timeout']:.0f} s.", ""]
    codes = rules["result"]["summary"]["refusals_by_code"]
    said = ", ".join(f"{code} {codes.get(code, 0)}" for code in ("quota", "minimum", "rotation"))
    met = rules["decide"] <= SEASON_RULES_TARGET
    out += [
        "| | decide | against the season without rules, one process (same run) "
        "| against first-come (same run) |",
        "| --- | ---: | ---: | ---: |",
        f"| season with rules | **{_ms(rules['decide'])}** | "
        f"{rules['decide'] / plain['decide']:.1f}x as long | "
        f"{rules['decide'] / greedy['decide']:.1f}x as long |",
        "",
        f"Target: the 380 matches with minimums and rotation decided exactly in <= "
        f"{SEASON_RULES_TARGET:.0f} s: **{'met' if met else 'missed'}** (best of "
        f"{rules['repeats']}; samples {', '.join(_ms(t) for t, _ in rules['samples'])}). "
        f"Decisions that name a season rule (granted or refused): {said}. The naive PuLP "
        "baseline has no season rules: there is nothing of it to compare here.",
        "",
    ]
    return out


def _samples(run: dict[str, Any]) -> str:
    """The best decide, and how the other samples fell around the target."""
    times = sorted(t for t, _ in run["samples"])
    under = sum(t < SEASON_TARGET for t in times)
    return (
        f"{_ms(times[0])} (best of {len(times)}; median {_ms(times[len(times) // 2])}, "
        f"{under} of {len(times)} samples under {SEASON_TARGET} s)"
    )


def _season_limit(results: dict[str, Any], profile: dict[str, Any], speed: float) -> str:
    """One line, from this run's figures: where the serial time goes, what the pool brings."""
    one, pooled = results["season-exact-1"]["decide"], results["season-exact"]["decide"]
    split = profile["split"]
    total = split["decide"] + split["json"]
    parts = sorted(
        [
            (split["solver"], f"`solve_group` ({split['groups']} groups)"),
            (split["json"], "`decide_json`"),
            (split["decide"] - split["solver"], "the rest of `decide`"),
        ],
        reverse=True,
    )
    shares = ", ".join(f"{what} {spent / total:.0%}" for spent, what in parts)
    return (
        f"one process takes {_ms(one)} ({_ms(one / profile['matches'])} a match; timed apart: "
        f"{shares}); the pool of {os.cpu_count()} is {one / pooled:.2f}x as fast (this "
        f"machine ran 2 processes {speed:.2f}x as fast as one)"
    )


def _calls(profile: dict[str, Any], func: str, file_part: str) -> int:
    return sum(
        r["calls"]
        for r in profile["all"]
        if r["where"].endswith(f"({func})") or r["where"].endswith(f".{func}>")
        if file_part in r["where"]
    )


def _big_limits(profile: dict[str, Any]) -> str:
    big = profile["big"]
    solve = _cum(big, "solve_group", "core/deciding/solver.py")
    solves = _calls(big, "solve", "cp_model_helper")
    return (
        f"{solves} CP-SAT solves: `solve_group` {_ms(solve)} of "
        f"{_ms(big['profiled_seconds'])} under cProfile"
    )


def _memory_limits(season: dict[str, Any]) -> str:
    return (
        f"after `import ortools` the process holds {season['rss_import_kb'] / 1024:.0f} MB, "
        f"after `load_document` {season['rss_load_kb'] / 1024:.0f} MB"
    )


def _profile_section(profile: dict[str, Any]) -> list[str]:
    split, payload = profile["split"], profile["payload"]
    out = [
        "## Where the time goes",
        "",
        f"Measured in one more process (other processes kept {profile['others']:.1f} cores "
        f"busy meanwhile, on average), best of 3 each:",
        "",
        f"- `decide_all_json` on the season: {_ms(profile['serial'])} in one process, "
        f"{_ms(profile['pooled'])} with the pool of {os.cpu_count()}.",
        f"- Without the profiler, in one process: `decide` {_ms(split['decide'])}, of which "
        f"`solve_group` {_ms(split['solver'])} ({split['groups']} groups); then `decide_json` "
        f"{_ms(split['json'])}.",
        f"- What the pool's workers send back (the JSON of their matches, "
        f"{payload['tasks']} tasks): {payload['bytes'] / 1e6:.2f} MB pickled; timed here in "
        f"one process, {_ms(payload['dump'])} to dump (the workers' share in the pool) and "
        f"{_ms(payload['load'])} to load (the parent's).",
        "",
        "cProfile (which slows pure Python several times, C calls much less), functions by "
        "own time:",
        "",
    ]
    for key, title in [
        ("decide_serial", "season, `decide_all_json` in one process"),
        ("load", "season, `load_document`"),
        ("big", f"big match ({BIG_REQUESTS} requests), `decide_all_json`"),
    ]:
        part = profile[key]
        out += [
            f"**{title}**: {_ms(part['profiled_seconds'])} under the profiler.",
            "",
            "| function | calls | own time | cumulative |",
            "| --- | ---: | ---: | ---: |",
        ]
        for row in part["top"][:10]:
            out.append(
                f"| `{row['where']}` | {row['calls']} | {_ms(row['tottime'])} | "
                f"{_ms(row['cumtime'])} |"
            )
        out.append("")
    return out


if __name__ == "__main__":
    main()
