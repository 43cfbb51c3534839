"""Operations text pasted into the inbox (classify/noise.py's classes of machine text): a
crontab line, a Makefile line, a Dockerfile instruction, an nginx, Apache or systemd line, a
CSS declaration, PowerShell, a regular expression alone, LaTeX, a git conflict marker, colour
escapes, a verification-code text, a tracker's or a bot's notification, a chat export's line, pasted
front matter, a pinned dependency, an ignore file's glob, a key's or a certificate's line, a
CI step's action, a Kubernetes kind, an editor's modeline.

Each is told by evidence of its shape, which a thought does not have: a crontab line has five
schedule fields with a ``*`` or a step, or an ``@daily``, then a command ("0 3 nights left at
the cottage" has two numbers); a make target's recipe after ``;`` is a command, or the line
uses make's own variables ("dist: clean the garage then tip run" has neither); a CSS
declaration's property is CSS's and its value ends in ``;`` ("font for the wedding invites");
a verification text has two of a code message's phrases ("482913 is the locker code" has
none); a notification has a ticket key and a tracker's phrase ("OPS meeting moved to
thursday" has neither).
"""

from __future__ import annotations

import re

from vaultbrain.classify.noise_machine import shell_reason
from vaultbrain.patterns import LazyPattern

# -- crontab ---------------------------------------------------------------------------------
_CRON_FIELD = r"(?:\*|\d{1,2}(?:-\d{1,2})?|[A-Za-z]{3}(?:-[A-Za-z]{3})?)(?:/\d{1,2})?"
_CRON_FIELDS = rf"{_CRON_FIELD}(?:,{_CRON_FIELD})*"
_CRON = LazyPattern(
    rf"^\s*(?:(?P<f>(?:{_CRON_FIELDS}\s+){{4}}{_CRON_FIELDS})|@(?:reboot|yearly|annually"
    r"|monthly|weekly|daily|midnight|hourly))\s+(?P<cmd>[~/.$\w].*)$"
)


def _cron(text: str) -> bool:
    m = _CRON.match(text)
    if not m:
        return False
    fields, cmd = m.group("f"), m.group("cmd")
    if fields is None:  # "@daily /home/pi/sync.sh"
        return cmd.startswith(("/", "~", "./", "$")) or shell_reason(cmd) is not None
    if "*" in fields or "/" in fields:  # "0 3 * * 1 …", "*/15 …"
        return True
    return cmd.startswith(("/", "~/", "./")) or shell_reason(cmd) is not None


# -- Makefile --------------------------------------------------------------------------------
_MAKE_SPECIAL = LazyPattern(
    r"^\.(?:PHONY|DEFAULT_GOAL|SUFFIXES|SILENT|ONESHELL|DELETE_ON_ERROR|INTERMEDIATE)\s*:"
)
_MAKE_RULE = LazyPattern(r"^([\w./%$()-]+(?:\s+[\w./%$()-]+)*)\s*::?\s*([^;=]*?)\s*;\s*(\S.*)$")
_MAKE_VARS = LazyPattern(
    r"\$\((?:[A-Z_][A-Z0-9_]*|(?:wildcard|patsubst|shell|addprefix|notdir|subst|filter)\s[^)]*)\)"
    r"|\$[@^<?*](?=\s|$|/)"
)
# a recipe: a program's name, then an argument only a command has (a flag, a path, a chain)
_RECIPE = LazyPattern(
    r"^[a-z][\w.+-]*(?:\s+\S+)*?\s+(?:--?[a-z][\w-]*|\.{0,2}/\S*|~/\S*|\S+/\*?|\S+/\S*\.\w+"
    r"|&&|\|\|?|\$\()(?=\s|$)"
)
_MAKE_ASSIGN = LazyPattern(r"^[A-Z][A-Z0-9_]+\s*(?::=|\?=|::=)\s*\S")
_MAKE_TARGET = LazyPattern(r"^[\w./%-]+\s*::?\s*(?:\S.*)?$")


def _make(text: str) -> bool:
    if _MAKE_SPECIAL.match(text) or _MAKE_ASSIGN.match(text):
        return True
    m = _MAKE_RULE.match(text)
    if m and (shell_reason(m.group(3)) is not None or _RECIPE.match(m.group(3))):
        return True  # "dist: clean ; python -m build --wheel", "up: ; twine upload dist/*"
    # a target or a recipe with make's own variables: "build: $(OBJS)", "\t$(CC) -o $@ $^"
    hits = len(_MAKE_VARS.findall(text))
    return hits >= 2 or (hits == 1 and _MAKE_TARGET.match(text.strip()) is not None)


# -- Dockerfile ------------------------------------------------------------------------------
_DOCKER = LazyPattern(
    "|".join(
        (
            r"^FROM\s+(?:--platform=\S+\s+)?[\w./-]+(?::[\w.-]+|@sha256:[0-9a-f]+)(?:\s+AS\s+\w+)?"
            r"\s*$|^FROM\s+[\w./-]+\s+(?:AS|as)\s+[\w-]+\s*$",
            r"^(?:COPY|ADD)\s+(?:--[\w-]+=\S+\s+)*(?:\S+\s+)+(?:\.|\.{0,2}/\S*|~/\S*|\S+/)\s*$",
            r"^(?:COPY|ADD)\s+--[\w-]+=\S+",
            r"^EXPOSE\s+\d+(?:/(?:tcp|udp))?(?:\s+\d+(?:/(?:tcp|udp))?)*\s*$",
            r"^(?:ENTRYPOINT|CMD|VOLUME|SHELL)\s+\[\s*\"",
            r"^WORKDIR\s+[/$]\S*\s*$",
            r"^(?:ENV|ARG)\s+[A-Z_][A-Z0-9_]*(?:=\S*|\s+\S+)?\s*$",
            r"^(?:HEALTHCHECK|ONBUILD|STOPSIGNAL)\s+(?:--|NONE\b|CMD\b|RUN\b|SIG[A-Z]+\b)",
            r"^LABEL\s+[\w.-]+=\S",
        )
    )
)


def _docker(text: str) -> bool:
    if text.startswith("RUN "):  # "RUN apt-get update && …"; "RUN 5k tomorrow" is a thought
        return shell_reason(text[4:].strip()) is not None
    return _DOCKER.match(text) is not None


# -- nginx, Apache, systemd -----------------------------------------------------------------
_NGINX = LazyPattern(
    "|".join(
        (
            # a directive no English word names, ending in ';'
            r"^\s*(?:server_name|proxy_pass|proxy_set_header|proxy_redirect|proxy_http_version"
            r"|ssl_certificate(?:_key)?|ssl_protocols|ssl_ciphers|add_header|try_files"
            r"|client_max_body_size|error_page|access_log|error_log|worker_processes"
            r"|worker_connections|fastcgi_pass|fastcgi_param|keepalive_timeout|sendfile"
            r"|gzip_types|limit_req_zone|upstream_addr)\s+[^;]+;\s*$",
            r"^\s*listen\s+(?:\[::\]:)?\d+(?:\s+\w+)*\s*;\s*$",
            r"^\s*(?:root|include|alias)\s+\S*/\S*\s*;\s*$",
            r"^\s*return\s+[1-5]\d\d(?:\s+\S+)?\s*;\s*$",
            r"^\s*index\s+(?:[\w-]+\.\w+\s*)+;\s*$",
            r"^\s*location\s+(?:[~=^*]+\s*)?\S+\s*\{\s*$|^\s*(?:server|http|events|upstream\s+"
            r"[\w.-]+)\s*\{\s*$",
        )
    )
)
_APACHE = LazyPattern(
    r"^\s*</?(?:VirtualHost|Directory|DirectoryMatch|IfModule|Location|LocationMatch|Files"
    r"|FilesMatch|Proxy)\b[^>]*>\s*$"
    r"|^\s*(?:RewriteRule\s+\S+\s+\S+|RewriteCond\s+%\{|RewriteEngine\s+(?:On|Off)\s*$"
    r"|DocumentRoot\s+\"?/|ServerName\s+[\w-]+(?:\.[\w-]+)+(?::\d+)?\s*$|ServerAlias\s+[\w*-]+\."
    r"|ProxyPass(?:Reverse)?\s+/|AllowOverride\s+(?:All|None)\b|Require\s+all\s+(?:granted|denied)\s*$"
    r"|Options\s+[+-]?(?:Indexes|FollowSymLinks|MultiViews|ExecCGI)\b|ErrorDocument\s+\d{3}\s"
    r"|SSLCertificate(?:Key)?File\s+/|LoadModule\s+\w+_module\s)"
)
_SYSTEMD = LazyPattern(
    r"^\[(?:Unit|Service|Install|Timer|Socket|Mount|Path|Slice|Network|Match|NetDev)\]\s*$"
    r"|^(?:ExecStart(?:Pre|Post)?|ExecStop(?:Post)?|ExecReload|RestartSec|WantedBy|RequiredBy"
    r"|WorkingDirectory|EnvironmentFile|StandardOutput|StandardError|KillMode|KillSignal"
    r"|TimeoutStartSec|TimeoutStopSec|LimitNOFILE|OnCalendar|OnBootSec|OnUnitActiveSec"
    r"|PIDFile|ProtectSystem|PrivateTmp|NoNewPrivileges|DefaultDependencies)=\S"
    r"|^(?:After|Before|Wants|Requires|BindsTo|PartOf|Also)=(?:[\w@.-]+\.(?:target|service"
    r"|socket|timer|mount|path|slice)\s*)+$"
    r"|^(?:Restart=(?:always|on-failure|on-abnormal|on-abort|no)|Type=(?:simple|forking"
    r"|oneshot|notify|dbus|idle|exec)|Environment=\"?[A-Z_][A-Z0-9_]*=)\S*\s*$"
)

# -- CSS, PowerShell -------------------------------------------------------------------------
_CSS_PROPERTY = (
    r"(?:--[\w-]+|-(?:webkit|moz|ms|o)-[\w-]+|(?:font|text|line|letter|word|white|background"
    r"|border|outline|margin|padding|grid|flex|align|justify|place|column|row|list|box|overflow"
    r"|transition|animation|transform|pointer|user|z|min|max|object|scroll|overscroll|will"
    r"|backdrop|mix|caret|accent|aspect|inset|vertical|table|counter|page|break|tab|mask|clip"
    r"|shape)-[a-z-]+|color|display|position|float|clear|opacity|cursor|content|visibility"
    r"|width|height|top|left|right|bottom|margin|padding|border|background|gap|order|filter"
    r"|transition|animation|transform|font|outline|overflow|inset|resize|appearance|isolation)"
)
_CSS_DECL = LazyPattern(rf"^\s*({_CSS_PROPERTY})\s*:\s*([^;{{}}]+?)\s*(?:!important\s*)?;\s*$")
_CSS_VALUE = LazyPattern(
    r"\"[^\"]*\"|'[^']*'|-?\d*\.?\d+(?:px|em|rem|vh|vw|vmin|vmax|pt|ch|ex|fr|s|ms|deg|%)?"
    r"|#[0-9a-fA-F]{3,8}|[a-z-]+\([^()]*\)|-?[a-z][a-z0-9]*(?:-[a-z0-9]+)*|[/,]"
)
_CSS_HINT = LazyPattern(
    r"\d(?:px|em|rem|vh|vw|pt|ch|fr|ms|s|deg|%)|#[0-9a-fA-F]{3,8}\b|[a-z-]+\(|\"|'"
)
_CSS_KEYWORDS = frozenset(
    "none block inline inline-block flex inline-flex grid inline-grid contents absolute "
    "relative fixed sticky static hidden visible scroll auto pointer default bold normal "
    "italic center left right top bottom middle baseline nowrap wrap inherit initial unset "
    "transparent currentcolor solid dashed dotted uppercase lowercase capitalize underline "
    "ease ease-in ease-out ease-in-out linear cover contain no-repeat space-between "
    "space-around stretch column row 0 1 important".split()
)
_PS = LazyPattern(
    r"^\s*\$env:\w+\s*(?:[+-]?=|$)|^\s*\$[A-Za-z_]\w*\s*[+-]?=\s*(?:[\"'@$]|\[[A-Za-z.]+\]"
    r"|(?:Get|New|Import|Invoke|Select|Where|ConvertFrom|ConvertTo|Test|Read|Join)-[A-Z])"
    r"|\$[A-Za-z_]\w*\s+-(?:eq|ne|gt|lt|ge|le|like|notlike|match|notmatch|contains|in)\s"
    r"|\|\s*(?:ForEach-Object|Where-Object|Select-Object|Sort-Object|Out-File|Format-Table)\b"
    r"|^\s*(?:Write-(?:Host|Output|Error|Verbose)|Import-Module|Set-Location)\s+[\"'$\w-]"
)


def _css(text: str) -> bool:
    m = _CSS_DECL.match(text)
    if not m:
        return False
    prop, value = m.group(1), m.group(2)
    rest = _CSS_VALUE.sub("", value).strip()
    if rest:
        return False  # a value CSS's tokens do not make up
    # a property CSS alone names ("font-family") is enough; a plain word ("order", "content")
    # wants a value of CSS's own: a unit, a colour, a call, a quote, or its keywords only
    if "-" in prop or _CSS_HINT.search(value):
        return True
    return all(w in _CSS_KEYWORDS for w in value.lower().replace(",", " ").split())


# -- a regular expression alone, LaTeX, conflict markers, colour escapes -------------------
_REGEX_TOKEN = LazyPattern(
    r"\\[dwsbDWSBAZ]|\\[.()\[\]{}/+*?^$|\\-]|\[\^?[^\]\s]{1,30}\]|[)\]][*+?]|\{\d+(?:,\d*)?\}"
    r"|\(\?(?:[:=!]|<[=!]|P?<\w+>)|\.[*+]\??|\(\s*\|"
)


def _regex(text: str) -> bool:
    t = text.strip()
    if len(t) < 6 or t.count(" ") > 2:
        return False
    slashed = re.fullmatch(r"/(.+)/[gimsuy]*", t)
    body = slashed.group(1) if slashed else t
    anchored = slashed is not None or body.startswith("^") or body.endswith("$")
    tokens = len(_REGEX_TOKEN.findall(body))
    return tokens >= 3 and (anchored or tokens >= 5)


_LATEX_COMMANDS = (
    r"hline|begin|end|textbf|textit|texttt|emph|section|subsection|subsubsection|paragraph|item"
    r"|frac|sqrt|documentclass|usepackage|label|ref|eqref|cite|citep|citet|includegraphics"
    r"|caption|centering|toprule|midrule|bottomrule|cline|multicolumn|multirow|newcommand"
    r"|renewcommand|maketitle|tableofcontents|bibliography|bibliographystyle|footnote|vspace"
    r"|hspace|noindent|newpage|clearpage|mathbf|mathrm|left|right|sum|int|alpha|beta|sigma|mu"
)
_LATEX = LazyPattern(
    rf"^\s*\\(?:{_LATEX_COMMANDS})\b|\\(?:{_LATEX_COMMANDS})\s*[{{\[]"
    r"|^[^&]*(?=(?:&[^&]*)*&\s*[-+$\\\d.])(?:&[^&]*){2,}\\\\\s*(?:\\hline\s*)?$"
    r"|\$\s*\\[a-z]+\{[^}]*\}"
)
_CONFLICT = LazyPattern(r"^(?:<{7}|>{7}|\|{7})(?:\s+\S.*)?$|^={7}$")
_ANSI = LazyPattern(
    r"\x1b\[[\d;?]*[A-Za-z]|(?:\\x1[bB]|\\033|\\e|\\u001[bB]|\^\[)\[[\d;]*m"
    r"|\[\d{1,3}(?:;\d{1,3})*m\S.*\[0?m"
)

# -- texts and notifications a service sent -------------------------------------------------
_OTP_CODE = LazyPattern(r"(?<![\w.,£$€-])(?:[A-Z]-)?(?:\d{4,8}|\d{3}[- ]\d{3})(?![\w,%]|\.\d)")
_OTP_CUES = (
    LazyPattern(r"\bis\s+your\b[^.]{0,40}\b(?:code|pin|passcode|otp|password)\b", re.I),
    LazyPattern(r"\byour\b[^.]{0,30}\b(?:code|pin|passcode|otp)(?:\s+is\b|\s*:\s*[\dA-Z])", re.I),
    LazyPattern(
        r"\b(?:verification|security|one[- ]time|login|log-in|sign[- ]in|confirmation"
        r"|authentication|2fa|two-factor|access)\s+(?:code|pin|passcode|password)\b",
        re.I,
    ),
    LazyPattern(r"\b(?:never|do\s+not|don't|dont)\s+share\b", re.I),
    LazyPattern(r"\b(?:expires?|valid)\s+(?:in|for)\s+\d+\s*(?:min|minutes|mins|hours?|h)\b", re.I),
    LazyPattern(
        r"\b(?:use|enter)\s+(?:[A-Z]-)?\d{4,8}\s+to\s+(?:verify|confirm|log\s*in|sign)", re.I
    ),
)
_TICKET = LazyPattern(
    r"^\s*[\[(]?[A-Z][A-Z0-9]{1,9}-\d{1,6}[\])]?\s|\b[A-Z][A-Z0-9]{1,9}-\d{1,6}\b"
)
_TRACKER = LazyPattern(
    r"\bstatus\s+changed\s+from\s+.+\s+to\s+\S|\bchanged\s+the\s+status\b"
    r"|\bassigned\s+(?:this\s+)?(?:issue\s+)?to\s+you\b|\bmentioned\s+you\s+(?:in|on)\b"
    r"|\bby\s+[\w.-]+(?:-bot|\[bot\])(?=\W*$)",
    re.I,
)
_BOT = LazyPattern(
    r"^\s*\[(?:JIRA|Jira|GitHub|GitLab|Bitbucket|Confluence|Jenkins|Linear|Asana|Sentry"
    r"|PagerDuty|Opsgenie|Datadog)\]\s+(?:Re:\s+)?(?:\[[\w.-]+/[\w.-]+\]|\(?[A-Z][A-Z0-9]+-\d+\b"
    r"|.*\(#\d+\)\s*$)"
    r"|^\s*[\w-]+\[bot\]\s+(?:merged|opened|closed|commented|pushed|approved|requested|bumped"
    r"|created|deleted|labeled)\b"
    r"|(?i:build|pipeline|job|run|workflow|deploy(?:ment)?)\s+#\d+\b.*\b(?:FAILED|FAILURE"
    r"|SUCCESS|SUCCEEDED|PASSED|UNSTABLE|ABORTED|FIXED|BROKEN)\b"
    r"|^\s*\[(?:FIRING|RESOLVED):\d+\]"
)
# a dependency pinned (requirements.txt), an ignore file's glob, a key or certificate's line,
# a CI step's action, a Kubernetes kind, an editor's modeline
_PIN = LazyPattern(
    r"^[A-Za-z][\w.-]*(?:\[[\w,]+\])?\s*(?:==|>=|<=|~=|!=|===)\s*\d[\w.*+!-]*"
    r"(?:\s*,\s*(?:==|>=|<=|~=|!=|<|>)\s*\d[\w.*+!-]*)*(?:\s*;\s*python_version\s*[<>=!]+\s*\S+)?$"
)
_IGNORE = LazyPattern(
    r"^!?(?:\*\*/)?\*\.[A-Za-z0-9]{1,6}$|^!?/?\.?[\w-]*[_.][\w.-]*/$"
    r"|^!?/?(?:build|dist|target|out|coverage|vendor|bin|obj|node_modules|venv)/$"
)
_KEY = LazyPattern(
    r"^-----(?:BEGIN|END) [A-Z0-9 ]+-----$|^(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+"
    r"|sk-ssh-ed25519@openssh\.com)\s+AAAA[\w+/=]{12,}(?:\s+\S+)?$"
)
_CI_STEP = LazyPattern(
    r"^-?\s*uses:\s*[\w.-]+/[\w./-]+@[\w.-]+\s*$"
    r"|^kind:\s*(?:Deployment|Service|Pod|ConfigMap|Secret|Ingress|StatefulSet|DaemonSet|Job"
    r"|CronJob|Namespace|PersistentVolumeClaim|ServiceAccount|RoleBinding|ClusterRole"
    r"|ClusterRoleBinding|HorizontalPodAutoscaler|NetworkPolicy|CustomResourceDefinition)\s*$"
    r"|^(?:#|//|/\*|--|\")?\s*(?:vim?|ex):\s*(?:set?\s+)?(?:\w+(?:=\w+)?[\s:]+)*\w+=\w+"
    r"(?:[\s:]+\w+(?:=\w+)?)*:?\s*(?:\*/)?$"
)
# Markdown front matter pasted: a key Obsidian, Hugo or Jekyll reads, with a typed value
_FRONT_MATTER = LazyPattern(
    r"^(?:title|aliases|tags|cssclass(?:es)?|publish|layout|permalink|draft|slug|categories"
    r"|created|updated|modified|lang)\s*:\s*(?:\"[^\"]*\"|'[^']*'|\[[^\]]*\]|true|false"
    r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?)\s*$"
)
_CHAT = LazyPattern(
    r"^\[\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4},?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s?[APap]\.?[Mm]\.?)?\]"
    r"\s+[^:\]]{1,40}:\s+\S"
    r"|^\d{1,2}[/.]\d{1,2}[/.]\d{2,4},\s+\d{1,2}:\d{2}(?:\s?[APap]\.?[Mm]\.?)?\s+[-–]\s+"
    r"[A-Z+\d][^:]{0,39}:\s+\S"
    r"|^\[\d{1,2}:\d{2}(?::\d{2})?\]\s+<[@+]?[\w.|-]+>\s+\S"
)


def _otp(text: str) -> bool:
    if not _OTP_CODE.search(text):
        return False
    return sum(1 for cue in _OTP_CUES if cue.search(text)) >= 2


def _notification(text: str) -> bool:
    if _BOT.search(text):
        return True
    return _TICKET.search(text) is not None and _TRACKER.search(text) is not None


def ops_reason(text: str) -> str | None:
    """Why ``text`` is operations text (the classes above), or None."""
    t = text.rstrip()
    if not t.strip():
        return None
    if _CONFLICT.match(t):
        return "a git conflict marker"
    if _ANSI.search(t):
        return "a terminal colour escape"
    if t[:1].isdigit() or t[:1] in "@*":
        if _cron(t):
            return "a crontab line"
    if _docker(t):
        return "a Dockerfile line"
    if _NGINX.match(t) or _APACHE.match(t):
        return "a server config line"
    if _SYSTEMD.match(t):
        return "a config line"
    if _make(t):
        return "a Makefile line"
    if _css(t):
        return "a line of code"
    if _PS.search(t):
        return "a shell command"
    if _LATEX.search(t):
        return "LaTeX markup"
    if _regex(t):
        return "a regular expression"
    if _otp(t):
        return "a verification code text"
    if _notification(t):
        return "a notification"
    if _KEY.match(t):
        return "a key or a certificate"
    if _PIN.match(t):
        return "a dependency line"
    if _IGNORE.match(t) or _CI_STEP.match(t):
        return "a config line"
    if _FRONT_MATTER.match(t):
        return "a config line"
    if _CHAT.match(t):
        return "a chat export line"
    return None
