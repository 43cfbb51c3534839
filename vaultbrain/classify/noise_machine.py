"""Machine text pasted into the inbox (classify/noise.py's classes): a line of a diff, a shell
prompt or a command, a line of code, a path alone, SQL, a line of YAML, TOML or INI, JSON, a
CSV or table row, a hash, a UUID or a token alone, an HTML or XML tag.

Each is told by evidence of its shape, which a thought does not have: a diff line is ``+`` or
``-`` then code (a call with a dot, a statement's ``;``, a block's brace, a comparison), never
"+1 to Sam's idea"; a prompt is ``user@host:path$`` or a prompt sign then a program's name,
never "$50 for the trip" or "> remember to water the plants"; a path is the whole line; SQL
has a statement's structure (``SELECT cols FROM table`` with a ``*``, a column list, a
``WHERE`` with an operator, a ``;``), never "SELECT a venue for the party"; a config line's
key is an identifier (``max_retries``) or its value typed (``true``, ``"…"``, ``[…]``), never
"C: call the bank" or "Note: buy milk".
"""

from __future__ import annotations

import re

from vaultbrain.patterns import LazyPattern

# -- code ------------------------------------------------------------------------------------
# Strong evidence that a text is code, any one enough: a call on a dotted name, a call with a
# quoted or no argument, a statement's end, a block's brace, an operator no prose uses, a
# block opener ending in a colon, a definition, an import.
_CODE = LazyPattern(
    "|".join(
        (
            r"\b[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\s*\(",  # self._cache.get(
            r"\b[A-Za-z_$][\w$]*\((?:\)|\s*['\"`])",  # f() / print("x")
            r"\b(?:self|this|cls)\.[A-Za-z_]",
            # a statement's end after a call, a block's brace ("…and Dataview;" is prose)
            r"\w\([^()]*\)\s*;\s*$|^\s*[}\])]\s*[;,)]?\s*(?:else\b.*)?$|\{\s*$",
            r"(?:===?|!==?|&&|\|\||\+=|-=|\*=|/=|:=|>>=)",
            r"^\s*(?:if|elif|else|for|while|try|except|finally|with|def|class|switch|case)\b"
            r"[^:]*:\s*$",
            r"^\s*(?:def|function|func|fn|async\s+def|async\s+function)\s+[A-Za-z_]\w*\s*\(",
            r"^\s*(?:public|private|protected|internal)\s+(?:static\s+|final\s+|async\s+)*\w+",
            r"^\s*(?:const|let|var|auto|val)\s+[A-Za-z_$][\w$]*\s*(?::\s*\w+\s*)?=",
            r"^\s*(?:import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+)*|from\s+[\w.]+\s+import"
            r"\s+[\w*, ()]+|#include\s*[<\"]|using\s+[\w.]+;|package\s+[\w.]+;?|require\(|"
            r"use\s+[\w:]+(?:::\{?[\w, ]+\}?)?;)\s*$",
            r"^\s*(?:return|raise|throw|yield|await)\s+(?:new\s+)?[A-Za-z_$][\w$.]*(?:\(|\[|;|$)"
            r"(?=.*[(\[;.])",
            r"\b[A-Za-z_]\w*\[[\w'\"]+\]\s*=",  # d["k"] =
            r"^\s*(?:#|//|/\*|\*/|--)\s*(?:noqa|type:|eslint|pragma|TODO\(|FIXME\b|-\*-)",
        )
    )
)


def code_like(text: str) -> bool:
    """Whether ``text`` carries code's own shape (any of :data:`_CODE`'s forms)."""
    return _CODE.search(text) is not None


_DIFF = LazyPattern(
    r"^(?:@@\s+-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s+@@|diff\s+--git\s+\S+\s+\S+"
    r"|index\s+[0-9a-f]{6,}\.\.[0-9a-f]{6,}(?:\s+\d{6})?\s*$|(?:---|\+\+\+)\s+(?:[ab]/\S+|/dev/null)"
    r"|(?:new|deleted)\s+file\s+mode\s+\d{6}\s*$|similarity\s+index\s+\d+%\s*$"
    r"|\\ No newline at end of file\s*$)"
)
_DIFF_STARTS = ("+", "-", "@@", "diff ", "index ", "new file", "deleted file", "similarity", "\\")
_DIFF_LINE = LazyPattern(r"^([+-])(?![\d+-])\s*(\S.*)$")


def diff_reason(text: str) -> str | None:
    """``"a diff line"``: a hunk header, a file header, or ``+``/``-`` then code."""
    if not text.startswith(_DIFF_STARTS):
        return None
    if _DIFF.match(text):
        return "a diff line"
    m = _DIFF_LINE.match(text)
    if m and code_like(m.group(2)):
        return "a diff line"
    return None


def code_reason(text: str) -> str | None:
    """``"a line of code"`` for a statement on its own, told by code's shape at its start."""
    if not any(c in text for c in "(){};=:<") and not text.lstrip().startswith(
        ("import ", "from ")
    ):
        return None  # every form of _CODE_LINE has one
    return "a line of code" if _CODE_LINE.match(text) else None


_CODE_LINE = LazyPattern(
    "|".join(
        (
            r"^\s*(?:def|function|func|fn|async\s+def|async\s+function)\s+[A-Za-z_]\w*\s*\(.*"
            r"[):{]\s*$",
            r"^\s*(?:const|let(?:\s+mut)?|var)\s+[A-Za-z_$][\w$]*\s*(?::\s*[\w<>\[\]]+\s*)?=\s*\S.*;?\s*$",
            # a block opened by Python's keywords, with code in it: "for i in range(10):",
            # "with open(path) as f:", "class Store(Base):", "except KeyError as e:", "else:"
            r"^\s*(?:if|elif|for|while|with|async\s+with|async\s+for)\s+.*(?:\w\(|\w\[|==|!=|<=|>="
            r"|\bis\s+not\b|\bnot\s+in\b).*:\s*$",
            r"^\s*class\s+[A-Z]\w*\s*(?:\([\w., =]*\))?\s*:\s*$|^\s*(?:else|try|finally)\s*:\s*$"
            r"|^\s*except(?:\s+[\w.]+(?:\s+as\s+\w+)?|\s*\([\w., ]+\)(?:\s+as\s+\w+)?)?\s*:\s*$",
            # C and its kin: "int main(void) {", "static char *name(int n);"
            r"^\s*(?:static\s+|inline\s+|extern\s+|const\s+|unsigned\s+)*(?:int|void|char|float"
            r"|double|bool|long|short|size_t|uint\d+_t|int\d+_t)\s+\**\w+\s*\([^)]*\)\s*[{;]?\s*$",
            r"^\s*export\s+(?:default\s+)?(?:function|class|const|let|async|interface|type)\b"
            r"|^\s*export\s+default\s+\w+\s*;?\s*$",
            # CSS: a rule, or a property whose value is CSS's own ("color: #333;", "margin: 0 4px;")
            r"^\s*[.#@]?[\w-]+[^{}]*\{\s*[\w-]+\s*:[^}]*\}?\s*$",
            r"^\s*[a-z]+(?:-[a-z]+)*\s*:\s*[^;]{0,60}(?:#[0-9a-fA-F]{3,8}\b|\d+(?:px|em|rem|vh|vw|pt)\b"
            r"|rgba?\(|var\(--)[^;]{0,60};\s*$",
            r"^\s*(?:public|private|protected)\s+(?:static\s+|final\s+|async\s+)*[\w<>\[\]]+"
            r"\s+\w+\s*[({=;]",
            r"^\s*(?:import\s+[\w.]+(?:\s+as\s+\w+)?;?|from\s+[\w.]+\s+import\s+[\w*, ()]+"
            r"|#include\s*[<\"]\S+[>\"]|using\s+[\w.]+;|package\s+[\w.]+;)\s*$",
            # a statement that is a call: console.log("x"); / print(f"{x}") / os.exit(1)
            r"^\s*(?:await\s+)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\(.*\)\s*;?\s*$",
            r"^\s*[A-Za-z_$][\w$]*\((?:\s*['\"`].*|\s*)\)\s*;?\s*$",
            r"^\s*(?:return|raise|throw)\s+(?:new\s+)?[A-Za-z_$][\w$]*(?:\.[\w$]+)*\(.*\)\s*;?\s*$",
            r"^\s*(?:if|while|for)\s*\(.*\)\s*\{\s*$",
            r"^\s*[A-Za-z_$][\w$]*(?:\.[\w$]+|\[[^\]]+\])+\s*(?:=|\+=|-=)\s*\S.*;\s*$",
            r"^\s*(?:self|this)\.\w+\s*=\s*\S",
            # a statement opened by a keyword, with code's own evidence after it: "if not
            # user: raise ValueError(\"no user\")" (a diff's "- " read as a list marker)
            r"^\s*(?:if|elif|else|for|while|try|except|with|return|raise|throw|yield|await|assert"
            r"|unless|until|match|case)\b(?=.*(?:\b[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\s*\("
            r"|\b[A-Za-z_$][\w$]*\((?:\)|\s*['\"`])|\b(?:self|this)\.\w|[)\]'\"]\s*;\s*$|\{\s*$|===?|!==?|&&"
            r"|\|\|))",
            # an assignment from a call: "rows = db.fetch_all(query)", "x = load('a.csv')"
            r"^\s*[a-z_][\w]*(?:\s*,\s*[a-z_]\w*)*\s*=\s*(?:await\s+)?(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*"
            r"\(.*\)\s*;?\s*$|^\s*[a-z_]\w*\s*=\s*[A-Za-z_]\w*\((?:\)|\s*['\"]).*\)\s*;?\s*$",
            r"^\s*\}\s*(?:else\s*(?:if\s*\(.*\)\s*)?\{|catch\s*\(.*\)\s*\{|\)\s*;?)?\s*$",
        )
    )
)

# -- shell -------------------------------------------------------------------------------------
# Programs whose names are no English word: after a prompt, or at the start of a line with a
# command's arguments, they are a command.
_PROGRAMS = frozenset(
    "git gh svn npm npx pnpm yarn pip3 pipx python python3 ipython nodejs deno cargo rustc "
    "rustup gcc g++ clang cmake docker docker-compose podman kubectl k9s terraform "
    "ansible-playbook ssh scp sftp rsync curl wget sudo apt-get apt-cache dpkg dnf pacman "
    "winget systemctl journalctl ls mkdir rmdir chmod chown chgrp grep egrep rg fgrep awk gawk "
    "sed gunzip unzip 7z bzip2 pkill killall htop ifconfig ipconfig netstat nslookup traceroute "
    "tracert nmap virtualenv pytest mvn javac xcodebuild xcrun adb fastboot nvim psql mysql "
    "mysqldump sqlite3 mongosh redis-cli ffmpeg ffprobe yt-dlp youtube-dl openssl gpg ssh-keygen "
    "gcloud heroku jq yq chsh bash zsh pwsh powershell tmux crontab lsof strace gdb lldb "
    "valgrind mkfs umount fdisk lsblk dmesg uname whoami hostname ufw iptables certbot "
    "apachectl pm2 nohup xargs xcopy robocopy tasklist taskkill wsl mklink".split()
)
# Programs whose names are also words or names ("ruby", "make", "helm", "ps"): a command
# only with a command's arguments.
_WORDS = frozenset(
    "make cat find sort touch kill top less more which head tail cut date time file open echo "
    "say watch type history clear exit man help who env set read test sleep wait join paste "
    "split tee wc diff patch go node run code ping dig host print start stop mount ruby perl "
    "java swift dart gem bundle rails rake hugo jekyll fish screen source alias export copy del "
    "dir snap brew scoop black poetry tox uv nano vim emacs helm vagrant ps cp mv rm ln cd su "
    "sh py pip apt yum conda aws az php composer dotnet flutter gradle vercel netlify firebase "
    "nginx mypy ruff eslint prettier tsc webpack vite tar gzip xz df du lldb cmd cls sfc dism "
    "bun npx".split()
)
# Programs run with a subcommand ("git push origin main", "docker compose up"): a command on
# a line alone, even with no argument of a command's shape.
_TOOLS = frozenset(
    "git gh npm pnpm pip pip3 pipx cargo rustup docker docker-compose podman kubectl terraform "
    "apt apt-get dnf yum pacman conda poetry dotnet mvn gradle composer systemctl journalctl "
    "gcloud heroku vercel firebase flutter brew yarn".split()
)
_SUBCOMMANDS = frozenset(
    "install add remove uninstall update upgrade run build test push pull commit clone checkout "
    "switch status init start stop restart exec logs ps apply deploy get describe delete create "
    "list ls show log diff merge rebase fetch reset stash tag branch login logout publish audit "
    "ci config compose up down plan destroy search info version outdated enable disable reload "
    "rollout scale images rmi prune freeze lock sync".split()
)
_ARG = LazyPattern(
    r"(?:^|\s)(?:--?[A-Za-z][\w-]*(?:=\S*)?|(?:~|\.{1,2})?/[\w.~-][\w./~*-]*|[\w.~-]+/[\w./~*-]+"
    r"|\.{1,2}|[A-Z_][A-Z0-9_]*=\S*"
    r"|\|{1,2}|&&|>{1,2}|<|2>&1|\*\.\w+|[\w-]+\.(?:py|js|ts|sh|json|ya?ml|toml|txt|md|conf"
    r"|cfg|ini|log|csv|sql|tar|gz|zip|c|h|cpp|go|rs|rb|php|java|html|css|lock|env|exe|dll))"
    r"(?=\s|$)"
)
_PROMPT = LazyPattern(
    "|".join(
        (
            r"^(?:\([\w.-]+\)\s+)?[\w.-]+@[\w.-]+:[~/][^\s$#%>]*\s*[$#%>](?:\s+\S|\s*$)",
            r"^(?:\([\w.-]+\)\s+)?\[[\w.-]+@[\w.-]+\s+[^\]]+\][$#%](?:\s+\S|\s*$)",
            r"^(?:\([\w.-]+\)\s+)?[\w.-]+@[\w.-]+\s+[~/][^\s$#%>]*\s*[$#%](?:\s+\S|\s*$)",
            r"^PS\s+[A-Za-z]:\\[^>]*>(?:\s*\S|\s*$)",
            # oh-my-zsh: "➜  blog git:(main) ✗ hugo server"
            r"^[➜❯]\s+[\w.~/-]+\s+git:\([^)\s]+\)",
            r"^[A-Za-z]:\\[^>\s]*(?:\\[^>\\]*)*>\s*[A-Za-z]",
            r"^(?:In\s+\[\d+\]:|Out\[\d+\]:|irb\(main\):\d+:\d+>|(?:mysql|sqlite|postgres\w*|psql"
            r"|mongo|redis[\w.:-]*)[=>#-]*[>#])\s+\S",
        )
    )
)
_PROMPT_STARTS = (
    "PS", "In [", "Out[", "irb", "mysql", "sqlite", "postgres", "psql", "mongo", "redis", "➜", "❯",
)  # fmt: skip
_SIGN = LazyPattern(r"^(?:\([\w.-]+\)\s+)?(>>>|\.\.\.|PS>|[$#%>❯➜λ])\s*(?<=\s|>)(\S+)(.*)$")
_SENTENCE = frozenset(
    "the a an to for and or but with before after when about my our your his her their this "
    "that these those today tonight tomorrow yesterday morning evening weekend week monday "
    "tuesday wednesday thursday friday saturday sunday please remember need should must".split()
)
_QUOTED = LazyPattern(r"\"[^\"]*\"|'[^']*'")
_CMDLET = LazyPattern(
    r"^(?:Get|Set|New|Remove|Add|Start|Stop|Restart|Invoke|Import|Export|Install|Uninstall|Test"
    r"|Write|Out|Select|Where|ForEach|Copy|Move|Clear|Enable|Disable|Update|Connect|Format"
    r"|Measure|Sort|Group|Convert(?:To|From)?|Resolve|Register|Unregister|Enter|Exit)"
    r"-[A-Z][A-Za-z]+\b(?=.*(?:\s-[A-Z]\w+|\|\s*\w|\$\w))"
)


PROGRAMS = _PROGRAMS  # (classify/noise_output.py reads a program's name before its message)
WORD_PROGRAMS = _WORDS


def _command(words: list[str], rest: str, prompted: bool) -> bool:
    """Whether ``words`` (a line cut at spaces, first the program; ``rest`` the text after it)
    read as a command."""
    prog = words[0].lower()
    if prog == "sudo":  # "sudo apt update"; "sudo is the name of Ana's cat" is a thought
        nxt = words[1].lower() if len(words) > 1 else ""
        return nxt in _PROGRAMS or nxt in _WORDS
    if prog not in _PROGRAMS and prog not in _WORDS:
        return False
    args = _ARG.search(" " + rest) is not None
    plain = [w.strip(",.!?") for w in _QUOTED.sub(" ", rest).lower().split()]
    sentence = any(w in _SENTENCE for w in plain)
    if prompted:  # "$ git push", "> cd player for the car" is a thought
        return args or (prog in _PROGRAMS and not sentence)
    if sentence or not words[0][:1].islower():
        return False
    if prog in _PROGRAMS and args:
        return True  # "npm install --save-dev eslint", "grep -r todo ."
    if _STRONG_ARG.search(" " + rest):
        return True  # "cd ~/code && make test", "cat /etc/hosts", "find . -name x"
    # "git push origin main": a tool, its subcommand, and words of a command's shape only
    return (
        prog in _TOOLS
        and 2 <= len(words) <= 6
        and words[1] in _SUBCOMMANDS
        and all(_TOKEN.fullmatch(w) for w in words[1:])
    )


_TOKEN = LazyPattern(r"-{0,2}[a-z0-9@.][\w.:@/=+-]*")
# What only a command line has: a flag, a pipe, a chain, a redirect, a path from a root
_STRONG_ARG = LazyPattern(
    r"(?:^|\s)(?:--?[A-Za-z][\w-]*(?:=\S*)?|\|{1,2}|&&|>{1,2}|2>&1|(?:~|\.{1,2})?/[\w.~-]"
    r"[\w./~*-]*)(?=\s|$)"
)


def shell_reason(text: str) -> str | None:
    """``"a shell command"``: a prompt (``user@host:path$``, ``PS C:\\>``, ``$``/``#``/``%``/
    ``>``/``>>>`` then a program), or a program's name at the start with its arguments."""
    if ("@" in text or "\\" in text or text.startswith(_PROMPT_STARTS)) and _PROMPT.match(text):
        return "a shell command"
    m = _SIGN.match(text) if text[:1] in "$#%>❯➜λ.P" else None
    if m:
        sign, first, rest = m.group(1), m.group(2), m.group(3)
        if sign in (">>>", "...") and code_like(first + rest):
            return "a shell command"
        if _command([first, *rest.split()], rest, prompted=True):
            return "a shell command"
        if _CMDLET.match(first + rest):
            return "a shell command"
        return None
    if text[:1].isupper() and "-" in text and _CMDLET.match(text):
        return "a shell command"
    words = text.split()
    if words and _command(words, text[len(words[0]) :], prompted=False):
        return "a shell command"
    return None


# -- a path alone ------------------------------------------------------------------------------
_PATH = LazyPattern(
    "|".join(
        (
            r"(?:~|\.{1,2})?/(?:[^/\s]+/)*[^/\s]*",  # ~/a/b.pdf, ./x, /usr/local/bin
            r"~[\w.-]+/\S*",  # ~user/notes
            r"[A-Za-z]:\\(?:[^\\/:*?\"<>|\r\n]+\\?)*",  # C:\Users\me\file.txt
            r"\\\\[\w.$-]+\\[^\s\\]+(?:\\[^\\/:*?\"<>|\r\n]+)*\\?",  # \\server\share\x
            r"file:///\S+",
            r"[\w.-]+(?:/[\w.-]+)+\.[A-Za-z0-9]{1,5}",  # src/app/main.py
        )
    )
)
_SPACED_PATH = LazyPattern(r"^(?:~/|[A-Za-z]:\\|\\\\|/(?:home|Users|mnt|media|var|etc|opt|srv)/)")


def path_reason(text: str) -> str | None:
    """``"a file path"``: the whole line is one path (POSIX, ``~``, a Windows drive, UNC, a
    ``file://`` address), with two parts at least or a file's extension."""
    t = text.strip().strip("\"'`")
    if not t or len(t) < 4 or ("/" not in t and "\\" not in t):
        return None
    if " " in t and (not _SPACED_PATH.match(t) or ", " in t or len(re.findall(r"[\\/]", t)) < 3):
        return None  # a path with spaces: from a root no sentence starts with, and deep
    if not _PATH.fullmatch(t) and not (" " in t and _PATH.fullmatch(t.replace(" ", "_"))):
        return None
    parts = [
        p
        for p in re.split(r"[\\/]+", t)
        if p and p not in ("~", ".", "..", "file:") and not re.fullmatch(r"[A-Za-z]:", p)
    ]
    if not any(c.isalpha() for c in t):
        return None
    ext = re.search(r"\.[A-Za-z][A-Za-z0-9]{0,4}$", t) is not None
    rooted = t.startswith(("~/", "/", "./", "../", "\\\\", "file:")) or re.match(r"[A-Za-z]:\\", t)
    if len(parts) >= 2 and (rooted or ext) or (rooted and ext and parts):
        return "a file path"
    return None
