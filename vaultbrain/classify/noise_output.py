"""What a program prints at a terminal, pasted into the inbox (classify/noise.py's classes of
machine text): a shell's or a tool's error behind the program's name, a test runner's,
a compiler's, a package manager's and git's status lines, how a process ended, a value a
program printed alone (``undefined``, ``NaN``, ``#DIV/0!``), a timestamp alone.

Each is told by the form the program gives it, not by its words: the program's name and a
colon before the message ("ls: cannot access 'x': No such file or directory"), a count and a
duration ("3 failed, 120 passed in 4.21s"), a package and its version ("Successfully
installed requests-2.31.0"), a hash in brackets ("[main 3f2a9c1] fix typo"). "Permission
denied for the loft conversion, appeal" names no program: a thought.
"""

from __future__ import annotations

from vaultbrain.classify.noise_machine import PROGRAMS, WORD_PROGRAMS
from vaultbrain.patterns import LazyPattern

_SHELLS = frozenset("bash zsh sh fish ksh dash csh tcsh pwsh powershell cmd".split())
# What the C library says of a failed call, as programs print it after their name
_STRERROR = (
    r"(?:No such file or directory|Permission denied|command not found|Operation not permitted"
    r"|Is a directory|Not a directory|Connection refused|Address already in use|File exists"
    r"|No space left on device|Broken pipe|Read-only file system|Device or resource busy"
    r"|Too many open files|Resource temporarily unavailable|Connection timed out"
    r"|cannot access|cannot open|cannot stat|cannot create|invalid option|unrecognized option"
    r"|missing operand|not found|is not a \w+ command|\*\*\*)"
)
_PREFIXED = LazyPattern(r"^-?([\w.+-]+)(?:\[\d+\])?:\s+(.*)$")
_ERRNO = LazyPattern(_STRERROR)

_OUTPUT = LazyPattern(
    "|".join(
        (
            # test runners: pytest, jest, unittest
            r"^(?:FAILED|ERROR|PASSED|XFAIL|XPASS|SKIPPED)\s+\S+::\S+",
            r"^=*\s*\d+\s+(?:failed|passed|errors?|skipped|warnings?|xfailed|xpassed|deselected)"
            r"(?:,\s+\d+\s+(?:failed|passed|errors?|skipped|warnings?|xfailed|xpassed|deselected))*"
            r"\s+in\s+[\d.]+s\b",
            r"^(?:PASS|FAIL)\s+\S+\.(?:test|spec)\.[cm]?[jt]sx?\b",
            r"^Tests?:\s+\d+\s+(?:failed|passed|skipped|todo)\b.*\btotal\b",
            r"^Ran\s+\d+\s+tests?\s+in\s+[\d.]+s\s*$",
            r"^E\s+(?:[\w.]+(?:Error|Exception)\b|assert\b)",
            # compilers and build tools: tsc, make, cargo, docker
            r"\berror\s+TS\d{4}:",
            r"^make(?:\[\d+\])?:\s+\*\*\*",
            r"^(?:Compiling|Finished|Checking|Downloaded|Documenting|Packaging|Installing"
            r"|Installed|Fresh)\s+\S+\s+v\d+\.\d+",
            r"\btarget\(s\)\s+in\s+[\d.]+s\b",
            r"^Step\s+\d+/\d+\s*:\s*[A-Z]+\b",
            r"^Successfully\s+(?:built|tagged)\s+\S+\s*$",
            # package managers: pip, npm
            r"^Successfully\s+(?:installed|uninstalled)\s+[\w.-]+-\d",
            r"^Requirement already satisfied:\s",
            r"^Installing collected packages:\s",
            r"^(?:Collecting|Downloading|Using cached)\s+[\w.-]+(?:[<>=!~]=?[\w.*]+|\.(?:whl|tar\.gz)"
            r"|-\d\S*)(?:\s+\(.*\))?\s*$",
            r"^(?:added|removed|changed)\s+\d+\s+packages?(?:,?\s+(?:and\s+)?(?:added|removed"
            r"|changed|audited)\s+\d+\s+packages?)*\s+in\s+[\d.]+m?s\s*$",
            r"^up to date,\s+audited\s+\d+\s+packages?",
            r"^found\s+\d+\s+(?:\w+\s+)?vulnerabilit(?:y|ies)(?:\s*\(.*\))?\s*$",
            # git
            r"^Cloning into '[^']+'\.\.\.\s*$",
            r"^remote:\s+(?:Counting|Compressing|Enumerating|Total)\b",
            r"^\s*\*\s+\[new (?:branch|tag)\]\s+\S+\s+->\s+\S+",
            r"^(?:Already up to date\.|nothing to commit, working tree clean"
            r"|nothing added to commit but untracked files present)\s*$",
            r"^Your branch is (?:up to date with|ahead of|behind) '[\w/.-]+'",
            r"^\[[\w./-]+(?: \(root-commit\))? [0-9a-f]{7,}\]\s",
            r"^\d+ files? changed(?:, \d+ insertions?\(\+\))?(?:, \d+ deletions?\(-\))?\s*$",
            r"^Switched to (?:a new )?branch '[^']+'\s*$|^HEAD is now at [0-9a-f]{7,}\b",
            # how a process ended
            r"^Process finished with exit code -?\d+\s*$",
            r"^\[Done\] exited with code=-?\d+",
            r"^Press any key to continue\b",
            r"^(?:Killed|Aborted|Terminated|Segmentation fault|Bus error|Illegal instruction"
            r"|Floating point exception)(?: \(core dumped\))?\s*$",
            r"^Permission denied \((?:publickey|password|keyboard-interactive)[^)]*\)\.?\s*$",
            r"^Exception has occurred:\s+[\w.]+",
            # a browser's error code
            r"^(?:net::)?ERR_[A-Z][A-Z_]+\s*$",
        )
    )
)
# A value a program printed alone: "undefined", "NaN", "[object Object]", "#DIV/0!"
_VALUE = LazyPattern(
    r"(?:undefined|null|NaN|\[object Object\]|#(?:DIV/0!|N/A|REF!|VALUE!|NAME\?|NUM!|NULL!"
    r"|SPILL!|CALC!))"
)
_STAMP = LazyPattern(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?|\d{10}(?:\.\d{3,})?"
)


# Every form of _OUTPUT has a digit or one of these marks, or opens with one of these words
_MARKS = frozenset("0123456789:[*'=_/.")
_BARE_STARTS = frozenset(
    "Killed Aborted Terminated Segmentation Bus Illegal Floating Already nothing Press PASS "
    "FAIL Your Switched ERR_".split()
)


def output_reason(text: str) -> str | None:
    """``"a program's output"`` for what a program printed at a terminal, or None."""
    t = text.strip()
    if not t:
        return None
    if (any(c in t for c in _MARKS) or t.split(None, 1)[0] in _BARE_STARTS) and _OUTPUT.search(t):
        return "a program's output"
    if (t[0] in "u#n[N" or t[0].isdigit()) and (_VALUE.fullmatch(t) or _STAMP.fullmatch(t)):
        return "a program's output"
    if ":" not in t:
        return None
    m = _PREFIXED.match(t)
    if m:
        prog, rest = m.group(1).lower(), m.group(2)
        # the program's name, then the C library's words for what failed: "bash: gti:
        # command not found", "make: *** [build] Error 1"; not "bash: Sam's 40th on saturday"
        known = prog in _SHELLS or prog in PROGRAMS or prog in WORD_PROGRAMS
        if known and _ERRNO.search(rest):
            return "a program's output"
    return None


__all__ = ["output_reason"]
