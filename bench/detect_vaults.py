"""``schema detect`` on real vaults: what it proposes, one line per proposal, to read as the
person whose vault it is would (a proposal they would not name is a defect of its class).

Each vault (a folder, or a bare git repository whose HEAD is extracted to a temp folder, as
``vaults_unasked.py`` does) gets ``init`` and ``schema detect --json`` with its state dir
outside it and no LLM server. Prints per vault the notes, the proposals, and each proposal's
key, name, notes, evidence and reason; ``--json`` prints them as one document.

    python bench/detect_vaults.py /work/.mirror/*/repo
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vaults_unasked import extract, name_of, vb  # noqa: E402


def proposals(source: Path, work: Path) -> dict:
    vault = extract(source, work / "vault")
    state, home = work / "state", work / "home"
    notes = sum(1 for _ in vault.rglob("*.md"))
    vb(vault, state, home, "init")
    t = time.perf_counter()
    done = vb(vault, state, home, "schema", "detect", "--json")
    seconds = time.perf_counter() - t
    if done.returncode:
        raise SystemExit(f"{name_of(source)}: schema detect exit {done.returncode}: {done.stderr}")
    found = json.loads(done.stdout).get("candidates") or []
    return {
        "vault": name_of(source),
        "notes": notes,
        "seconds": round(seconds, 2),
        "proposals": [
            {k: c[k] for k in ("prefix", "name", "notes", "evidence", "primitive", "reason")}
            for c in found
        ],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("vaults", nargs="+", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for source in args.vaults:
        work = Path(tempfile.mkdtemp(prefix="vb-detect-"))
        try:
            row = proposals(source.expanduser(), work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        rows.append(row)
        if not args.json:
            print(f"{row['vault']:40} {row['notes']:6} notes  {len(row['proposals']):3} proposals")
            for c in row["proposals"]:
                print(
                    f"    {c['prefix'][:48]:48} {c['name'][:24]:24} {c['notes']:5} {c['evidence']}"
                )
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
