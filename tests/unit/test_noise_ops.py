"""Operations text is noise, by its shape (classify/noise_ops.py): crontab lines, Makefile
lines, Dockerfile instructions, nginx, Apache and systemd lines, CSS declarations,
PowerShell, a regular expression alone, LaTeX, git conflict markers, colour escapes,
verification-code texts, tracker and bot notifications, Markdown front matter, chat exports.

Two tables, written for this test and in none of the dev sets: lines of each class that must
file nothing, and thoughts that look like them and must stay thoughts (a false noise verdict
loses a person's thought from filing, which is worse than a miss).
"""

from __future__ import annotations

import datetime as dt

import pytest

from vaultbrain.classify.embedded import analyse
from vaultbrain.classify.noise_ops import ops_reason
from vaultbrain.classify.reading import Embedded
from vaultbrain.classify.training import corpus_embedded

DAY = dt.date(2026, 12, 1)
ESC = "\x1b"

NOISE = [
    # crontab
    ("30 2 * * * /home/ana/bin/rotate-logs.sh", "a crontab line"),
    ("*/10 * * * * curl -fsS https://hc-ping.example/abc > /dev/null", "a crontab line"),
    ("15 6 1 * * cd /srv/app && ./bin/report --monthly", "a crontab line"),
    ("0 0 * * mon-fri /usr/bin/python3 /opt/jobs/digest.py", "a crontab line"),
    ("@reboot /usr/local/bin/start-tunnel", "a crontab line"),
    ("45 23 28 2 1 /opt/scripts/leap.sh", "a crontab line"),
    # Makefile
    ("test: lint ; pytest -q tests/", "a Makefile line"),
    ("release: dist ; twine upload dist/*", "a Makefile line"),
    (".PHONY: all clean install", "a Makefile line"),
    ("app: $(OBJECTS)", "a Makefile line"),
    ("\t$(CXX) $(CXXFLAGS) -c $< -o $@", "a Makefile line"),
    ("CFLAGS ?= -O2 -Wall", "a Makefile line"),
    # Dockerfile
    ("FROM node:20-alpine", "a Dockerfile line"),
    ("FROM golang:1.22 AS build", "a Dockerfile line"),
    ("RUN pip install --no-cache-dir -r requirements.txt", "a Dockerfile line"),
    ("COPY package*.json ./", "a Dockerfile line"),
    ("COPY --chown=app:app . /srv", "a Dockerfile line"),
    ("EXPOSE 3000/tcp", "a Dockerfile line"),
    ('CMD ["npm", "start"]', "a Dockerfile line"),
    ("WORKDIR /usr/src/app", "a Dockerfile line"),
    ("ENV NODE_ENV=production", "a Dockerfile line"),
    ("ARG APP_VERSION", "a Dockerfile line"),
    # nginx, Apache
    ("server_name shop.example.net;", "a server config line"),
    ("proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;", "a server config line"),
    ("listen 80 default_server;", "a server config line"),
    ("root /var/www/html;", "a server config line"),
    ("return 301 https://$host$request_uri;", "a server config line"),
    ("location ~ \\.php$ {", "a server config line"),
    ("try_files $uri $uri/ /index.html;", "a server config line"),
    ("<Directory /var/www/html>", "a server config line"),
    ("<VirtualHost *:8080>", "a server config line"),
    ("RewriteEngine On", "a server config line"),
    ("RewriteCond %{HTTPS} off", "a server config line"),
    ('DocumentRoot "/srv/www/site"', "a server config line"),
    ("Require all granted", "a server config line"),
    # systemd
    ("[Service]", "a config line"),
    ("ExecStartPre=/bin/mkdir -p /run/app", "a config line"),
    ("Restart=on-failure", "a config line"),
    ("After=network-online.target", "a config line"),
    ("Type=oneshot", "a config line"),
    ("OnCalendar=*-*-* 03:00:00", "a config line"),
    # Markdown front matter
    ('title: "Reading list 2027"', "a config line"),
    ("tags: [inbox, review]", "a config line"),
    ("created: 2026-11-02T08:15", "a config line"),
    ("publish: false", "a config line"),
    # CSS declarations
    ("font-weight: 600;", "a line of code"),
    ("background-color: rgba(0, 0, 0, 0.5);", "a line of code"),
    ("box-shadow: 0 1px 2px rgba(0,0,0,.2);", "a line of code"),
    ("--accent: #ff6600;", "a line of code"),
    ("-webkit-font-smoothing: antialiased;", "a line of code"),
    ("display: none;", "a line of code"),
    ("position: absolute !important;", "a line of code"),
    # PowerShell
    ('$env:NODE_OPTIONS = "--max-old-space-size=4096"', "a shell command"),
    ("$files = Get-ChildItem -Path C:\\logs", "a shell command"),
    ("if ($count -gt 10) { break }", "a shell command"),
    ("Get-Process | Where-Object { $_.CPU -gt 100 }", "a shell command"),
    ('Write-Output "backup done"', "a shell command"),
    # a regular expression alone
    ("^\\d{3}-\\d{4}$", "a regular expression"),
    ("/^[\\w.+-]+@[\\w-]+\\.[\\w.]+$/i", "a regular expression"),
    ("(?<year>\\d{4})-(?<month>\\d{2})", "a regular expression"),
    ("^(?:https?://)?(?:www\\.)?([^/]+)", "a regular expression"),
    # LaTeX
    ("\\begin{equation}", "LaTeX markup"),
    ("\\section{Related work}", "LaTeX markup"),
    ("Treatment & 9.8 & 2.7 & 0.04 \\\\", "LaTeX markup"),
    ("\\usepackage[utf8]{inputenc}", "LaTeX markup"),
    ("where $\\frac{a}{b}$ is the ratio", "LaTeX markup"),
    ("\\item Collect the samples", "LaTeX markup"),
    # git conflict markers
    ("<<<<<<< HEAD", "a git conflict marker"),
    (">>>>>>> origin/main", "a git conflict marker"),
    ("|||||||  merged common ancestors", "a git conflict marker"),
    # colour escapes
    (f"{ESC}[32m✔{ESC}[0m all checks passed", "a terminal colour escape"),
    ("\\033[1;31mFAIL\\033[0m", "a terminal colour escape"),
    ("[33mwarn[0m deprecated config key", "a terminal colour escape"),
    # verification-code texts
    ("Your Amazon OTP is 552019. Do not share it with anyone.", "a verification code text"),
    ("913004 is your Revolut login code. Never share this code.", "a verification code text"),
    ("Use 7731 to verify your number. Expires in 5 minutes.", "a verification code text"),
    ("Your WhatsApp code: 448-211. Don't share this code with others", "a verification code text"),
    ("G-204981 is your Google verification code.", "a verification code text"),
    # tracker and bot notifications
    ("[INFRA-88] Status changed from To Do to In Progress", "a notification"),
    ("[GitHub] Re: [acme/api] Fix retry loop (#341)", "a notification"),
    ("renovate[bot] opened pull request #77: Update dependency pytest to v8", "a notification"),
    ("Pipeline #5521 for main FAILED", "a notification"),
    ("[FIRING:1] HighMemoryUsage prod-db-01", "a notification"),
    ("DATA-412 was moved to Done by release-bot", "a notification"),
    ("Sam Taylor mentioned you in SUP-1901", "a notification"),
    # chat exports
    ("[03/12/2026, 18:40:02] Priya: running late, start without me", "a chat export line"),
    ("3/12/26, 7:15 pm - Dad: did you get the parcel", "a chat export line"),
    ("[21:14] <jo_k> anyone tried the new build?", "a chat export line"),
    # a pinned dependency, an ignore glob, a key, a CI step, a Kubernetes kind, a modeline
    ("django==5.0.3", "a dependency line"),
    ("pydantic>=2.5,<3", "a dependency line"),
    ("__pycache__/", "a config line"),
    ("*.log", "a config line"),
    ("-----BEGIN CERTIFICATE-----", "a key or a certificate"),
    ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG4x sam@desk", "a key or a certificate"),
    ("- uses: actions/setup-python@v5", "a config line"),
    ("kind: StatefulSet", "a config line"),
    ("/* vim: set ts=2 sw=2: */", "a config line"),
]

LOOKALIKES = [
    # schedule-like numbers and stars
    "0 3 nights left at the cottage",
    "5 4 3 2 1 countdown for the rocket party",
    "10 15 20 25 30 minutes of plank this week",
    "@daily standup moved to 9:30",
    "* * * bonus tasks for the weekend",
    "3 2 1 go, the race starts at noon",
    # a target and a colon
    "dist: clean the garage then tip run",
    "all: build the shed and paint it",
    "build: the new deck, ask Sam for the saw",
    "clean: the garage; the loft; the car",
    ".PHONY excuse from Jo again",
    "test: ask Ana about the results ; then call Jo",
    # a Dockerfile's words in capitals
    "RUN the 10k with Priya on sunday",
    "FROM the bakery: sourdough and two croissants",
    "COPY the minutes to Sam and Ana",
    "EXPOSE the damp wall to the surveyor",
    "ENV report due in march",
    "CMD to approve the budget",
    "WORKDIR cleanup after the move",
    "DOCKER course for work in Q1",
    # a server's directives as words
    "server name for the home lab is still undecided",
    "listen to the podcast about sleep",
    "return the parcel to the post office;",
    "root vegetables for the stew",
    "index cards for the talk",
    "location of the new office is 12 High St {tbc}",
    "include Jo in the invite;",
    "Nginx talk at the meetup, ask Dev",
    "VirtualHost tutorial for the blog",
    "ServerName for the NAS",
    "alias for the shared inbox is team@, ask IT",
    # a unit's keys as words
    "Restart the router if the wifi drops",
    "After the school run, call the bank",
    "Type of paint for the bathroom: satin",
    "Description of the job for the advert",
    "[Unit] 4 revision notes",
    # front matter's keys in a thought
    "title of the talk: cities and climate",
    "tags for the photos: beach, kids",
    "date: the 14th works for everyone",
    "draft: the letter to the council",
    'title: "Weekly review" is a good name for the new note, ask Jo',
    # CSS's properties as words
    "font for the wedding invites",
    "color: the blue one for the nursery;",
    "display: the kids' art in the hall",
    "font-size for the invites, ask the printer",
    "margin: leave room for notes;",
    "width of the sofa is 2m, check the doorway",
    "gap: fix the gap under the door;",
    "order: pizza, wings, salad;",
    "content: done for the newsletter;",
    "filter: only the photos from june;",
    # a sigil, a bracket, an ampersand, a backslash
    "$20 for Jo's present",
    "$name on the cake should be Ava",
    "$x = total cost of the trip, work it out",
    "Write-up of the meeting for Sam",
    "^^ see above for the plan",
    "(a+b)^2 revision for the maths test",
    "C++ course? [maybe] (ask Dev)",
    "\\o/ passed the driving test",
    "Jo & Sam & Ana: dinner \\\\ drinks after",
    "R&D budget & hiring & travel for Q1",
    "\\ 3 for the bill split",
    "<<< move this paragraph up",
    ">>>> more to come",
    "======= section break",
    "[31 march] the deadline for the tax return",
    "Meet at [10am] by the clock",
    # a code, a share, an expiry in a person's words
    "482913 is the locker code",
    "2FA code for the bank is on the old phone, move it",
    "your code is on the fridge, Jo",
    "never share the wifi password with the tenants",
    "the code expires in 10 days, renew the parking permit",
    "4821 is your new PIN, change it at the ATM",
    "482913 is the locker code at the gym, never share it",
    "Use 4 eggs to make the cake",
    # a ticket key, a status, a bot in a person's words
    "OPS meeting moved to thursday",
    "OPS-2291 ask Sam about the outage",
    "[OPS-2291] call Sam about the outage tomorrow",
    "PROJ-123 was assigned to me, start on monday",
    "the status changed from pending to approved on the visa",
    "Build #3 failed again, ask Dev",
    "jenkins is down, tell Dev",
    "FIRING up the bbq at 6",
    "Jo commented on the draft, read it tonight",
    # a date, a time and a name
    "[14/11] Sam: are we still on?",
    "14/11 10:30 - Sam: dentist",
    "2026-12-01 10:30 dentist",
    "12/11/2026 dentist at 10:30",
    "[09:12] remember the meds",
    # the second look: a path-like word, a tag, a shout, an operator in a person's words
    "ADD eggs and/or milk to the list",
    "ADD Sam to the group chat",
    "alias for the shared inbox is team@;",
    "Require all granted leave forms by friday",
    "Sam #1 PASSED the exam!!",
    "Room #4 FIXED finally",
    "[RESOLVED] the boiler issue",
    "[GitHub] look at the new actions pricing",
    "X != Y, check the maths",
    "PLAN != REALITY",
    "shop: milk ; then eggs and/or bread",
    "top: 3 things for today;",
    "width: 2m;",
    "5 * 3 = 15 for the maths homework",
    "Jo & Sam & Ana: dinner \\\\",
    # a slash, a star, a comparison, a key's words in a person's
    "w/",
    "misc/",
    "*sigh*",
    "*.* everything",
    "2.0 >= 1.9 obviously",
    "x == y for the maths test",
    "kind: generous, said Sam",
    "uses: the car on friday",
    "vim: learn the motions this week",
    "vim: set up the new laptop",
    "----- BEGIN notes -----",
    "ssh-rsa key for the NAS, ask IT",
    "Python 3.12 == latest, upgrade",
]


@pytest.fixture(scope="module")
def emb() -> Embedded:
    return corpus_embedded()


def test_the_tables_are_wide() -> None:
    assert len(NOISE) >= 80
    assert len(LOOKALIKES) >= 80
    assert len({why for _, why in NOISE}) >= 12


@pytest.mark.parametrize(("text", "why"), NOISE)
def test_operations_text_files_nothing_and_says_which_kind(
    text: str, why: str, emb: Embedded
) -> None:
    c = analyse(text, DAY, emb).classification
    assert c.noise == why
    assert [d.type for d in c.destinations] == ["unknown"]
    assert c.confidence == 0.0


@pytest.mark.parametrize("text", LOOKALIKES)
def test_a_thought_that_looks_like_operations_text_stays_a_thought(
    text: str, emb: Embedded
) -> None:
    assert ops_reason(text) is None
    assert analyse(text, DAY, emb).classification.noise is None
