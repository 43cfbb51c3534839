"""Nothing written unasked, on real vaults: the check issue 44 names, run on public vaults.

Each vault (a folder, or a bare git repository whose HEAD is extracted to a temp folder) gets
the first hour's commands in order, with its state dir outside it and no LLM server:

    init, reindex, schema detect, schema add-type (each folder detect proposes, so adopt has
    records to adopt), reindex, adopt --dry-run, adopt --apply, daemon --once (twice), doctor

(``--accept``: instead of add-type, every proposal is accepted as a person would accept them
all: ``schema review-candidates --apply`` each, the delta installed and used; adopt's
conflicts are then those accepting every proposal leaves.)

and the files are compared before and after each step. What may change:

- the files vaultbrain makes for itself: ``vaultbrain.yml``, ``Inbox.md`` and ``Brain/`` (the
  vault's pack, which ``schema add-type`` writes, is ``Brain/Packs/``);
- what ``adopt --apply`` writes, which must be exactly what ``adopt --dry-run`` listed;

anything else changed, created or removed is a finding. The second ``daemon --once`` must
write no file at all. Prints one row per vault and exits 1 on any finding.

    python bench/vaults_unasked.py /work/.mirror/*/repo
    python bench/vaults_unasked.py ~/MyVaultCopy --keep
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OURS = ("vaultbrain.yml", "Inbox.md", "Brain/")


def files(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root`` (not .git): its content hash and mtime."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                continue
            rel = path.relative_to(root).as_posix()
            out[rel] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    return out


def changed(before: dict, after: dict, mtimes: bool = False) -> set[str]:
    i = 1 if mtimes else 0
    keys = set(before) | set(after)
    return {
        k for k in keys if (before.get(k) or (None, None))[i] != (after.get(k) or (None, None))[i]
    }


def ours(rel: str) -> bool:
    return any(rel == o or (o.endswith("/") and rel.startswith(o)) for o in OURS)


def vb(vault: Path, state: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "VAULTBRAIN_HOME": str(home),
        "VAULTBRAIN_ENDPOINT": "http://127.0.0.1:9/v1",
        "XDG_STATE_HOME": str(home / "state"),
    }
    env.pop("VAULTBRAIN_STATE_IN_VAULT", None)
    cmd = [sys.executable, "-m", "vaultbrain", "--vault", str(vault), "--state-dir", str(state)]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, env=env, timeout=3600)


def extract(source: Path, into: Path) -> Path:
    """A copy of ``source``; a bare repository's HEAD is written out file by file (a snapshot
    may lack its largest blobs: those files are left out)."""
    if not ((source / "HEAD").is_file() and (source / "objects").is_dir()):
        shutil.copytree(source, into, symlinks=True)
        return into
    git = ["git", "--git-dir", str(source)]
    tree = subprocess.run(
        [*git, "ls-tree", "-r", "-z", "HEAD"], capture_output=True, check=True
    ).stdout.split(b"\0")
    entries = []
    for item in filter(None, tree):
        meta, path = item.split(b"\t", 1)
        mode, kind, oid = meta.split()
        if kind == b"blob" and mode != b"120000":
            entries.append((oid.decode(), path.decode("utf-8", "surrogateescape")))
    batch = subprocess.run(
        [*git, "cat-file", "--batch"],
        input="".join(f"{oid}\n" for oid, _ in entries).encode(),
        capture_output=True,
        check=True,
    ).stdout
    at = 0
    for _oid, rel in entries:
        end = batch.index(b"\n", at)
        header = batch[at:end].split()
        at = end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        size = int(header[2])
        path = into / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(batch[at : at + size])
        at += size + 1
    return into


def name_of(source: Path) -> str:
    return source.parent.name if source.name == "repo" else source.name


def check(source: Path, work: Path, accept: bool = False) -> dict:
    vault = extract(source, work / "vault")
    state, home = work / "state", work / "home"
    found: list[str] = []
    notes = sum(1 for rel in files(vault) if rel.endswith(".md"))
    start = files(vault)
    timings = {}
    listed: set[str] = set()
    conflicts: list[str] = []
    prev = start
    daemons = 0
    steps: list[list[str]] = [["init"], ["reindex"], ["schema", "detect", "--json"]]
    added = 0
    while steps:
        step = steps.pop(0)
        t = time.perf_counter()
        done = vb(vault, state, home, *step)
        key = " ".join(step[:2])
        timings[key if key not in timings else key + " (2)"] = time.perf_counter() - t
        if "Traceback" in done.stderr:
            found.append(f"{' '.join(step)}: a traceback")
        if step[0] != "doctor" and step[:2] != ["schema", "add-type"] and done.returncode:
            found.append(f"{' '.join(step)}: exit {done.returncode}: {done.stderr.strip()[-200:]}")
        now = files(vault)
        diff = changed(prev, now)
        if step[:2] == ["schema", "detect"]:
            proposed = json.loads(done.stdout or "{}").get("candidates") or []
            if accept and proposed:  # every proposal, as a person accepting them all would
                keys = [a for c in proposed for a in ("--apply", c["prefix"])]
                steps += [["schema", "review-candidates", *keys, "--json"]]
            elif not accept:
                steps += [
                    ["schema", "add-type", c["name"], "--folder", c["folder"].rstrip("/")]
                    for c in proposed
                    if ":" not in c["folder"]  # a folder, not a tag or a category
                ]
            steps += [
                ["reindex"],
                ["adopt", "--dry-run", "--json"],
                ["adopt", "--apply", "--json"],
                ["daemon", "--once"],
                ["daemon", "--once"],
                ["doctor"],
            ]
        if step[:2] == ["schema", "add-type"]:
            added += done.returncode == 0
        if step[:2] == ["schema", "review-candidates"] and not done.returncode:
            delta = json.loads(done.stdout)["delta"]  # installed and used: outside the vault
            added += len(delta.get("added") or []) + len(delta.get("extended") or [])
            steps[:0] = [
                ["schema", "install", str(Path(delta["path"]).parent)],
                ["schema", "use", delta["name"]],
            ]
        if step[:2] == ["adopt", "--dry-run"]:
            if diff:
                found.append(f"adopt --dry-run wrote {sorted(diff)[:5]}")
            rows = json.loads(done.stdout or "[]")
            rows = [r for r in rows if isinstance(r, dict) and r.get("path")]
            # (a note adopted with nothing to write, its own id: kept, is not listed)
            listed = {str(r["path"]) for r in rows if not r.get("conflict") and r.get("changes")}
            conflicts = [f"{r['path']}: {r.get('problem')}" for r in rows if r.get("conflict")]
        elif step[:2] == ["adopt", "--apply"]:
            if diff != listed:
                found.append(
                    f"adopt --apply wrote {len(diff)} files, the dry run listed {len(listed)}: "
                    f"{sorted(diff ^ listed)[:5]}"
                )
        else:
            unasked = sorted(rel for rel in diff if not ours(rel))
            if unasked:
                found.append(f"{' '.join(step)} changed {len(unasked)}: {unasked[:5]}")
        if step == ["daemon", "--once"]:
            daemons += 1
            if daemons == 2:  # the second: no file written at all (content or mtime)
                quiet = changed(prev, now, mtimes=True) | diff
                if quiet:
                    found.append(f"the second daemon --once wrote {sorted(quiet)[:5]}")
        prev = now
    return {
        "vault": name_of(source),
        "notes": notes,
        "types_added": added,
        "adopted": len(listed),
        "adopt_conflicts": conflicts,
        "findings": found,
        "seconds": {k: round(v, 2) for k, v in timings.items()},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("vaults", nargs="+", type=Path)
    ap.add_argument("--keep", action="store_true", help="keep the temp copies")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--accept",
        action="store_true",
        help="accept every proposal (review-candidates --apply each, install and use the "
        "delta) instead of `schema add-type` for each folder proposed",
    )
    args = ap.parse_args()
    rows = []
    for source in args.vaults:
        work = Path(tempfile.mkdtemp(prefix="vb-unasked-"))
        try:
            row = check(source.expanduser(), work, args.accept)
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        rows.append(row)
        if not args.json:
            status = "ok" if not row["findings"] else f"{len(row['findings'])} finding(s)"
            print(
                f"{row['vault']:36} {row['notes']:6} notes  {row['types_added']:2} types added  "
                f"adopt {row['adopted']:5} ({len(row['adopt_conflicts'])} conflicts)  {status}"
            )
            for f in row["findings"]:
                print(f"    {f}")
    if args.json:
        print(json.dumps(rows, indent=1))
    return 1 if any(r["findings"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
