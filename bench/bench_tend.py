"""Benchmark: ``tend`` on a generated 10,000-note vault with planted duplicates.

Planted: people under a full and a short name, under an alias, under the same e-mail, under
first name + surname spelled two ways; projects under two titles with the same people; and
100 distinct people who share first names (no proposal may join two of them). Prints the
recall of the planted duplicates, the false proposals, and the cycle's time (every phase; no
embedding server) against a warm ``reindex`` of the same vault (target: within 2x). The first
cycle takes what the reindex read of every note from the search index (and fills tend's
caches); the next ones read what changed.

    python bench/bench_tend.py [--notes 10000] [--runs 3] [--touch 100]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import vaultgen  # noqa: E402
from benchlib import emit, row  # noqa: E402

UNIQUE_FIRST = [f"Quill{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(200)]
SURNAMES = [f"Zed{chr(97 + i // 26)}{chr(97 + i % 26)}son" for i in range(200)]


def _write(path: Path, lines: list[str], body: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\n" + "\n".join(lines) + "\n---\n" + body, "utf-8")


def plant(vault: Path, per_kind: int = 25) -> set[tuple[str, str]]:
    """Duplicates written into ``vault``; the pairs (other, kept) a perfect run proposes."""
    want: set[tuple[str, str]] = set()
    people = vault / "People"
    n = 0
    for _ in range(per_kind):  # full and short name
        full, short = f"{UNIQUE_FIRST[n]} {SURNAMES[n]}", UNIQUE_FIRST[n]
        n += 1
        _write(people / f"{full}.md", ["type: person", f"name: {full}"], "Met at work.\n")
        _write(people / f"{short}.md", ["type: person", f"name: {short}"], "Call back.\n")
        want.add((f"People/{short}.md", f"People/{full}.md"))
    for i in range(per_kind):  # an alias
        full, nick = f"{UNIQUE_FIRST[n]} {SURNAMES[n]}", f"Nick{i}"
        n += 1
        _write(people / f"{full}.md", ["type: person", f"name: {full}", "aliases:", f"  - {nick}"])
        _write(people / f"{nick}.md", ["type: person", f"name: {nick}"])
        want.add((f"People/{nick}.md", f"People/{full}.md"))
    for i in range(per_kind):  # the same e-mail
        full, other = f"{UNIQUE_FIRST[n]} {SURNAMES[n]}", f"{UNIQUE_FIRST[n][0]}. {SURNAMES[n]}"
        n += 1
        mail = f"planted{i}@mail.test"
        _write(people / f"{full}.md", ["type: person", f"name: {full}", f"contact: {mail}"])
        _write(
            people / f"{other}.md", ["type: person", f"name: {other}", f"contact: {mail.upper()}"]
        )
        want.add((f"People/{other}.md", f"People/{full}.md"))
    for _ in range(per_kind):  # first name + surname, the first name shortened
        long_first = UNIQUE_FIRST[n] + "ina"
        full, short = f"{long_first} {SURNAMES[n]}", f"{UNIQUE_FIRST[n]} {SURNAMES[n]}"
        n += 1
        _write(people / f"{full}.md", ["type: person", f"name: {full}"], "Longer note here.\n")
        _write(people / f"{short}.md", ["type: person", f"name: {short}"])
        want.add((f"People/{short}.md", f"People/{full}.md"))
    for i in range(100):  # distinct people who share a first name
        name = f"Alexis {SURNAMES[100 + i % 100]}{i}"
        _write(people / f"{name}.md", ["type: person", f"name: {name}"])
    projects = vault / "Projects"
    for i in range(per_kind):
        person = f"{UNIQUE_FIRST[i]} {SURNAMES[i]}"
        a, b = f"Harbour bridge survey {i}", f"The harbour bridge survey project {i}"
        link = f'  - "[[People/{person}|{person}]]"'
        _write(projects / f"{a}.md", ["type: project", f"name: {a}", "people:", link])
        _write(projects / f"{b}.md", ["type: project", f"name: {b}", "people:", link], "Notes.\n")
        want.add((f"Projects/{a}.md", f"Projects/{b}.md"))
    return want


def _touch(vault: Path, people: list[Path], day: int, n: int, new: int = 0) -> None:
    """A day's changes: ``n`` person notes get a line, and ``n`` new idea notes link them;
    ``new`` people met (a note each, a name nobody else has)."""
    for j in range(new):
        name = f"Newcomer{chr(97 + day)}{chr(97 + j // 26)}{chr(97 + j % 26)} Yarrow{day}x{j}"
        _write(vault / "People" / f"{name}.md", ["type: person", f"name: {name}"], "Met.\n")
    for j in range(n):
        note = people[(day * 7919 + j * 104729) % len(people)]
        with note.open("a", encoding="utf-8") as fh:
            fh.write(f"\nSpoke again on day {day}.\n")
        daily = vault / "Ideas" / f"2031-01-{day:02d} bench {j}.md"
        daily.parent.mkdir(parents=True, exist_ok=True)
        daily.write_text(f"Called [[People/{note.stem}]] about the survey.\n", "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--touch",
        type=int,
        default=0,
        help="between two cycles, edit this many person notes and add as many idea notes "
        "linking them (a day's changes; the index caught up untimed, as the daemon does; in "
        "a folder of the pack's: one outside it that grows has the schema phase run detect)",
    )
    parser.add_argument(
        "--new-people",
        type=int,
        default=0,
        help="with --touch, also this many new person notes a day (consolidate groups anew)",
    )
    parser.add_argument(
        "--profile", metavar="PATH", help="cProfile the cycles after the first into PATH.N"
    )
    args = parser.parse_args()
    work = vaultgen.workdir_from_env()
    vaultgen.isolate_home(work)
    vault = vaultgen.fresh_copy(work, args.notes, "tend")
    want = plant(vault)

    from vaultbrain.brain import Brain
    from vaultbrain.capture.merge import proposals
    from vaultbrain.capture.reindex import reindex
    from vaultbrain.tend.cycle import run_tend

    reindex(Brain(vault))  # the planted notes known, then the warm figure
    warm: list[float] = []
    for _ in range(args.runs):
        started = time.perf_counter()
        reindex(Brain(vault))
        warm.append(time.perf_counter() - started)
    cycles: list[float] = []
    touched: list[float] = []  # the reindex that catches up with a day's changes (context)
    phase_s: dict[str, list[float]] = {}
    people = sorted((vault / "People").glob("*.md"))
    for i in range(args.runs):
        if i and args.touch:
            _touch(vault, people, i, args.touch, args.new_people)
            started = time.perf_counter()
            reindex(Brain(vault))
            touched.append(time.perf_counter() - started)
        brain = Brain(vault)
        prof = None
        if args.profile and (i or args.runs == 1):
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        started = time.perf_counter()
        entry = run_tend(brain, trigger="bench")
        cycles.append(time.perf_counter() - started)
        if prof is not None:
            prof.disable()
            prof.dump_stats(f"{args.profile}.{i}")
        took = ", ".join(f"{n} {r.get('seconds', 0):.2f}" for n, r in entry["phases"].items())
        print(f"cycle {i + 1}: {cycles[-1]:.2f}s ({took})", flush=True)
        for name, r in entry["phases"].items():
            phase_s.setdefault(name, []).append(float(r.get("seconds") or 0))
            if r.get("status") != "ok":
                print(f"phase {name} failed: {r.get('error')}", flush=True)
        if i == 0:
            got = {(p["other"], p["keep"]) for p in proposals(brain) if not p.get("kind")}
        else:
            assert not entry["phases"]["consolidate"]["proposed"], "a second run proposed more"
    found = want & got
    false = got - want
    recall = len(found) / len(want)
    print(f"planted {len(want)} duplicates; proposed {len(got)}; found {len(found)}")
    print(f"recall {recall:.3f} (target >= 0.9); false proposals {len(false)} (target 0)")
    for pair in sorted(false)[:10]:
        print(f"  false: {pair[0]} -> {pair[1]}")
    for pair in sorted(want - got)[:10]:
        print(f"  missed: {pair[0]} -> {pair[1]}")
    for name, values in phase_s.items():
        print(f"  phase {name:<12} median {sorted(values)[len(values) // 2]:.2f}s")
    if touched:
        med = sorted(touched)[len(touched) // 2]
        print(f"reindex after the day's changes (untimed in the ratio): median {med:.3f}s")
    emit(
        [
            row("reindex warm", warm, "s", "baseline"),
            row(
                "tend, first (cold) cycle / warm reindex",
                cycles[:1],
                "s",
                "<= 2x",
                limit=2.0,
                baseline=sorted(warm)[len(warm) // 2],
            ),
            row(
                "tend (all phases, no embedding server), later cycles "
                + (f"after --touch {args.touch}" if args.touch else "(quiet)")
                + " / warm reindex",
                cycles[1:] or cycles,
                "s",
                "<= 2x",
                limit=2.0,
                baseline=sorted(warm)[len(warm) // 2],
            ),
        ]
    )


if __name__ == "__main__":
    main()
