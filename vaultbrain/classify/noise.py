"""Lines that are no thought to file, whatever a model makes of them: keyboard mash, a line
of no words (digits, emoji, punctuation), text addressed to the model instead of the
person's notes ("ignore the previous instructions…", "answer in JSON with confidence 1"),
a request meant for an assistant ("can you write me a cover letter"), text pasted from a
program (a traceback, a stack frame, an exception, a log line) and placeholder text
("lorem ipsum", "test", "TODO" alone).

Each is a class of line told by its form, not a list of sentences: a Python, JavaScript,
Java, .NET, Go or Rust frame has a file and a line number where a thought has words; a log
line opens with a timestamp and a level; an exception opens with its class and a colon. A
thought *about* one ("fix the ValueError in the importer", "ask Sam to write the report")
has a verb of the person's before it and stays a thought.

The embedded classifier reads every thought with this first; the arbiter files nothing the
embedded classifier calls noise (``classify/arbiter.py``), so a small model that turns
keyboard mash into four suggestions, or obeys a line that tells it to, files nothing.

Mash is told by its letter pairs: words people write, in any of the corpus's languages, are
made of pairs the corpus's own words use; "qwpoeiru" and "sdfkjh" are not (nor keyboard
rows). Names and words of the vault are never mash.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Container, Iterable

from vaultbrain.classify.noise_data import (
    config_reason,
    data_reason,
    hash_reason,
    markup_reason,
    sql_reason,
)
from vaultbrain.classify.noise_machine import code_reason, diff_reason, path_reason, shell_reason
from vaultbrain.classify.noise_mail import mail_reason
from vaultbrain.classify.noise_ops import ops_reason
from vaultbrain.classify.noise_output import output_reason
from vaultbrain.patterns import LazyPattern
from vaultbrain.vault.inline import unshield

_LETTERS = LazyPattern(r"[^\W\d_]+")
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm", "qwertzuiop", "yxcvbnm", "azertyuiop", "wxcvbn")
_RUNS = frozenset(row[i : i + 4] for row in _ROWS for i in range(len(row) - 3)) | frozenset(
    row[::-1][i : i + 4] for row in _ROWS for i in range(len(row) - 3)
)
RARE = 2  # a letter pair seen in fewer corpus words than this is unusual


def letter_pairs(words: Iterable[str]) -> frozenset[str]:
    """The letter pairs that ordinary words use (each in at least :data:`RARE` words)."""
    seen: Counter[str] = Counter()
    for w in words:
        if w.isalpha():
            seen.update({w[i : i + 2] for i in range(len(w) - 1)})
    return frozenset(p for p, n in seen.items() if n >= RARE)


def _run3(word: str) -> bool:
    return any(word in row or word in row[::-1] for row in _ROWS)


def _mash(word: str, pairs: frozenset[str]) -> bool:
    """A word no language of the corpus would spell: keyboard rows, or too many letter pairs
    no ordinary word has, or one letter over and over."""
    if len(word) < 4:
        return False
    if any(word[i : i + 4] in _RUNS for i in range(len(word) - 3)):
        return True
    if len(set(word)) <= 2 and len(word) >= 5:
        return True  # "aaaaa", "hjhjhj"
    if not word.isascii():
        return False  # the pairs of accented letters are too few in the corpus to judge
    odd = sum(1 for i in range(len(word) - 1) if word[i : i + 2] not in pairs)
    return odd >= 2 and odd / (len(word) - 1) >= 0.3


def mash_reason(text: str, known: Container[str], pairs: frozenset[str]) -> str | None:
    """``"keyboard mash"`` when most of the words are mash and few are words the corpus or
    the vault knows; ``"no words"`` for a line of digits, emoji or punctuation alone."""
    found = _LETTERS.findall(text)
    if not found:
        return "no words"
    if not pairs:
        return None
    words = [w.lower() for w in found]
    ordinary = sum(1 for w in words if w in known)
    # a capitalised word is a name, however it is spelt ("Krzysztof", "Tadhg")
    mash = sum(
        1
        for raw, w in zip(found, words, strict=True)
        if w not in known and not raw.istitle() and _mash(w, pairs)
    )
    if mash and (not ordinary or mash * 2 >= len(words) and ordinary * 3 <= len(words)):
        return "keyboard mash"
    # a line of three keys in a row and nothing else: "qwe qwe", "asd jkl"
    if all(len(w) == 3 and w not in known and _run3(w) for w in words):
        return "keyboard mash"
    # one key or a few held or hit over and over, a line alone: "aaaaaaa", "asdasdasd" (the
    # vocabulary reads a stretched word as its short form, so it is told here by its shape)
    if len(words) == 1 and _REPEATED.fullmatch(words[0]):
        return "keyboard mash"
    return None


_REPEATED = LazyPattern(r"([^\W\d_])\1{5,}|([^\W\d_]{2,4})\2{2,}")


# -- lines addressed to the model -----------------------------------------------------------
_CUE_WORDS = frozenset(
    "ignore ignoriere ignorieren ignoriert ignorez ignorer ignora ignorar ignorá disregard forget "
    "vergiss oublie oubliez olvida esqueça esqueca override bypass instructions instruction "
    "anweisungen anweisung instrucciones instruções instrucoes consignes prompt prompts system "
    "json confidence assistant classifier destinations jailbreak inst im_start llm chatgpt gpt "
    "ai model modell modèle modelo classify categorise categorize label".split()
)
_INJECTION = [
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,30}?\b(?:"
    r"(?:previous|prior|above|earlier|preceding|your|all|any|these|those|the\s+above)\s+"
    r"(?:\w+\s+)?(?:instructions?|rules|prompts?|guidelines|directions|system\s+prompt)"
    r"|instructions?|prompts?|everything\s+(?:above|before))\b",
    r"\b(?:ignorier\w*|vergiss)\b[^.!?\n]{0,40}?\b(?:anweisung\w*|regeln|prompts?|vorgaben)\b",
    r"\b(?:ignore[rz]?|oublie[rz]?)\b[^.!?\n]{0,40}?\b(?:instructions?|consignes|règles)\b",
    r"\b(?:ignor[aeá]\w*|olvid[ae]\w*)\b[^.!?\n]{0,40}?\b(?:instrucciones|reglas|indicaciones)\b",
    r"\b(?:ignor[ae]\w*|esqueç?c?a)\b[^.!?\n]{0,40}?\b(?:instruções|instrucoes|regras)\b",
    r"\b(?:system\s+prompt|system\s+message|developer\s+mode|jailbreak"
    r"|as\s+an?\s+(?:ai|assistant|(?:large\s+)?language\s+model)"
    r"|you\s+are\s+(?:now\s+)?(?:an?\s+)?(?:ai|assistant|chatgpt|llm|gpt|model"
    r"|(?:large\s+)?language\s+model|(?:\w+\s+)?assistant))\b",
    r"\b(?:respond|reply|answer|output|return|print|write)\b[^.!?\n]{0,30}?\b(?:in\s+json|json\s+only"
    r"|only\s+json|the\s+following\s+json|with\s+json)\b",
    r"\bconfidence\b[^.!?\n]{0,20}?(?:\b1(?:\.0+)?\b|\b100\s*%|\bmax(?:imum)?\b)",
    r"\"?(?:destinations|confidence)\"?\s*:\s*[\[{\d]",
    r"<\|im_start\|>|\[/?INST\]|</?(?:system|assistant)>|###\s*(?:instruction|system)",
    # "disregard the above", "ignore everything before this", "classify this as admin"
    r"\b(?:ignore|disregard)\s+(?:all\s+)?(?:of\s+)?(?:the\s+|what(?:'s|\s+is)\s+)?"
    r"(?:above|previous|prior|earlier|preceding)\b",
    r"\b(?:classify|categori[sz]e|label)\s+(?:this|it|me)\s+as\b",
    r"\b(?:antworte|réponds|responde)\b[^.!?\n]{0,30}?\bjson\b",
]


@functools.cache
def _injection() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in _INJECTION), re.I)


def injection_reason(text: str) -> str | None:
    """``"addressed to the model"`` for a line that instructs the classifier."""
    low = text.lower()
    if _CUE_WORDS.isdisjoint(re.compile(r"[a-zà-ÿ_]+").findall(low)) and "<|" not in low:
        return None
    return "addressed to the model" if _injection().search(text) else None


# -- text pasted from a program ---------------------------------------------------------------
_TRACEBACK = (
    r"\bTraceback \(most recent call last\)",
    r"^\s*File \"[^\"]+\", line \d+",  # a Python frame
    r"\bat\s+(?:async\s+)?[\w$.<>\[\]]+\s+\((?:[^()\s]+):\d+:\d+\)",  # JS: at f (x.js:2:14)
    r"^\s*at\s+(?:[a-z]:|/|\w+://)\S*:\d+:\d+\s*$",  # JS: at /srv/app/index.js:14:9
    r"\bat\s+(?:[\w$.@-]+/)?[\w$]+(?:\.[\w$<>]+)+\((?:[\w$]+\.(?:java|kt|scala|groovy):\d+"
    r"|Native Method|Unknown Source)\)",  # Java: at com.foo.Bar.baz(Bar.java:12)
    r"\bat\s+[\w.`<>]+\([^()]*\)\s+in\s+\S+:line\s+\d+",  # .NET
    r"^\s*Exception in thread \"[^\"]*\"",
    r"^\s*(?:panic: |goroutine \d+ \[)|\bthread '[^']+' panicked at\b",  # Go, Rust
    # an exception as a program prints it: "ValueError: …", "java.lang.NullPointerException"
    r"^\s*(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning|Fault|Interrupt|Exit)"
    r"(?::\s|\s*$|\s+at\b)",
    # one behind a runtime's prefix: "Caused by: java.io.IOException: …", "Unhandled
    # Promise Rejection: SyntaxError: …", "Uncaught (in promise) TypeError: …"
    r"(?::|\))\s+(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception):\s",
    # what a runtime, a compiler or a package manager prints: "fatal error: …",
    # "Segmentation fault (core dumped)", "error[E0382]: …", "npm ERR! …"
    r"^\s*(?:fatal\s+error:\s|(?:error|warning)\[[A-Z]?\d+\]:|npm\s+(?:ERR!|WARN)\s)",
    r"\bSegmentation fault(?: \(core dumped\))?\s*$|^\s*Killed\s*$",
    r"^\s*(?:Uncaught\s+)?(?:[a-z_]\w*\.)+[A-Z]\w*(?:Error|Exception)\b",
    # an exception behind the word a runtime puts before it, with no package: "Uncaught
    # ReferenceError: x is not defined", "Unhandled TypeError: …"
    r"^\s*(?:Uncaught|Unhandled|Uncaught\s+\(in promise\))\s+[A-Z]\w*(?:Error|Exception)\b",
    # a line ending in a source location as a runtime prints it: "… at index.js:88:5"
    r"\bat\s+\S*\.(?:m?js|cjs|jsx|tsx?)(?::\d+){2}\)?\s*$",
    r"\bline \d+, in [<\w>]+",
    # Python's chained exceptions, Java's "... 12 more", .NET's end of a trace
    r"^\s*(?:During handling of the above exception, another exception occurred"
    r"|The above exception was the direct cause of the following exception)",
    r"^\s*\.\.\.\s+\d+\s+more\s*$|^\s*---\s+End of (?:inner exception )?stack trace",
    # .NET with no file: "at MyApp.Billing.Invoice.Post(Int32 id)"
    r"^\s*at\s+[\w`<>]+(?:\.[\w`<>\[\],]+){2,}\([^()]*\)\s*$",
    # Rust: "  3: std::panicking::begin_panic", "at ./src/main.rs:12:5"
    r"^\s*\d+:\s+(?:0x[0-9a-f]+\s+-\s+)?[\w<>]+(?:::[\w<>{}]+)+",
    r"^\s*at\s+\S+\.rs:\d+(?::\d+)?\s*$",
    # Go: "main.go:27 +0x1d", "created by net/http.(*Server).Serve", "main.(*App).Run(…)"
    r"^\s*\S+\.go:\d+(?:\s+\+0x[0-9a-f]+)?\s*$|^\s*created by [\w./()*-]+"
    r"|^\s*[\w./-]+\.\(\*?\w+\)\.\w+\(",
    # Firefox and Safari: "render@http://localhost:3000/main.js:12:34"
    r"^\s*[\w$.<>/]*@\S+:\d+:\d+\s*$",
    # PHP, Ruby, gdb, a crash report's frame
    r"^\s*#\d+\s+\S+\.php\(\d+\):|^\s*PHP\s+(?:Fatal\s+error|Warning|Notice|Parse\s+error"
    r"|Deprecated):|\bin\s+\S+\.php(?::|\s+on\s+line\s+)\d+",
    r"\S+\.rb:\d+:in\s+[`'‘]",
    r"^\s*#\d+\s+0x[0-9a-f]+\s+in\s+\S",
    r"^\s*\d+\s+[\w.+-]+\s+0x[0-9a-f]{8,}\s",
    r"\bFatal error:.*\bfile\s+\S+\.swift,\s+line\s+\d+",
)
_LEVEL = r"(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRITICAL|CRIT|FATAL|SEVERE|PANIC)"
_STAMP = (
    r"(?:\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|\d\d:\d\d:\d\d(?:[.,]\d+)?)"
)
_LOG = (
    # a timestamp and a level, in either order, at the start: "2025-01-07 14:02:19 ERROR …"
    rf"^\W{{0,2}}{_STAMP}\W{{1,3}}(?:\S+\W{{1,3}}){{0,2}}{_LEVEL}\b",
    rf"^\W{{0,2}}{_LEVEL}\W{{1,3}}(?:\S+\W{{1,3}}){{0,1}}\[?{_STAMP}",
    r"^\W{0,2}\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s+\w",
    # a level in brackets, as nginx writes it: "2024/09/18 22:10:05 [error] 31#31: …"
    rf"^\W{{0,2}}{_STAMP}\s+\[(?:emerg|alert|crit|error|warn|notice|info|debug)\]",
    # a level alone with a colon, in capitals: "WARNING: apt does not have …"
    r"^\W{0,2}(?:WARNING|ERROR|FATAL|CRITICAL|DEBUG|TRACE):\s",
    # glog (Kubernetes, Go): "W1103 09:12:44.556677 4412 client.go:88] …"
    r"^[IWEF]\d{4}\s+\d\d:\d\d:\d\d\.\d+\s+\d+\s+[\w./-]+:\d+\]",
    # a web server's access log: 'host - - [12/Mar/2025:07:44:10 +0100] "GET / HTTP/1.1" 200'
    r"^\S+\s+\S+\s+\S+\s+\[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d\s+[+-]\d{4}\]\s+\"[A-Z]+\s",
    # structured logs: JSON with a level or a message first, logfmt
    r'^\s*\{\s*"(?:level|lvl|severity|ts|time|timestamp|msg|message|@timestamp)"\s*:',
    r"^(?:level|lvl|ts|time|t)=\S+(?:\s+\w+=(?:\"[^\"]*\"|\S+)){2,}",
    # syslog: "Dec 03 10:14:22 host process[123]: …"
    r"^[A-Z][a-z]{2}\s+\d{1,2}\s+\d\d:\d\d:\d\d\s+\S+\s+[\w./-]+(?:\[\d+\])?:",
    # a level in brackets first, as Maven writes it: "[INFO] Building jar: …"
    rf"^\[{_LEVEL}\]\s+\S",
    # Python's logging: "WARNING:root:disk almost full"
    r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:",
    # Android's logcat: "05-12 10:14:22.123  1234  5678 E AndroidRuntime: …", "W/Zygote( 12):"
    r"^\d\d-\d\d\s+\d\d:\d\d:\d\d\.\d{3}\s+\d+\s+\d+\s+[VDIWEF]\s+\S",
    r"^[VDIWEF]/[\w.$-]+\s*\(\s*\d+\):",
    # a Unix time and a level: "1712345678.123 WARN …"
    rf"^\d{{10}}(?:\.\d+)?\s+{_LEVEL}\b",
    # a date and a time, then a level in lower case: "2026-03-01 10:14 warn disk at 91%"
    r"^\W{0,2}\d{4}-\d\d-\d\d[T ]\d\d:\d\d\S*\W{1,3}(?:trace|debug|info|notice|warn|warning"
    r"|error|fatal|critical)\b\W",
    # an HTTP request or status line: "GET /api/users?id=3 HTTP/1.1", "HTTP/2 404"
    r"^(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s+(?:/|https?://)\S*\s+HTTP/\d(?:\.\d)?\s*$",
    r"^HTTP/\d(?:\.\d)?\s+\d{3}\b",
)


@functools.cache
def _program() -> tuple[re.Pattern[str], re.Pattern[str]]:
    return (
        re.compile("|".join(f"(?:{p})" for p in _TRACEBACK), re.M),
        re.compile("|".join(f"(?:{p})" for p in _LOG)),
    )


_BARE_EXCEPTION = LazyPattern(r"[a-z](?:Error|Exception)\s*$")
# A program's message with a lower-case label ("warning: LF will be replaced by CRLF in
# src/app.js", "fatal: not a git repository: .git", "Error: Cannot find module 'express'"),
# told from "Error: the invoice total is wrong" by what a program names: a path, a quoted
# name, a dot-file, an errno
_MESSAGE = LazyPattern(
    r"^\W{0,2}(?:error|fatal|warning|warn|hint|err)(?:\[\w+\])?:\s(?=.*(?:\S/\S|\\\w|(?-i:'[a-z_./@-][^'\s]*')"
    r"|`[^`]+`|(?:^|\s)\.[\w-]+\b|(?-i:\bE[A-Z]{3,}\b)|\b[\w-]+\.(?:js|ts|py|json|ya?ml|rs|go|c|h|java"
    r"|rb|php|lock|toml|cfg|ini|sh)\b))",
    re.I,
)


def program_reason(text: str) -> str | None:
    """``"a traceback"`` (a stack frame or an exception included) or ``"a log line"`` for
    text a program printed, pasted into the inbox."""
    if not any(c in text for c in ':()[]"=!#.-') and not _BARE_EXCEPTION.search(text):
        return None  # every form below has one: most thoughts are done here
    traceback, log = _program()
    if log.search(text):
        return "a log line"
    if traceback.search(text):
        return "a traceback"
    if _MESSAGE.search(text):
        return "a program's output"
    return None


# -- a request meant for an assistant ------------------------------------------------------
# "can you write me…", "please summarise the following…": the person asks a chat assistant
# to produce text. A thought about asking someone ("ask Sam to write the report") names who.
_MAKE = (
    r"(?:write|draft|generate|create|compose|summari[sz]e|rewrite|rephrase|paraphrase|"
    r"translate|proofread|explain|outline|list|brainstorm|suggest|give|tell|make|produce)"
)
_ASSISTANT = (
    rf"^\W*(?:(?:hey|hi|ok|okay|so)\W+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?{_MAKE}"
    r"\b(?:\s+(?:me|us)\b)?",
    rf"^\W*(?:please\s+)?{_MAKE}\b[^.!?\n]{{0,60}}\b(?:the\s+following|the\s+text\s+below"
    r"|the\s+above|this\s+text|in\s+(?:\w+\s+)?bullet\s+points|in\s+\d+\s+words|in\s+a\s+table"
    r"|step\s+by\s+step)\b",
    # "can you help me write an email to my landlord"
    r"^\W*(?:(?:hey|hi|ok|okay|so)\W+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?help\s+me\s+"
    rf"{_MAKE}\b",
    # "act as a Linux terminal", "pretend you are a pirate"; not "act as treasurer for the
    # PTA" (a role the person takes on)
    r"^\W*(?:please\s+)?(?:act|behave)\s+(?:as|like)\s+(?:an?|my)\s+[\w-]+(?:\s+(?!(?:for|to|with|at|in|on|of|by)\b)[\w-]+){0,2}"
    r"(?:\s*[,:.]|\s+(?:and|who|that|from\s+now)\b|\s*$)"
    r"|^\W*(?:please\s+)?pretend\s+(?:you\s+are|you're|to\s+be)\s+(?:an?\s+)?\w+",
    # "tell me a joke", "give me ten names for…", "write me…": what the person asks of a
    # chat assistant, not what they note for themselves
    rf"^\W*(?:please\s+)?{_MAKE}\s+(?:me|us)\s+(?:a|an|some|\d+|ten|five|three|\w+\s+(?:ideas|names))\b",
    r"^\W*(?:please\s+)?(?:translate|summari[sz]e|rephrase|paraphrase|proofread|reword)"
    r"\s+(?:this|these|that|the\s+following|the\s+(?:\w+\s+)?below)\b",
    r"\b(?:explain|describe)\b[^.!?\n]{0,60}\blike\s+i'?m\s+(?:five|5|a\s+child)\b|\beli5\b",
    # a wake word: "hey siri …", "ok google …", "alexa, …"
    # (Alexa and Claude are people's names too: the wake word is one only before a request)
    r"^\W*(?:dear\s+(?:chatgpt|gpt|copilot)\b|(?:hey|ok|okay|hi)\s+(?:siri|google|alexa"
    r"|cortana|chatgpt|claude|gemini|copilot)(?:\s*,|\s+(?:set|play|add|what|what's|how|who|when"
    r"|where|which|why|remind|turn|call|tell|show|open|find|text|send|write|make|give|can|could"
    r"|please|start|stop|read|translate|summari[sz]e|explain)\b)"
    r"|(?:siri|alexa|cortana|chatgpt|claude|gemini|copilot)\s*,"
    r"|(?:hey|ok|okay|hi)\s+assistant\b"
    # names that are no person's: a request may follow with no comma ("siri what time is it")
    r"|(?:siri|cortana|chatgpt|copilot)\s+(?:set|play|add|what|what's|how|who|when|where|which"
    r"|why|remind|turn|call|tell|show|open|find|text|send|write|make|give|can|could|please)\b)",
    # "tell me about the history of rome", "tell me a fun fact"
    r"^\W*(?:please\s+)?tell\s+me\s+(?:about\s+(?!it\b|that\b|this\b)|how\b|why\b|a\s+(?:joke|story"
    r"|fact|fun\s+fact|riddle)"
    r"|(?:some|\d+|a\s+few)\s+(?:facts|jokes|things))\b",
    # "make this sound more professional", "rewrite this: …", 'translate "good morning" to …'
    r"^\W*(?:please\s+)?(?:make|rewrite|rephrase|reword)\s+this\s+(?:sound|read)\s+(?:more|less)\s+\w+",
    r"^\W*(?:please\s+)?(?:rewrite|rephrase|paraphrase|proofread|reword|summari[sz]e|translate)"
    r"\s+(?:this|the\s+following)\s*:",
    r"^\W*(?:please\s+)?translate\s+[\"“'].+[\"”']\s+(?:in)?to\s+\w+",
    # what a person types into a chat window and nowhere else
    r"^\W*(?:continue|regenerate(?:\s+response)?|try\s+again|keep\s+going|stop\s+generating"
    r"|thanks?,?\s+(?:chatgpt|claude|gemini|copilot))\W*$",
    r"^\W*you\s+are\s+an?\s+(?:expert|professional|experienced|senior|world[- ]class)\s+[\w ]{2,40}"
    r"[.,:]\s*(?:now\s+)?(?:write|create|generate|give|draft|help|your\s+(?:task|job))\b",
    r"\bas\s+an?\s+(?:ai|assistant|(?:large\s+)?language\s+model)\b",
    r"^\W*you\s+are\s+(?:now\s+)?(?:chatgpt|claude|gemini|copilot|an?\s+(?:ai|assistant|\w+\s+assistant))\b",
    # a task set on text that is not there: "proofread this paragraph:", "fix the following
    # code", "translate: …"
    r"^\W*(?:please\s+)?(?:fix|correct|improve|shorten|simplify|check|review|debug|optimi[sz]e"
    r"|refactor|rewrite|summari[sz]e|translate|proofread)\s+(?:the\s+\w+\s+(?:in|of)\s+)?"
    r"(?:this|the\s+following)\s+(?:code|text|paragraph|email|sentence|essay|function|script"
    r"|snippet|query|regex|passage|article)\s*:",
    r"^\W*(?:translate|rephrase|paraphrase|proofread|reword)(?:\s+(?:this|it))?(?:\s+(?:in)?to"
    r"\s+\w+)?\s*:\s*\S",
    # a question for a search box: "what is the capital of peru", "who won the 1966 world cup"
    r"^\W*(?:what|who|which|how\s+(?:tall|far|old|big|many|much))\s*(?:is|was|are|were|'s)?\s+"
    r"(?:the\s+)?(?:capital|population|height|boiling\s+point|square\s+root|speed|distance"
    r"|plural|synonym|opposite|definition|meaning)\s+(?:of|for|between)\s+[^.!]{1,60}\?*\s*$",
    # "please write a haiku about coffee": please, then a piece of writing asked for
    r"^\W*please\s+(?:write|generate|create|compose|draft)\s+(?:me\s+)?an?\s+(?:\w+\s+)?(?:poem"
    r"|haiku|limerick|story|essay|song|joke|summary|paragraph|tweet|bio|function|script|program"
    r"|regex|query|class|snippet)\s+(?:about|that|which|on|explaining|describing)\b",
    # "write a python function that reverses a string": code asked for, by what it does
    r"^\W*(?:please\s+)?write\s+(?:me\s+)?an?\s+(?:python|javascript|js|typescript|ts|bash|shell"
    r"|sql|rust|go|java|c\+\+|c#|php|ruby|swift|kotlin|powershell)\s+(?:function|class|method|regex"
    r"|one-liner|snippet|query)\s+(?:that|which)\b",
    r"^\W*(?:please\s+)?generate\s+(?:me\s+)?an?\s+(?:image|picture|photo|illustration|logo"
    r"|drawing|video)\s+of\b",
)


@functools.cache
def _assistant() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in _ASSISTANT), re.I)


def assistant_reason(text: str) -> str | None:
    """``"addressed to an assistant"`` for a request meant for a chat assistant."""
    return "addressed to an assistant" if _assistant().search(text) else None


# -- placeholder text ----------------------------------------------------------------------
_PLACEHOLDER_WORDS = frozenset(
    "test tests testing tester asdf asdfasdf asdfgh qwerty qwertz azerty todo tbd tba xxx xx "
    "foo bar baz qux foobar placeholder dummy sample lorem ipsum blah bla hello world "
    "abc abcd abcdef xyz 1 2 3 4 12 123 1234 12345 one two three check ping placeholder filler "
    "fixme tbc text here".split()
)
# lorem ipsum's own words (not "sit", "et", "ut", which other languages write)
_LOREM = frozenset(
    "lorem ipsum dolor amet consectetur consectetuer adipiscing adipisicing elit eiusmod "
    "tempor incididunt labore dolore aliqua veniam nostrud exercitation ullamco laboris "
    "nisi aliquip commodo consequat".split()
)
_LOREM_MORE = frozenset(
    "perspiciatis voluptatem accusantium doloremque laudantium inventore veritatis architecto "
    "beatae explicabo aspernatur consequuntur nesciunt quisquam adipisci quaerat voluptate "
    "cillum fugiat pariatur excepteur occaecat cupidatat proident deserunt mollit laborum "
    "reprehenderit voluptatibus blanditiis praesentium deleniti".split()
)
_FILLER = re.compile(
    r"^\W*lorem\s+ipsum\b|^\W*the\s+quick\s+brown\s+fox\s+jumps\s+over\s+the\s+lazy\s+dog\W*$"
    # "your text here", "insert title here", "sample text", "[Your Name]", "text goes here"
    r"|^\W*(?:(?:your|insert|enter|type|add|some|sample|placeholder|dummy)\s+)+(?:\w+\s+)?"
    r"(?:text|copy|content|title|heading|description|caption|name|value|message|email|address)"
    r"(?:\s+goes)?\s+here\W*$|^\W*(?:text|copy|content)\s+goes\s+here\W*$"
    r"|^\W*click\s+here\s+to\s+(?:add|edit|enter|insert|type)\s+(?:text|a\s+title|content|your)\b"
    r"|^\W*your\s+(?:name|title|company|email|address|phone(?:\s+number)?)\W*$"
    r"|\banytown\b|^\W*[\w.+-]+@example\.(?:com|org|net)\W*$"
    r"|^\W*(?:sample|placeholder|dummy|filler)\s+(?:text|content|copy|title|data|value|heading)"
    r"(?:\s+here)?\W*$|^\W*\[(?:your|insert|enter|company|first|last|full|recipient|client)"
    r"\b[^\]]*\]\W*$",
    re.I,
)
_TOKENS = re.compile(r"[^\W_]+")


def placeholder_reason(text: str) -> str | None:
    """``"placeholder text"`` for lorem ipsum, or a line of only placeholder words ("test",
    "asdf", "TODO", "test test 123", "foo bar")."""
    if _FILLER.search(text):
        return "placeholder text"
    words = _TOKENS.findall(text.lower())
    if (
        len((_LOREM | _LOREM_MORE).intersection(words)) >= 2
    ):  # "dolor sit amet…" cut from the middle
        return "placeholder text"
    if words and len(words) <= 6 and all(w in _PLACEHOLDER_WORDS for w in words):
        # "one two three", "hello world": a microphone check is placeholder only with a test
        plain = ("one", "two", "three", "hello", "world", "check", "ping", "text", "here")
        if any(w.isalpha() and w not in plain for w in words):
            return "placeholder text"
    return None


def noise_reason(text: str, known: Container[str], pairs: frozenset[str]) -> str | None:
    """Why ``text`` is no thought to file, or None. ``text`` may come shielded (the capture
    hands the embedded classifier its spans as stand-ins, vault/inline.py): what a program
    printed or a machine wrote is judged on the characters themselves, code spans, autolinks
    and URLs included ("From: Ana <ana@x.org>")."""
    plain = unshield(text)
    if plain.startswith("`") and plain.endswith("`") and plain.count("`") == 2:
        plain = plain[1:-1]  # a line that is one code span: what is in it
    return (
        injection_reason(text)
        or program_reason(plain)
        or machine_reason(plain)
        or assistant_reason(text)
        or placeholder_reason(text)
        or mash_reason(text, known, pairs)
    )


def machine_reason(text: str) -> str | None:
    """Why ``text`` is machine text other than a program's output (classify/noise_mail.py,
    noise_machine.py, noise_data.py, noise_ops.py), or None."""
    return (
        mail_reason(text)
        or output_reason(text)
        or diff_reason(text)
        or shell_reason(text)
        or code_reason(text)
        or sql_reason(text)
        or config_reason(text)
        or data_reason(text)
        or markup_reason(text)
        or hash_reason(text)
        or ops_reason(text)
        or path_reason(text)
    )
