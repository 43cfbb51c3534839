"""Data pasted into the inbox (classify/noise.py's classes of machine text): SQL, a line of
YAML, TOML or INI, JSON, a CSV or Markdown table row, a hash, a UUID or a token alone, an HTML
or XML tag.

Each is told by its structure, not its words: ``SELECT`` is SQL only with a statement's parts
(a ``*`` or a column list, ``FROM`` a table, a ``WHERE`` with an operator, a ``;``), so
"SELECT a venue for the party" stays a thought; ``key: value`` is YAML only when the key is an
identifier (``retry_count``, ``apiVersion``) with one value, or the value typed (``true``,
``null``, ``"…"``, ``[…]``), so "Note: buy milk" and "C: call the bank" stay thoughts; a CSV
row has fields of a record (a number, an empty field, a date, an identifier), so
"eggs,milk,bread" stays a thought.
"""

from __future__ import annotations

import csv
import json
import re

from vaultbrain.patterns import LazyPattern

# -- SQL ---------------------------------------------------------------------------------------
_ID = r"[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?|\"[^\"]+\"|`[^`]+`|\[[^\]]+\]"
_COL = rf"(?:\*|{_ID}|[A-Za-z_]\w*\([^()]*\)|\d+)(?:\s+(?:as\s+)?[A-Za-z_]\w*)?"
_OP = r"(?:=|<>|!=|<=|>=|<|>|\blike\b|\bin\s*\(|\bis\s+(?:not\s+)?null\b|\bbetween\b)"
_SQL = LazyPattern(
    "|".join(
        (
            # SELECT with a statement's evidence: *, a column list, a call, a WHERE with an
            # operator, a join, an ordering, a limit, a ;
            rf"^\s*select\s+(?:distinct\s+|top\s+\d+\s+)?(?:\*|{_COL}\s*,\s*{_COL}(?:\s*,\s*{_COL})*"
            rf"|[A-Za-z_]\w*\([^()]*\)(?:\s+as\s+\w+)?)\s+from\s+(?:{_ID})",
            rf"^\s*select\s+{_COL}\s+from\s+(?:{_ID})(?:\s+(?:as\s+)?\w+)?\s+(?:where\s+[\w.]+"
            rf"\s*{_OP}|(?:inner\s+|left\s+|right\s+|outer\s+|cross\s+)*join\s+\S+|group\s+by"
            rf"|order\s+by\s+[\w.]+|limit\s+\d+)",
            rf"^\s*select\s+{_COL}\s+from\s+(?:{_ID})\s*;\s*$",
            rf"^\s*insert\s+(?:or\s+\w+\s+)?into\s+(?:{_ID})\s*(?:\(|values\b|select\b)",
            rf"^\s*update\s+(?:{_ID})\s+set\s+[\w.]+\s*=\s*\S",
            rf"^\s*delete\s+from\s+(?:{_ID})\s*(?:;|where\s+[\w.]+\s*{_OP})",
            rf"^\s*(?:create|drop|alter|truncate)\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?"
            rf"(?:table|index|unique\s+index|view|database|schema|trigger|function|procedure|"
            rf"sequence)\s+(?:if\s+(?:not\s+)?exists\s+)?(?:{_ID})\s*(?:\(|;|$|add\b|drop\b|"
            rf"rename\b|alter\b|on\b|as\b)",
            r"^\s*with\s+(?:recursive\s+)?\w+\s+as\s*\(\s*select\b",
            r"^\s*(?:grant|revoke)\s+[\w, ]+\s+on\s+\S+\s+(?:to|from)\s+\S+",
            r"^\s*explain\s+(?:analy[sz]e\s+)?(?:select|insert|update|delete)\b",
            r"^\s*(?:begin\s+transaction|commit|rollback|vacuum(?:\s+analy[sz]e)?)\s*;\s*$",
            r"^\s*pragma\s+\w+(?:\s*=\s*\w+)?\s*;?\s*$",
        )
    ),
    re.I,
)


def sql_reason(text: str) -> str | None:
    """``"an SQL statement"`` for a statement with SQL's structure."""
    first = text.lstrip().split(None, 1)[0].lower() if text.strip() else ""
    return "an SQL statement" if first in _SQL_VERBS and _SQL.search(text) else None


_SQL_VERBS = frozenset(
    "select insert update delete create drop alter truncate with grant revoke explain begin "
    "commit rollback vacuum pragma".split()
)


# -- configuration: YAML, TOML, INI --------------------------------------------------------
# An identifier as programs name keys: snake_case, kebab-case, dotted, camelCase
_IDENT_KEY = r"(?:[a-z][a-z0-9]+(?:[_.][a-z0-9]+)+|[a-z]{2,}[a-z0-9]*(?:[A-Z][a-z0-9]+)+)"
_TYPED = (
    r"(?:true|false|yes|no|null|none|~|-?\d+(?:\.\d+)?(?:e\d+)?|\"[^\"]*\"|'[^']*'|\[(?!\[).*\]"
    r"|\{.*\}|[|>][-+]?)"
)
_CONFIG = LazyPattern(
    "|".join(
        (
            # INI or TOML section: [tool.poetry], [remote "origin"], [[tool.mypy.overrides]]
            # (not [[Sam]], an Obsidian link, nor [to-do], a person's tag)
            r"^\[\[[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)+\]\]$|^\[[A-Za-z_]\w*(?:[._][\w-]+)+\]$"
            r"|^\[[A-Za-z_][\w-]*\s+\"[^\"]+\"\]$",
            # YAML: an identifier key with one value, or none (a parent key)
            rf"^(?:-\s+)?{_IDENT_KEY}:(?!:)(?:\s+(?:\S+|{_TYPED})|\s*)$",
            # YAML: any lower-case key with a typed value ("enabled: true", "tags: [a, b]"); a
            # quoted one is a person's quote ("quote: \"the map is not the territory\"")
            r"^(?:-\s+)?[a-z][a-z0-9]*:(?!:)\s+(?:true|false|null|~|v?\d+\.\d+\.\d+\S*|[a-z][\w./-]*:[\w.-]*\d[\w.-]*|\[(?!\[).*\]"
            r"|\{.*\})\s*$",
            # TOML, INI, .env: an identifier key, or any key with a typed value
            rf"^(?:{_IDENT_KEY}|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s*=\s*\S+\s*$",
            r"^[A-Za-z][\w.-]*\s*=\s*(?:true|false|\[(?!\[).*\]|\{.*\})\s*$",
            r"^export\s+[A-Z][A-Z0-9_]*=\S",
            # a YAML document's own lines
            r"^apiVersion:\s+[\w./-]+\s*$|^(?:metadata|spec):\s*$",
        )
    )
)


def config_reason(text: str) -> str | None:
    """``"a config line"`` for a line of YAML, TOML, INI or ``.env``."""
    t = text.strip()
    if ":" not in t and "=" not in t and not t.startswith("["):
        return None
    return "a config line" if _CONFIG.match(t) else None


# -- JSON, CSV, tables --------------------------------------------------------------------
_JSON_MEMBER = LazyPattern(
    r"^\s*\"[^\"]+\"\s*:\s*(?:\"[^\"]*\"|-?\d[\d.eE+-]*|true|false|null|\[|\{)[^\n]*,?\s*$"
)
_PY_DICT = LazyPattern(r"^\s*\{\s*['\"][\w -]+['\"]\s*:\s*\S.*\}\s*,?\s*$")
_CELL_NUMBER = LazyPattern(r"-?\d+(?:[.,]\d+)?%?")
_CELL_DATE = LazyPattern(r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d)?\S*)?|\d{1,2}/\d{1,2}/\d{2,4}")
_CELL_IDENT = LazyPattern(r"[a-z]+(?:_[a-z0-9]+)+|[a-z]+[A-Z]\w*")
_CELL_EMAIL = LazyPattern(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_CELL_LITERAL = frozenset(("true", "false", "null", "none", "nan", "na", "n/a", "TRUE", "FALSE"))


def _csv(text: str) -> bool:
    """A row of comma, semicolon or tab separated fields that carry a record's values."""
    for sep in (",", ";", "\t"):
        if text.count(sep) < 2:
            continue
        try:
            cells = next(csv.reader([text], delimiter=sep))
        except csv.Error:
            continue
        if len(cells) < 3:
            continue
        if any(c.startswith(" ") for c in cells[1:]):
            continue  # a sentence's commas are followed by a space
        # (csv.reader takes the quotes off: a quoted cell is told from the text itself)
        kinds = set()
        for c in (c.strip().strip('"') for c in cells):
            if not c:
                kinds.add("empty")
            elif _CELL_NUMBER.fullmatch(c):
                kinds.add("number")
            elif _CELL_DATE.fullmatch(c):
                kinds.add("date")
            elif _CELL_IDENT.fullmatch(c):
                kinds.add("ident")
            elif _CELL_EMAIL.fullmatch(c):
                kinds.add("email")
            elif c in _CELL_LITERAL:
                kinds.add("literal")
        quoted = text.count('"') // 2
        if quoted == len(cells):
            return True  # '"name","email","phone"'
        if len(kinds) + (quoted >= 2) >= 2 or "ident" in kinds and len(cells) >= 4:
            return True
    return False


def data_reason(text: str) -> str | None:
    """``"JSON data"``, ``"a CSV row"`` or ``"a table row"``."""
    t = text.strip()
    if t and t[0] in "[{" and t.rstrip(",")[-1:] in ("]", "}"):
        try:
            value = json.loads(t.rstrip(","))
        except ValueError:
            value = None
        if isinstance(value, dict | list) and value:
            return "JSON data"
        if _PY_DICT.match(t):
            return "JSON data"
    if t.startswith('"') and _JSON_MEMBER.match(t):
        return "JSON data"
    if t.startswith("|") and t.endswith("|") and t.count("|") >= 3:
        return "a table row"
    if _csv(t):
        return "a CSV row"
    return None


# -- a hash, an id, a token alone ------------------------------------------------------------
_HASH = LazyPattern(
    r"(?:(?:sha(?:1|256|384|512)|md5|commit|hash|uuid|id|checksum)\s*[:=]?\s*)?"
    r"(?P<body>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|[0-9a-f]{12,}|[0-9A-F]{16,}"
    r"|eyJ[\w-]+\.[\w-]+\.[\w-]*"  # a JWT
    r"|(?P<token>(?:sha\d+-|sk-|pk_|ghp_|gho_|github_pat_|xox[bp]-|AKIA|ASIA)[\w+/=-]{12,})"
    r"|[A-Za-z0-9+/]{20,}={0,2}|[A-Za-z0-9_-]{24,})",
    re.I,
)


def hash_reason(text: str) -> str | None:
    """``"a hash or an id"`` for a hash, a UUID, base64 or a token, alone on the line."""
    t = text.strip().strip("`\"'")
    if len(t) < 12 or t.count(" ") > 1:
        return None
    m = _HASH.fullmatch(t)
    if not m:
        return None
    body = m.group("body")
    if m.group("token"):
        return "a hash or an id"  # a token by its vendor's prefix: "ghp_…", "AKIA…"
    has_digit = any(c.isdigit() for c in body)
    if not any(c.isalpha() for c in body):
        return None  # digits alone are "no words" (noise.py)
    mixed = any(c.isupper() for c in body) and any(c.islower() for c in body)
    hexed = re.fullmatch(r"[0-9a-fA-F-]+", body) is not None
    # a long word is not a token: it needs digits, or both cases, or hex with a digit
    if re.search(r"[a-z]{2,}[-_][a-z]{2,}", body) and not mixed:
        # words joined ("vaultbrain-schema-pack-v1"): a name, unless digits are most of it
        if sum(c.isdigit() for c in body) * 3 < len(body):
            return None
    if has_digit and (hexed or mixed or len(body) >= 24) or mixed and has_digit:
        return "a hash or an id"
    if mixed and body.endswith("=") and len(body) >= 16:  # base64 with its padding
        return "a hash or an id"
    if body.startswith("eyJ") and "." in body:
        return "a hash or an id"
    return None


# -- HTML, XML -------------------------------------------------------------------------------
# Block tags: a line that opens with one is markup. Inline ones ("<b>", "<u>") may wrap a
# person's words, and are markup only with attributes.
_HTML_TAGS = (
    "html head body div p img ul ol li table tr td th thead tbody tfoot form input button "
    "select option textarea label script style link meta br hr h1 h2 h3 h4 h5 h6 section "
    "article nav header footer main aside iframe svg path rect circle canvas video audio "
    "source picture figure figcaption pre blockquote template slot dl dt dd noscript"
).split()
_MARKUP = LazyPattern(
    "|".join(
        (
            r"^<\?xml\b[^>]*\?>|^<\?php\b",
            r"^<!DOCTYPE\s+\w+",
            r"^<!--.*-->$",
            r"^<!\[CDATA\[",
            rf"^</?(?:{'|'.join(_HTML_TAGS)})(?:\s+[^>]*)?/?>",
            # any tag with attributes, a namespace or a closing tag of its own
            r"^<[A-Za-z][\w.-]*(?::[\w.-]+)?(?:\s+[\w:.-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))+\s*/?>",
            r"^<[a-z][\w-]*:[\w.-]+[\s/>]",
            r"^<(?!(?:a|b|i|u|s|em|strong|mark|small|sup|sub|code|span|abbr|time|del|ins|kbd)>)"
            r"([A-Za-z][\w.-]*)>[^<]*</\1>$",
            r"^</[A-Za-z][\w.:-]*>$",
        )
    ),
    re.I,
)


def markup_reason(text: str) -> str | None:
    """``"an HTML or XML tag"`` for a line that opens with markup."""
    t = text.strip()
    return "an HTML or XML tag" if t.startswith("<") and _MARKUP.match(t) else None
