"""Takes: claims found in notes of ``extractable`` types and in captures, with their kind
(the pack's ``takes_kinds``: fact, take, bet, hunch…), holder, text, date and source.

Two extractors: the LLM (``prompts/brain-takes.md``, a JSON schema, the brain's client; every
call in the audit trail) and an offline fallback for the obvious forms ("X thinks/says/
believes …" → take, "X bets …" → bet, "X suspects …" → hunch, "fact: …" → fact). When the
LLM is not set up or fails, the fallback answers and the audit trail says so.

Never twice for the same text: each extraction is keyed by the source's text (without its
own ``## Takes`` section), the pack identity, the model and the prompt's hash (or the
fallback's version); a key already seen is skipped. The key, and every take row, carry the
pack identity, so a take found under one pack is not listed under another.

Where takes land: the ``## Takes`` section of the holder's note when the holder is a person
record vaultbrain made, else of the source note when vaultbrain made it; otherwise only in
the graph index of the pack (no unasked writes). Each line links its source.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultbrain.errors import LLMError, UserError
from vaultbrain.graph.extract import is_own, link_key
from vaultbrain.graph.index import ARCHIVE, LIVE, GraphIndex
from vaultbrain.graph.show import wikilink
from vaultbrain.vault.note import append_to_section, parse_note

if TYPE_CHECKING:
    from vaultbrain.brain import Brain

PROMPT = "brain-takes.md"
FALLBACK_VERSION = "fallback-1"
SECTION = "## Takes"
MAX_TEXT = 12_000
KIND_WORDS = {
    "fact": "a statement of fact (fact: …)",
    "take": "an opinion or judgement someone holds (X thinks / says / believes …)",
    "bet": "a prediction someone stakes something on (X bets …)",
    "hunch": "a guess or suspicion (X suspects …)",
}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS takes(
    id INTEGER PRIMARY KEY, pack TEXT NOT NULL, src TEXT NOT NULL, src_title TEXT,
    holder TEXT, holder_rel TEXT, kind TEXT NOT NULL, text TEXT NOT NULL, day TEXT,
    method TEXT, placed TEXT,
    UNIQUE(pack, src, kind, text)
);
CREATE TABLE IF NOT EXISTS extractions(
    key TEXT PRIMARY KEY, text_key TEXT, pack TEXT, src TEXT, method TEXT, at TEXT,
    found INTEGER
);
CREATE INDEX IF NOT EXISTS extractions_text ON extractions(text_key, method);
"""

_PRONOUNS = frozenset("he she they i we it you this that who everyone someone one".split())
_HOLDER = r"(?P<holder>\[\[[^\]\n]+\]\]|[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})"
_VERBS = {
    "take": r"thinks|thought|says|said|believes|believed|argues|argued|claims|claimed|reckons",
    "bet": r"bets|is betting|wagers|bet",
    "hunch": r"suspects|suspected|has a hunch|guesses",
}
_CLAIM = re.compile(
    rf"{_HOLDER}\s+(?P<verb>{'|'.join(_VERBS.values())})\s+(?:that\s+|on\s+)?"
    r"(?P<text>[^.!?\n]{3,}[.!?]?)"
)
_FACT = re.compile(r"(?:^|[\s(])fact\s*:\s*(?P<text>[^\n]{3,})", re.IGNORECASE)
_LIST = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+(?:\[.\]\s+)?")


@dataclass
class Take:
    kind: str
    holder: str
    text: str


def ensure_schema(index: GraphIndex) -> None:
    with index.lock:
        index.db.executescript(_SCHEMA)


def without_takes(text: str) -> str:
    """A note's text without its ``## Takes`` section (what vaultbrain wrote from it)."""
    out, skipping = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == SECTION:
            skipping = True
            continue
        if skipping and stripped.startswith("#"):
            hashes = len(stripped) - len(stripped.lstrip("#"))
            skipping = hashes > 2
        if not skipping:
            out.append(line)
    return "\n".join(out)


def _kind_of(verb: str) -> str:
    for kind, verbs in _VERBS.items():
        if re.fullmatch(verbs, verb):
            return kind
    return "take"


def _holder_name(raw: str) -> str:
    m = re.fullmatch(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]", raw.strip())
    if m:
        return (m.group(2) or m.group(1).rsplit("/", 1)[-1]).strip()
    return raw.strip()


def fallback(text: str, kinds: list[str]) -> list[Take]:
    """The obvious forms, offline: one take per claim sentence, in order, no repeats."""
    out: list[Take] = []
    seen: set[tuple[str, str]] = set()
    for raw_line in text.splitlines():
        line = _LIST.sub("", raw_line).strip()
        if not line or line.startswith(("#", ">")):
            continue
        found: list[Take] = []
        for m in _FACT.finditer(line):
            found.append(Take("fact", "", m.group("text").strip()))
        for m in _CLAIM.finditer(line):
            holder = _holder_name(m.group("holder"))
            if holder.lower() in _PRONOUNS:
                continue
            found.append(Take(_kind_of(m.group("verb")), holder, m.group("text").strip()))
        for t in found:
            t.text = t.text.rstrip(" ,;:")
            key = (t.kind, t.text.lower())
            if t.kind in kinds and key not in seen:
                seen.add(key)
                out.append(t)
    return out


def schema(kinds: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "takes": {
                "type": "array",
                "maxItems": 20,
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": list(kinds)},
                        "holder": {"type": "string", "maxLength": 120},
                        "text": {"type": "string", "maxLength": 400},
                    },
                    "required": ["kind", "holder", "text"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["takes"],
        "additionalProperties": False,
    }


def prompt_messages(
    text: str, title: str, type_name: str, kinds: list[str], today: dt.date
) -> tuple[list[dict[str, str]], str]:
    """(messages, prompt hash) for one source."""
    from vaultbrain.classify.prompt import fill, load_template

    template, digest = load_template(PROMPT)
    kind_lines = "\n".join(f"- {k}: {KIND_WORDS.get(k, k)}" for k in kinds)
    content = fill(
        template,
        {
            "today": today.isoformat(),
            "title": title,
            "type": type_name or "note",
            "kinds": kind_lines,
            "text": text[:MAX_TEXT],
        },
    )
    return [{"role": "user", "content": content}], digest


def cache_key(text: str, pack: str, model: str, prompt_hash: str) -> str:
    """What one extraction is keyed by: the same text under the same pack, model and prompt
    is never extracted again; any of them changing makes a new key."""
    norm = " ".join(text.split()).lower()
    doc = json.dumps([norm, pack, model, prompt_hash], ensure_ascii=False)
    return hashlib.sha256(doc.encode()).hexdigest()


@dataclass
class Source:
    src: str  # a note's path, or capture:<id>
    title: str
    type: str | None
    text: str
    day: str
    link: str  # how a takes line links it
    own: bool


def sources(brain: Brain, index: GraphIndex) -> list[Source]:
    """Notes of extractable types, and captures (their thoughts)."""
    extractable = {t.name for t in brain.all_types() if t.extractable}
    out: list[Source] = []
    with index.lock:
        rows = index.db.execute(
            "SELECT n.id, n.rel, n.title, n.type, n.day, n.own, f.body FROM notes n "  # noqa: S608
            f"JOIN notes_fts f ON f.rowid = n.id WHERE {LIVE}"  # (never what was archived)
        ).fetchall()
    for _nid, rel, title, type_name, day, own, body in rows:
        if type_name not in extractable:
            continue
        out.append(
            Source(
                rel,
                title,
                type_name,
                without_takes(body),
                dt.date.fromordinal(day).isoformat() if day else "",
                wikilink(rel, title),
                bool(own),
            )
        )
    inbox = brain.inbox_rel[:-3] if brain.inbox_rel.endswith(".md") else brain.inbox_rel
    for cap in brain.store.inbox.all():
        text = cap.get("text")
        if not isinstance(text, str) or not text.strip():
            continue
        out.append(
            Source(
                f"capture:{cap['id']}",
                text[:60],
                None,
                text,
                str(cap.get("created") or "")[:10],
                f"[[{inbox}#^vb-{cap['id']}|capture]]",
                False,
            )
        )
    return out


def extract(brain: Brain, index: GraphIndex, use_llm: bool = True) -> dict[str, Any]:
    """Extract takes from every source not extracted yet; place them. A report of what ran."""
    ensure_schema(index)
    pack = brain.pack
    identity = pack.identity
    kinds = list(pack.manifest.takes_kinds)
    client = brain.client if use_llm else None
    report: dict[str, Any] = {"sources": 0, "skipped": 0, "takes": 0, "placed": [], "methods": {}}
    today = brain.today()
    for source in sources(brain, index):
        report["sources"] += 1
        text_key = cache_key(source.text, identity, "", "")
        messages: list[dict[str, str]] = []
        if client is not None:
            messages, prompt_hash = prompt_messages(
                source.text, source.title, source.type or "", kinds, today
            )
            key = cache_key(source.text, identity, client.model or "(default)", prompt_hash)
            if _seen(index, key):
                report["skipped"] += 1
                continue
            try:
                found, method = _ask(brain, client, messages, kinds, source), "llm"
            except LLMError as exc:
                brain.store.audit(
                    {
                        "at": brain.now().isoformat(),
                        "kind": "takes",
                        "source": source.src,
                        "error": str(exc),
                        "fallback": "offline",
                    }
                )
                client = None  # not again this run: the rest go offline at once
        if client is None:
            key = cache_key(source.text, identity, *_fb())
            # the fallback adds nothing to what it or the LLM already found in this text
            if _seen(index, key) or _seen_text(index, text_key):
                report["skipped"] += 1
                continue
            found, method = fallback(source.text, kinds), "fallback"
        report["methods"][method] = report["methods"].get(method, 0) + 1
        new = _store(index, identity, source, found, method)
        with index._tx():  # noqa: SLF001
            index.db.execute(
                "INSERT OR REPLACE INTO extractions(key, text_key, pack, src, method, at, found) "
                "VALUES(?,?,?,?,?,?,?)",
                (key, text_key, identity, source.src, method, brain.now().isoformat(), len(found)),
            )
        report["takes"] += len(new)
        report["placed"] += _place(brain, index, source, new)
    return report


def _fb() -> tuple[str, str]:
    return FALLBACK_VERSION, FALLBACK_VERSION


def _seen_text(index: GraphIndex, text_key: str) -> bool:
    with index.lock:
        row = index.db.execute("SELECT 1 FROM extractions WHERE text_key=?", (text_key,))
        return row.fetchone() is not None


def _seen(index: GraphIndex, key: str) -> bool:
    with index.lock:
        return (
            index.db.execute("SELECT 1 FROM extractions WHERE key=?", (key,)).fetchone() is not None
        )


def _ask(
    brain: Brain, client: Any, messages: list[dict[str, str]], kinds: list[str], source: Source
) -> list[Take]:
    reply = client.chat_json(messages, schema(kinds), name="takes")
    items = reply.data.get("takes") if isinstance(reply.data, dict) else None
    found: list[Take] = []
    dropped = 0
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            dropped += 1
            continue
        kind, text = item.get("kind"), item.get("text")
        if kind not in kinds or not isinstance(text, str) or not text.strip():
            dropped += 1
            continue
        holder = item.get("holder")
        holder = holder if isinstance(holder, str) else ""
        found.append(Take(kind, holder.strip(), " ".join(text.split())[:400]))
    brain.store.audit(
        {
            "at": brain.now().isoformat(),
            "kind": "takes",
            "source": source.src,
            "model": reply.model,
            "raw": reply.raw[:4000],
            "found": len(found),
            "dropped": dropped,
        }
    )
    return found


def _holder_rel(index: GraphIndex, name: str) -> tuple[str | None, bool]:
    """The person note a holder's name resolves to (path, made by vaultbrain), if any."""
    if not name:
        return None, False
    nid = index.resolve(link_key(name))
    if nid is None:
        return None, False
    row = index.note_row(nid)
    if row["type"] != "person" or row["rel"].startswith(ARCHIVE):
        return None, False
    return row["rel"], row["own"]


def _store(
    index: GraphIndex, identity: str, source: Source, found: list[Take], method: str
) -> list[dict[str, Any]]:
    new = []
    with index._tx():  # noqa: SLF001
        for t in found:
            rel, own = _holder_rel(index, t.holder)
            cur = index.db.execute(
                "INSERT OR IGNORE INTO takes(pack, src, src_title, holder, holder_rel, kind, text, "
                "day, method) VALUES(?,?,?,?,?,?,?,?,?)",
                (
                    identity,
                    source.src,
                    source.title,
                    t.holder,
                    rel,
                    t.kind,
                    t.text,
                    source.day,
                    method,
                ),
            )
            if cur.rowcount:
                new.append(
                    {
                        "id": cur.lastrowid,
                        "kind": t.kind,
                        "holder": t.holder,
                        "holder_rel": rel,
                        "holder_own": own,
                        "text": t.text,
                        "day": source.day,
                    }
                )
    return new


def take_line(take: dict[str, Any], source: Source) -> str:
    who = f"{take['holder']}: " if take["holder"] else ""
    day = f" ({take['day']})" if take["day"] else ""
    return f"- {take['kind']}{day}: {who}{take['text']} · {source.link}"


def _place(brain: Brain, index: GraphIndex, source: Source, new: list[dict[str, Any]]) -> list[str]:
    placed = []
    for take in new:
        if take["holder_rel"] and take["holder_own"]:
            target = take["holder_rel"]
        elif source.own and not source.src.startswith("capture:"):
            target = source.src
        else:
            continue  # the store only: no note of ours to show it in
        line = take_line(take, source)

        def build(note: Any, line: str = line) -> str | None:
            if note is None:
                return None
            parsed = parse_note(note.text)
            if parsed.error or not is_own(parsed.data) or line in note.text:
                return None
            return append_to_section(note.text, SECTION, line)

        try:
            edit = brain.vault.edit(target, build)
        except UserError:
            continue  # kept in the store; shown on a later run
        if edit.written:
            with index._tx():  # noqa: SLF001
                index.db.execute("UPDATE takes SET placed=? WHERE id=?", (target, take["id"]))
            placed.append(target)
    return placed


def list_takes(
    index: GraphIndex,
    pack: str,
    kind: str | None = None,
    holder: str | None = None,
    since: dt.date | None = None,
) -> list[dict[str, Any]]:
    ensure_schema(index)
    sql = (
        "SELECT kind, holder, holder_rel, text, day, src, src_title, method, placed FROM takes "
        "WHERE pack=?"
    )
    args: list[Any] = [pack]
    if kind:
        sql += " AND kind=?"
        args.append(kind)
    if holder:
        sql += " AND (lower(holder)=? OR lower(holder_rel)=? OR lower(holder_rel) LIKE ?)"
        h = holder.strip().lower()
        args += [h, h, f"%/{h}.md"]
    if since:
        sql += " AND day >= ?"
        args.append(since.isoformat())
    sql += " ORDER BY day DESC, id DESC"
    with index.lock:
        rows = index.db.execute(sql, args).fetchall()
    keys = (
        "kind",
        "holder",
        "holder_note",
        "text",
        "date",
        "source",
        "source_title",
        "method",
        "shown_in",
    )
    return [dict(zip(keys, r, strict=True)) for r in rows]
