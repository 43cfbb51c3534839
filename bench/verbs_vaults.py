"""The schema verbs on real vaults: each verb's dry run against what it then does.

Each vault (a folder, or a bare git repository whose HEAD is extracted to a temp folder, as
``vaults_unasked.py`` does) gets, with its state dir outside it and no LLM server:

    init; then on its fullest folder F (or --folder) and the property P most of F's notes
    carry: add-type, add-field P, add-alias, add-link-type, rename-field P -> P_renamed
    (with --kill: kill -9 once its first note is written, then run again), retire-type

each verb first with ``--dry-run --json`` and then for real. Checked per verb: the notes the
dry run listed are the notes it reports (and, for rename-field, exactly the files that
changed, each to the text the dry run planned: its hash); no other file of the vault
changed but vaultbrain's own (``vaultbrain.yml``, ``Brain/``); the pack after is the one the
dry run named; one audit line in ``schema log`` with the dry run's before and after, each
line's before the previous line's after. Prints one row per verb and exits 1 on a finding.

    python bench/verbs_vaults.py /work/.mirror/mdelmontep+obsidian-vault/repo --kill
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vaults_unasked import changed, extract, files, name_of, ours, vb  # noqa: E402


def fullest(vault: Path) -> tuple[str, str]:
    """The folder holding the most notes directly (not a dot folder, not Brain/), and the
    property most of them carry."""
    import yaml

    by_folder: Counter[str] = Counter()
    for p in vault.rglob("*.md"):
        rel = p.relative_to(vault).as_posix()
        if "/" in rel and not rel.startswith((".", "Brain/")) and "/." not in rel:
            by_folder[rel.rsplit("/", 1)[0]] += 1
    folder = by_folder.most_common(1)[0][0]
    return folder, common_property(vault, folder, yaml)


def common_property(vault: Path, folder: str, yaml: object) -> str:
    keys: Counter[str] = Counter()
    for p in (vault / folder).glob("*.md"):
        text = p.read_text("utf-8", "replace")
        if text.startswith("---\n") and "\n---" in text[4:]:
            try:
                data = yaml.safe_load(text[4 : text.index("\n---", 4)])  # type: ignore[attr-defined]
            except Exception:  # (a note whose frontmatter is not YAML: not counted)
                continue
            if isinstance(data, dict):
                keys.update(k for k in data if isinstance(k, str))
    for key, _ in keys.most_common():
        if key not in ("type", "id", "created", "tags", "aliases", "title", "name"):
            return key
    return "status"


def run_verb(
    vault: Path, state: Path, home: Path, args: list[str], kill: bool = False
) -> tuple[dict, dict, list[str], float]:
    """(dry run, done, findings, seconds) for one verb."""
    found: list[str] = []
    before = files(vault)
    dry_run = vb(vault, state, home, "schema", *args, "--dry-run", "--json")
    if dry_run.returncode:
        return {}, {}, [f"{args[0]} --dry-run: exit {dry_run.returncode}: {dry_run.stderr}"], 0
    dry = json.loads(dry_run.stdout)
    if changed(before, files(vault), mtimes=True):
        found.append(f"{args[0]} --dry-run wrote a file")
    t = time.perf_counter()
    if kill and any(n["writes"] for n in dry["notes"]):
        found += _killed_once(vault, state, home, args, dry)
    done_run = vb(vault, state, home, "schema", *args, "--json")
    seconds = time.perf_counter() - t
    if done_run.returncode:
        return dry, {}, [*found, f"{args[0]}: exit {done_run.returncode}: {done_run.stderr}"], 0
    done = json.loads(done_run.stdout)
    after = files(vault)
    diff = changed(before, after)
    planned = {n["path"]: n.get("sha256") for n in dry["notes"] if n["writes"]}
    notes_changed = {rel for rel in diff if not ours(rel)}
    if notes_changed != set(planned):
        found.append(
            f"{args[0]}: {len(notes_changed)} notes changed, the dry run listed "
            f"{len(planned)}: {sorted(notes_changed ^ set(planned))[:5]}"
        )
    for rel, sha in planned.items():
        got = hashlib.sha256((vault / rel).read_bytes()).hexdigest()
        if got != sha:
            found.append(f"{args[0]}: {rel} is not the text the dry run planned")
            break
    if not kill and done["notes"] != dry["notes"]:
        found.append(f"{args[0]}: it reports other notes than its dry run")
    if (done["before"], done["after"], done["version"]) != (
        dry["before"],
        dry["after"],
        dry["version"],
    ):
        found.append(f"{args[0]}: the pack is not the one its dry run named")
    active = json.loads(vb(vault, state, home, "schema", "active", "--json").stdout)
    if active.get("identity") != dry["after"]:
        found.append(f"{args[0]}: the active pack is {active.get('identity')}, not {dry['after']}")
    return dry, done, found, seconds


def _killed_once(vault: Path, state: Path, home: Path, args: list[str], dry: dict) -> list[str]:
    """Start the verb, kill -9 it once its first planned note is written."""
    first = vault / next(n["path"] for n in dry["notes"] if n["writes"])
    was = first.read_bytes()
    env = {
        **os.environ,
        "VAULTBRAIN_HOME": str(home),
        "VAULTBRAIN_ENDPOINT": "http://127.0.0.1:9/v1",
        "XDG_STATE_HOME": str(home / "state"),
    }
    cmd = [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "--state-dir", str(state)]
    proc = subprocess.Popen([*cmd, "schema", *args], env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while proc.poll() is None and time.monotonic() < deadline and first.read_bytes() == was:
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    log = json.loads(vb(vault, state, home, "schema", "log", "--json").stdout)
    if not log.get("unfinished"):
        return [f"{args[0]}: not cut short by kill -9 (it ended first)"]
    return []


def check(source: Path, work: Path, folder: str | None, kill: bool) -> list[dict]:
    vault = extract(source, work / "vault")
    state, home = work / "state", work / "home"
    vb(vault, state, home, "init")
    where, prop = fullest(vault) if folder is None else (folder, "")
    if folder is not None:
        import yaml

        prop = common_property(vault, folder, yaml)
    kind = "bench-kind"
    verbs = [
        ["add-type", kind, "--folder", where, "--fileable"],
        ["add-field", kind, prop, "--kind", "text"],
        ["add-alias", kind, "bench-alias"],
        ["add-link-type", "bench_link", "--from", kind, "--to", kind],
        ["rename-field", kind, prop, f"{prop}_renamed"],
        ["retire-type", kind],
    ]
    rows = []
    for args in verbs:
        dry, done, found, seconds = run_verb(
            vault, state, home, args, kill and args[0] == "rename-field"
        )
        rows.append(
            {
                "vault": name_of(source),
                "verb": " ".join(args),
                "notes": len(dry.get("notes", [])),
                "written": len(done.get("written", [])),
                "skipped": len(done.get("skipped", [])),
                "seconds": round(seconds, 2),
                "findings": found,
            }
        )
    log = json.loads(vb(vault, state, home, "schema", "log", "--json").stdout)["changes"]
    ok = [e for e in log if e.get("ok")]
    chain = all(a["after"] == b["before"] for a, b in itertools.pairwise(ok))
    if len(ok) != len(verbs) or not chain or log[-1].get("verb") != "retire-type":
        rows[-1]["findings"].append(
            f"schema log: {len(ok)} changes recorded for {len(verbs)} verbs "
            f"({'a chain' if chain else 'not one chain'} of before/after)"
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("vaults", nargs="+", type=Path)
    ap.add_argument("--folder", help="the folder to type (default: the fullest)")
    ap.add_argument("--kill", action="store_true", help="kill -9 rename-field once, mid-way")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows: list[dict] = []
    for source in args.vaults:
        work = Path(tempfile.mkdtemp(prefix="vb-verbs-"))
        try:
            rows += check(source.expanduser(), work, args.folder, args.kill)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            status = "ok" if not r["findings"] else f"{len(r['findings'])} finding(s)"
            print(
                f"{r['vault']:32} {r['verb'][:44]:44} notes {r['notes']:5} written "
                f"{r['written']:5} skipped {r['skipped']:3} {r['seconds']:6.2f}s  {status}"
            )
            for f in r["findings"]:
                print(f"    {f}")
    return 1 if any(r["findings"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
