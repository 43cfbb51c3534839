"""The hostile-input corpus: each case plants files in a vault (and maybe next to it).

A case returns the paths it planted; the test compares their bytes before and after every
command. ``person(name)`` is a valid hand-made person note (vaultbrain may add its ``id``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

SECRET = "TOP-SECRET-OUTSIDE-THE-VAULT"


def person(name: str, extra: str = "") -> str:
    return f"---\nname: {name}\ncontact: someone@example.com\n{extra}---\nwritten by hand\n"


def _write(vault: Path, rel: str, data: str | bytes) -> str:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return rel


def malformed(vault: Path, outside: Path) -> list[str]:
    return [
        _write(vault, "People/Unclosed list.md", "---\nname: [unclosed\n---\nbody\n"),
        _write(vault, "People/Tabs.md", "---\nname:\tTabby\n\tbad: indent\n---\n"),
        _write(vault, "People/Only a fence.md", "---\n"),
        _write(vault, "People/Empty.md", ""),
        _write(vault, "Ideas/A list.md", "---\n- a\n- b\n---\nbody\n"),
        _write(vault, "Ideas/A scalar.md", "---\njust words\n---\nbody\n"),
        _write(vault, "Ideas/Never closed.md", "---\ntitle: Open\nno closing fence\n"),
        _write(vault, "People/Python tag.md", "---\nname: !!python/object:os.system ls\n---\n"),
        _write(vault, "People/Unhashable.md", "---\n? [a, b]\n: c\nname: K\n---\n"),
        _write(vault, "People/CRLF.md", person("Crlf Person").replace("\n", "\r\n")),
        _write(vault, "People/Wrong types.md", "---\nname: [1, 2]\ntopics: 5\naliases: x\n---\n"),
        _write(vault, "Admin/Bad enum.md", "---\ntitle: Pay\npriority: urgent\nstatus: 7\n---\n"),
        _write(vault, "People/Id path.md", "---\nname: Eve\nid: ../../../etc/passwd\n---\n"),
        _write(vault, "People/Id proto.md", "---\nname: Proto\nid: __proto__\n---\n"),
        _write(vault, "People/Type other.md", "---\nname: Tia\ntype: wizard\n---\n"),
    ]


def impossible_date(vault: Path, outside: Path) -> list[str]:
    return [
        _write(vault, "People/Bad date.md", person("Bad Date", "last_interaction: 2026-13-45\n"))
    ]


def deep_nesting(vault: Path, outside: Path) -> list[str]:
    return [
        _write(vault, "Ideas/Deep.md", "---\ntitle: Deep\nk: " + "[" * 900 + "]" * 900 + "\n---\n")
    ]


def alias_bomb(vault: Path, outside: Path) -> list[str]:
    """A 300-byte note whose YAML aliases expand to 9**7 (4.8 million) values."""
    lines = ["title: Laughs", "a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 7):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return [_write(vault, "Ideas/Laughs.md", "---\n" + "\n".join(lines) + "\n---\n")]


def duplicate_keys(vault: Path, outside: Path) -> list[str]:
    return [
        _write(vault, "People/Dupe.md", "---\nname: A\ncontact: x\nname: B\n---\n"),
        _write(vault, "Ideas/Dupe id.md", "---\ntitle: D\nid: abc123\nid: def456\n---\n"),
    ]


def binary(vault: Path, outside: Path) -> list[str]:
    return [
        _write(
            vault, "People/Binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
        ),
        _write(vault, "Ideas/Nul inside.md", b"---\ntitle: Nul\n---\nabc\x00def\n"),
        _write(vault, "Ideas/Random.md", os.urandom(4096)),
    ]


def non_utf8(vault: Path, outside: Path) -> list[str]:
    return [
        _write(vault, "People/Latin1.md", "---\nname: José\n---\nOlá\n".encode("latin-1")),
        _write(vault, "People/UTF16.md", "---\nname: Wide\n---\n".encode("utf-16")),
        _write(vault, "Ideas/Truncated utf8.md", "---\ntitle: Cut\n---\n🐝".encode()[:-1]),
        _write(vault, "Ideas/Surrogate.md", b"---\ntitle: S\n---\n\xed\xa0\x80\n"),
    ]


def huge(vault: Path, outside: Path) -> list[str]:
    body = ("a line of the huge note, over and over\n" * 270_000)[: 10 * 1024 * 1024]
    return [
        _write(vault, "Ideas/Huge.md", "---\ntitle: Huge\n---\n" + body),
        _write(vault, "People/Huge line.md", person("Huge Line") + "x" * (10 * 1024 * 1024)),
    ]


def deep_folders(vault: Path, outside: Path) -> list[str]:
    deep = "/".join(f"d{i}" for i in range(50))
    return [
        _write(vault, f"People/{deep}/Deep Person.md", person("Deep Person")),
        _write(vault, f"Notes/{deep}/Loose.md", "just a note, no type\n"),
    ]


def symlinks_out(vault: Path, outside: Path) -> list[str]:
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text(person("Outsider", f"context: {SECRET}\n"))
    (outside / "notes").mkdir(exist_ok=True)
    (outside / "notes" / "Far.md").write_text(person("Far Away", f"context: {SECRET}\n"))
    os.symlink(outside / "secret.md", vault / "People/Outside.md")
    os.symlink(outside / "notes", vault / "People/outdir")
    os.symlink("/etc/passwd", vault / "Ideas/passwd.md")
    real = _write(vault, "People/Real.md", person("Real One"))
    os.symlink("Real.md", vault / "People/Alias to real.md")
    return [
        real,
        "People/Outside.md",
        "People/outdir",
        "Ideas/passwd.md",
        "People/Alias to real.md",
    ]


def symlink_loops(vault: Path, outside: Path) -> list[str]:
    os.symlink(".", vault / "People/loop")
    os.symlink("..", vault / "Ideas/up")
    os.symlink("Self.md", vault / "People/Self.md")
    os.symlink("B.md", vault / "People/A.md")
    os.symlink("A.md", vault / "People/B.md")
    os.symlink("missing/nowhere.md", vault / "People/Dangling.md")
    return [
        "People/loop",
        "Ideas/up",
        "People/Self.md",
        "People/A.md",
        "People/B.md",
        "People/Dangling.md",
    ]


FORBIDDEN = ':*?"<>|#^[]%'


def forbidden_chars(vault: Path, outside: Path) -> list[str]:
    out = []
    for i, ch in enumerate(FORBIDDEN + "\x01\x1f\x7f\n\t"):
        out.append(_write(vault, f"People/Forbidden {i} a{ch}b.md", person(f"Forbidden {i}")))
    out.append(_write(vault, "People/-leading dash.md", person("Dash")))
    out.append(_write(vault, "People/trailing dot..md", person("Dot")))
    out.append(_write(vault, "People/ spaces .md", person("Spaces")))
    return out


def byte_order_mark(vault: Path, outside: Path) -> list[str]:
    return [_write(vault, "People/BOM.md", "\ufeff" + person("Bom Person"))]


def backslash_name(vault: Path, outside: Path) -> list[str]:
    return [_write(vault, "People/Back\\slash.md", person("Back Slash"))]


def reserved_names(vault: Path, outside: Path) -> list[str]:
    names = ["CON", "NUL", "nul", "PRN", "AUX", "COM1", "LPT9", "con.txt", "Con.md"]
    return [_write(vault, f"People/{n}.md", person(f"Reserved {n}")) for n in names]


def long_names(vault: Path, outside: Path) -> list[str]:
    return [
        _write(vault, "People/" + "a" * 252 + ".md", person("Long Ascii")),
        _write(vault, "People/" + "é" * 126 + ".md", person("Long Accents")),
        _write(vault, "People/" + "🐝" * 63 + ".md", person("Long Bees")),
        _write(vault, "Ideas/" + "x" * 250 + ".md", "---\ntitle: " + "x" * 250 + "\n---\n"),
    ]


def rtl_and_emoji(vault: Path, outside: Path) -> list[str]:
    return [
        _write(vault, "People/שרה.md", person("שרה")),
        _write(vault, "People/سارة.md", person("سارة")),
        _write(vault, "People/\u202eevil.gpj.md", person("\u202eevil")),
        _write(vault, "People/🐝 Bee.md", person("🐝 Bee")),
        _write(vault, "People/👩\u200d👩\u200d👧 Family.md", person("👩\u200d👩\u200d👧 Family")),
        _write(vault, "People/Jose\u0301.md", person("Jose\u0301")),  # NFD
        _write(vault, "People/José.md", person("José")),  # NFC: another file on Linux
        _write(vault, "Ideas/Z̴̛a̷l̶g̸o.md", "---\ntitle: Z̴̛a̷l̶g̸o\n---\n"),
    ]


def hostile_inbox(vault: Path, outside: Path) -> list[str]:
    inbox = vault / "Inbox.md"
    inbox.unlink()
    inbox.write_bytes(b"- a thought\n" + "Olá\n".encode("latin-1"))
    os.utime(inbox, (1, 1))
    return ["Inbox.md"]


def binary_inbox(vault: Path, outside: Path) -> list[str]:
    (vault / "Inbox.md").write_bytes(b"- a thought\n\x00\x01\x02\n")
    os.utime(vault / "Inbox.md", (1, 1))
    return ["Inbox.md"]


def huge_inbox(vault: Path, outside: Path) -> list[str]:
    lines = "".join(f"> quoted line {i}, never a thought\n" for i in range(300_000))
    (vault / "Inbox.md").write_text(lines + "x" * (2 * 1024 * 1024) + "\n")
    os.utime(vault / "Inbox.md", (1, 1))
    return ["Inbox.md"]


def inbox_symlink_out(vault: Path, outside: Path) -> list[str]:
    outside.mkdir(exist_ok=True)
    (outside / "Inbox.md").write_text(f"- {SECRET} thought\n")
    os.utime(outside / "Inbox.md", (1, 1))
    (vault / "Inbox.md").unlink()
    os.symlink(outside / "Inbox.md", vault / "Inbox.md")
    return ["Inbox.md"]


def inbox_duplicate_ids(vault: Path, outside: Path) -> list[str]:
    (vault / "Inbox.md").write_text(
        "- [ ] one ^vb-abc123\n- [ ] two ^vb-abc123\n- [x] ticked by me\n"
        "```\n- in a fence\n```\n<!-- - in a comment -->\n%% - obsidian comment %%\n"
    )
    os.utime(vault / "Inbox.md", (1, 1))
    return ["Inbox.md"]


CASES: dict[str, Callable[[Path, Path], list[str]]] = {
    "malformed frontmatter": malformed,
    "an impossible date": impossible_date,
    "deeply nested frontmatter": deep_nesting,
    "duplicate keys": duplicate_keys,
    "binary data": binary,
    "non-UTF-8": non_utf8,
    "10 MB notes": huge,
    "folders 50 deep": deep_folders,
    "symlinks out of the vault": symlinks_out,
    "symlink loops": symlink_loops,
    "forbidden file-name characters": forbidden_chars,
    "a backslash in a file name": backslash_name,
    "a UTF-8 byte-order mark": byte_order_mark,
    "Windows-reserved names": reserved_names,
    "255-byte names": long_names,
    "right-to-left and emoji names": rtl_and_emoji,
    "inbox not UTF-8": hostile_inbox,
    "inbox with binary data": binary_inbox,
    "inbox of 12 MB": huge_inbox,
    "inbox a symlink out of the vault": inbox_symlink_out,
    "inbox with duplicate ids and fences": inbox_duplicate_ids,
}
