"""Machine text is noise, by its shape (classify/noise.py, noise_machine.py, noise_mail.py,
noise_data.py): diff lines, shell prompts and commands, code, a path alone, e-mail
signatures, boilerplate and headers, SQL, config lines, JSON, CSV and table rows, hashes and
tokens, markup, log lines and stack frames of many runtimes, placeholder text, mash, lines
meant for an assistant.

Two tables, written for this test and in none of the dev sets: lines of each class that must
file nothing, and thoughts that look like them and must stay thoughts (a false noise verdict
loses a person's thought from filing, which is worse than a miss).
"""

from __future__ import annotations

import datetime as dt

import pytest

from vaultbrain.classify.embedded import analyse
from vaultbrain.classify.reading import Embedded
from vaultbrain.classify.training import corpus_embedded

DAY = dt.date(2026, 12, 1)

NOISE = [
    # diff and patch lines
    ("+        self.retries = max(0, retries)", "a diff line"),
    ("-  const total = items.reduce((a, b) => a + b, 0);", "a diff line"),
    ("@@ -12,7 +12,9 @@ def load_config(path):", "a diff line"),
    ("diff --git a/src/app.py b/src/app.py", "a diff line"),
    ("+++ b/README.md", "a diff line"),
    ("-    }", "a diff line"),
    ("+import pandas as pd", "a diff line"),
    # shell prompts and commands
    ("sam@devbox:/var/www$ sudo systemctl restart nginx", "a shell command"),
    ("[root@web01 ~]# tail -f /var/log/messages", "a shell command"),
    (r"PS C:\Users\ana> Get-ChildItem -Recurse | Select-Object Name", "a shell command"),
    ("$ docker compose up -d --build", "a shell command"),
    ("# apt-get install -y postgresql-client", "a shell command"),
    ("% brew upgrade --cask firefox", "a shell command"),
    (">>> import numpy as np", "a shell command"),
    ("sudo chown -R www-data:www-data /srv/site", "a shell command"),
    ("git commit -am 'bump version'", "a shell command"),
    ("kubectl get pods -n staging", "a shell command"),
    (r"C:\Projects\api>dotnet build", "a shell command"),
    ("(venv) maria@thinkpad:~/code/shop$ python manage.py migrate", "a shell command"),
    ("git rebase origin develop", "a shell command"),
    # a line of code
    ("console.log(`user ${id} logged in`);", "a line of code"),
    ("def parse_header(line: str) -> dict:", "a line of code"),
    ("const router = express.Router();", "a line of code"),
    ("public static void main(String[] args) {", "a line of code"),
    # a path alone
    ("/etc/nginx/sites-available/default", "a file path"),
    (r"C:\Users\Maria\Documents\budget-2026.xlsx", "a file path"),
    (r"\\nas01\photos\2025\summer", "a file path"),
    ("./scripts/deploy.sh", "a file path"),
    ("~/Library/Application Support/Obsidian/obsidian.json", "a file path"),
    ("docs/guides/setup.md", "a file path"),
    # e-mail: signatures, boilerplate, headers
    (
        "Best wishes, Priya Raman | Head of Operations | priya.raman@northwind.co.uk",
        "an e-mail signature",
    ),
    ("Yours sincerely, Dr. Helen Okafor", "an e-mail signature"),
    (
        "Mit freundlichen Grüßen, Jonas Weber – Projektleiter – Tel. +49 30 1234567",
        "an e-mail signature",
    ),
    ("T: 020 7946 0123 | M: 07700 900456 | E: hello@brightside.io", "an e-mail signature"),
    ("Sent from my Galaxy", "e-mail boilerplate"),
    ("Get Outlook for Android", "e-mail boilerplate"),
    (
        "If you have received this email in error please notify the sender immediately",
        "e-mail boilerplate",
    ),
    ("-----Original Message-----", "e-mail boilerplate"),
    ("On Fri, 14 Nov 2026 at 09:12, Tom Hughes <tom@hughes.dev> wrote:", "e-mail boilerplate"),
    ("You are receiving this email because you signed up at our store", "e-mail boilerplate"),
    ("© 2026 Northwind Traders Ltd. All rights reserved.", "e-mail boilerplate"),
    ("From: Lena Fischer <lena.fischer@example.org>", "an e-mail header"),
    ("Sent: Monday, 9 November 2026 14:32", "an e-mail header"),
    ("Subject: RE: Q4 forecast", "an e-mail header"),
    ("Content-Type: text/html; charset=UTF-8", "an e-mail header"),
    ("From: Accounts Sent: 2 March 2026 10:05 To: Ops Team Subject: invoice", "an e-mail header"),
    # SQL
    ("SELECT id, email FROM users WHERE created_at > '2026-01-01';", "an SQL statement"),
    ("select * from orders limit 10", "an SQL statement"),
    ("UPDATE accounts SET balance = balance - 50 WHERE id = 7;", "an SQL statement"),
    ("INSERT INTO tags (name) VALUES ('urgent');", "an SQL statement"),
    ("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT);", "an SQL statement"),
    ("DELETE FROM sessions WHERE expires_at < now();", "an SQL statement"),
    # YAML, TOML, INI, .env
    ("max_connections: 200", "a config line"),
    ("apiVersion: apps/v1", "a config line"),
    ("[tool.pytest.ini_options]", "a config line"),
    ("DATABASE_URL=postgres://app:secret@localhost:5432/app", "a config line"),
    ("enabled: true", "a config line"),
    ("retry_backoff = 2.5", "a config line"),
    ('[remote "origin"]', "a config line"),
    # JSON, CSV, tables
    ('{"user": "ana", "roles": ["admin", "editor"]}', "JSON data"),
    ('"timeout_ms": 3000,', "JSON data"),
    ("| 2026-11-03 | Rent | -950.00 |", "a table row"),
    ("1042,2026-10-31,paid,149.99,", "a CSV row"),
    ("sku;qty;price;warehouse_id", "a CSV row"),
    # hashes, ids, tokens alone
    ("3f2a9c1e-7b4d-4e8a-9f10-2c6d5e8b1a77", "a hash or an id"),
    ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "a hash or an id"),
    ("commit 9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6", "a hash or an id"),
    ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjMifQ.abc123signature", "a hash or an id"),
    ("dGhpcyBpcyBhIHNlY3JldCBtZXNzYWdlIQ==", "a hash or an id"),
    # HTML and XML
    ('<div class="card-body">', "an HTML or XML tag"),
    ('<?xml version="1.0" encoding="UTF-8"?>', "an HTML or XML tag"),
    ("</section>", "an HTML or XML tag"),
    ('<meta name="viewport" content="width=device-width">', "an HTML or XML tag"),
    ('<w:t xml:space="preserve">', "an HTML or XML tag"),
    # log lines
    ("[WARNING] Using platform encoding UTF-8", "a log line"),
    ("2026-11-30T22:04:11.532Z error pool exhausted", "a log line"),
    ("E/AndroidRuntime( 2211): FATAL EXCEPTION: main", "a log line"),
    ("GET /static/app.css HTTP/1.1", "a log line"),
    ("INFO:uvicorn.access:127.0.0.1 - GET / 200", "a log line"),
    # stack frames of .NET, Rust, Go, browsers, PHP, Ruby, Java, Python
    ("   at Shop.Checkout.Cart.Total(Decimal discount)", "a traceback"),
    ("  4: core::result::unwrap_failed", "a traceback"),
    ("main.go:42 +0x1a5", "a traceback"),
    ("created by net/http.(*Server).Serve", "a traceback"),
    ("handleClick@http://localhost:5173/src/App.jsx:27:15", "a traceback"),
    ("#1 /var/www/html/app/Cart.php(88): Cart->total()", "a traceback"),
    ("app/controllers/orders_controller.rb:23:in `create'", "a traceback"),
    ("... 23 more", "a traceback"),
    ("During handling of the above exception, another exception occurred:", "a traceback"),
    # mash, placeholder text, lines meant for an assistant
    ("lkjhlkjh poiupoiu", "keyboard mash"),
    ("ghghghghgh", "keyboard mash"),
    ("Sed ut perspiciatis unde omnis iste natus error sit voluptatem", "placeholder text"),
    ("The quick brown fox jumps over the lazy dog", "placeholder text"),
    ("Your text here", "placeholder text"),
    ("[Insert company name]", "placeholder text"),
    ("proofread this paragraph: their going to the park tomorow", "addressed to an assistant"),
    ("what is the capital of mongolia", "addressed to an assistant"),
    ("generate an image of a cat wearing a crown", "addressed to an assistant"),
    ("Translate to German: where is the train station", "addressed to an assistant"),
    ("please write a limerick about a cat", "addressed to an assistant"),
    ("write a javascript function that sums an array", "addressed to an assistant"),
    ("Dear ChatGPT, plan my week", "addressed to an assistant"),
    # more of each: a subcommand alone, a chain, a signature's first line, a footer's links
    ("yarn add date-fns", "a shell command"),
    ("cd ~/src/blog && hugo server -D", "a shell command"),
    ("Kind regards,", "an e-mail signature"),
    ("Sent from Yahoo Mail on Android", "e-mail boilerplate"),
    ("Confidentiality Notice: the contents of this message are privileged", "e-mail boilerplate"),
    ("Unsubscribe | Manage preferences | View in browser", "e-mail boilerplate"),
    ("version: 2.4.1", "a config line"),
    ('"id","title","due"', "a CSV row"),
    ("NullPointerException", "a traceback"),
    ("fatal: not a git repository: .git", "a program's message"),
    ("Error: Cannot find module 'lodash'", "a program's message"),
    ("if user is None: raise KeyError('missing')", "a line of code"),
    ("rows = db.fetch_all(query)", "a line of code"),
    ("➜  blog git:(main) ✗ hugo server", "a shell command"),
    ("PS> Set-ExecutionPolicy RemoteSigned -Scope CurrentUser", "a shell command"),
    ("./node_modules/.bin/eslint", "a file path"),
    (
        "Dr. Amara Nwosu, MD | Consultant Cardiologist | St Mary's Hospital | 020 3312 6666",
        "an e-mail signature",
    ),
    ("This email has been scanned for viruses.", "e-mail boilerplate"),
    ("image: postgres:16-alpine", "a config line"),
    ('"Smith, John",42,"London",2026-01-01', "a CSV row"),
    ("AKIAIOSFODNN7EXAMPLE", "a hash or an id"),
    ("2026/12/05 10:00:00 http: TLS handshake error from 1.2.3.4:5555: EOF", "a log line"),
    ("   at System.Linq.Enumerable.First[TSource](IEnumerable`1 source)", "a traceback"),
    # code of more languages, a line at a time as a paste gives it
    ("for i in range(10):", "a line of code"),
    ("with open(path) as f:", "a line of code"),
    ("class Store(Base):", "a line of code"),
    ("except KeyError as e:", "a line of code"),
    ("let mut count = 0;", "a line of code"),
    ("int main(void) {", "a line of code"),
    ("export default App;", "a line of code"),
    (".btn-primary { color: #fff; }", "a line of code"),
    ("margin: 0 4px;", "a line of code"),
    ("<?php echo $name; ?>", "an HTML or XML tag"),
]

LOOKALIKES = [
    # a sign a program uses, in a person's words
    "+1 to Sam's idea for the offsite",
    "$50 for the school trip by friday",
    "~3 hours on the report today",
    "From: mum, buy milk",
    "Kind regards to Sam when you see him",
    "C: call the bank",
    "SELECT a venue for the party",
    "> remember to water the plants",
    "- call the plumber about the leak",
    "+ add eggs to the shopping list",
    "-5 degrees tonight, cover the roses",
    "- return the library book (overdue)",
    "- if it rains: move the bbq indoors",
    "+ ideas for Jo's birthday: cake, zoo",
    "- 2 tins of tomatoes",
    "# 3 on the list: fix the gate",
    "% of the budget left for marketing is tiny, ask Priya",
    "$ 20 owed to Ben for the taxi",
    "> cd player for the car boot sale",
    # a program's name that is also a word or a name
    "git gud at chess this winter",
    "make dinner for the Okafors on saturday",
    "cat food and litter from the big shop",
    "find the passports before the trip",
    "kill the weeds on the patio",
    "ruby's birthday party on sunday",
    "run 5k before work tomorrow",
    "docker course on udemy looks good, maybe for Q1",
    "ssh keys for the new laptop, ask IT",
    "pip the dog needs worming",
    "npm is down, ask Dev about the build",
    "brew some coffee before the call",
    "python course for the kids in january",
    "head of department meeting on monday",
    "touch base with Ana re the contract",
    "import the photos from the camera",
    "from the garden: 3 courgettes and some beans",
    "let Sam know the party moved",
    "print the boarding passes (2 copies)",
    "def going to the match on saturday",
    # slashes that are no path
    "/r/woodworking had a great idea for the shed",
    "and/or we could do the picnic in the park",
    "24/7 pharmacy near the station closes at midnight now",
    "/ 3 for the split bill",
    # e-mail words in a thought
    "Note: buy milk",
    "Reminder: dentist at 3pm on Thursday",
    "Subject for the essay: climate and cities",
    "Subject: the talk for Year 9",
    "To: Sam, the key is under the pot",
    "Date: the 14th works for everyone",
    "sent from my phone to the printer at work",
    "Thanks Sam for the lift home, return his jacket",
    "Best of luck to Dev with the exam tomorrow",
    "Regards from Lisbon, Ana says hi",
    "Cheers, Ana, see you at the pub on friday",
    "Ana Lopez | dentist | thursday 3pm",
    "Sam Taylor +44 20 7946 0958 new mobile",
    "On Friday Sam wrote: the draft is ready",
    "copyright the photos before posting them",
    "this email is confidential per Sam, don't forward it",
    # SQL words in a thought
    "select the tiles for the bathroom from the catalogue",
    "Select a caterer from the list Jo sent",
    "update mum on the set list",
    "delete from the calendar the old dentist slot",
    "create table plan for the wedding",
    "Create index cards for the talk",
    "drop table at the tip on saturday",
    # key: value in a thought
    "todo: buy milk",
    "status: waiting on Sam's reply",
    "rent: 1200",
    "to-do: laundry",
    "follow-up: Sam",
    "see: [[Sam Taylor]]",
    'quote: "the map is not the territory"',
    "max: 3 kids in the car",
    "budget = 500 for the party",
    "due:: 2026-12-08 renew the passport",
    # brackets, data and markup in a thought
    "[[Ana Lopez]] birthday on the 12th",
    "[urgent] call the insurer",
    "[to-do]",
    "eggs,milk,bread,butter",
    "milk,eggs,flour,2 lemons",
    "<3 this idea for the garden",
    "<b>pay the rent</b> by friday",
    "<Sam> said the boat is ready",
    "deadbeef cafe menu looks fun",
    "wifi code for the cabin is fish42",
    # log-like and question-like thoughts
    "Meeting at 10:30 with Priya (room 4)",
    "2026-12-01 dentist 10:30",
    "ERROR in the invoice, tell Ana",
    "INFO: the venue moved to the annex",
    "what is the capital gains allowance this year",
    "translate into French for Marie: the invite",
    "review this email from the school before replying",
    "fix the following: gate, fence, shed door",
    "100% done with the tax return",
    "write a script to back up the photos",
    # a program's label, a valediction, a wake word, a footer's word, in a person's words
    "Error: the invoice total is wrong, tell Ana",
    "Error: 'Sam' spelt wrong on the invite",
    "warning: the car is low on oil",
    "fatal: the battery died again on the motorway",
    "hint: Sam likes orchids",
    "time and/or money is the question for the trip",
    "go / no go decision for the loft conversion",
    "cut 20% off the kitchen budget",
    "Kind regards to the Patels",
    "Best wishes for the new job Priya",
    "version: the final one goes to print on monday",
    "please write to the council about the bins",
    "please write a card for mum's birthday",
    "write a poem for Dad's 70th",
    "yarn for the scarf from the market",
    "cd player still broken",
    "make time for the kids this weekend",
    "find out who owns the red van",
    "open the post from the council",
    "sort the garage out before winter",
    "Hello Alexa, nice to meet you at the fair",
    "Dear Alexa, happy birthday from all of us",
    "hey claude is coming to dinner",
    "Sent from my sister: the recipe for flapjacks",
    "sent from my work account by mistake, ask IT to recall it",
    "Unsubscribe from the gym newsletter",
    "Privacy policy update from the bank, read it",
    "NullPointerException again in the app, ask Dev",
    # a key and a value, a prompt's sign, a name with letters after it, a role taken on
    "time: 10:30 dentist",
    "image: sunset over the bay for the card",
    'motto = "be kind"',
    'name = "Biscuit" for the new puppy',
    'word = "hygge"',
    "PS: don't forget the cake",
    "PS> call mum back",
    "ps. Sam owes me £20",
    "➜ call the garage about the MOT",
    "Dr. Lee, GP | Monday 9am | bring the letter",
    "Dr. Amara Nwosu is the new GP at the practice",
    "../notes on the meeting",
    "2026/12/05 dentist at 10:00",
    "Jon, Ana, Sam, Priya: dinner on the 14th",
    "Sam,Ana,Jo all coming saturday",
    "apples;pears;plums",
    "3,5,8 are the numbers for the lock",
    "at System of a Down gig with Jo (amazing)",
    "this email has been great, thank Sam",
    "This email has been forwarded to Ana, check with her",
    "you are a star, Sam",
    "act as treasurer for the PTA this year",
    "act as a go-between for Sam and Ana",
    "Summary: the meeting went well",
    "Summarise the meeting notes for Sam",
    "Explain the new rota to Jo",
    "Generate ideas for the school fair",
    "write a 1000 word essay for history by monday",
    "Kind regards from all of us at number 12",
    "Warm regards to your mum",
    "Best, and thanks again for the lift",
    "With thanks to Ana for the flowers",
    "Sincerely hope the weather holds for the wedding",
    "Regards to Tom",
    # a professional's shorthand, a programmer's to-do, Obsidian's own syntax
    "pt in bed 4 BP 140/90 recheck @ 14:00",
    "VAT Q3 £1,245.60 due 07/01",
    "refactor auth.py before the release",
    "bump lodash to 4.17.21 in the shop repo",
    "look into why npm install is slow on the CI box",
    "ssh into the NAS and check the disk",
    "fix the 404 on /pricing before launch",
    "move ~/Downloads clutter to the archive drive",
    "C:\\ drive is full again, clear the old photos",
    "meet @ 3pm w/ Sam re: budget",
    "Ana's email is ana.lopez@example.com, add to contacts",
    "x = number of guests, need it by friday",
    "priority:: high call the insurer",
    "`npm run build` fails on the new laptop, ask Dev",
    "warning light on the dashboard, book the garage",
    "INFO evening at the school on the 12th",
    "Fatal Attraction is on tonight",
    "Update: the contract is signed",
    "Subject to change: the offsite in March",
    "A: call the bank, B: email Sam",
    "+44 20 7946 0958 is the new office number",
    "~/notes is getting messy, tidy it on sunday",
    "docker compose file for the home server needs a rewrite",
    "sudo is the name of Ana's cat",
    # a keyword of code, in a person's words
    "for the party: balloons and cake",
    "with Sam: plan the trip to Lisbon",
    "class trip to the museum: pack lunch",
    "else: we do the picnic at home",
    "try: the new thai place on friday",
    "except Sam, everyone is coming",
    "note: call mum at 6;",
    "colour: blue for the nursery walls",
    "margin of error on the quote is 10%",
    "for i in the list of names, send invites",
]


@pytest.fixture(scope="module")
def emb() -> Embedded:
    return corpus_embedded()


def test_the_tables_are_wide() -> None:
    assert len(NOISE) >= 60
    assert len(LOOKALIKES) >= 60
    assert len({why for _, why in NOISE}) >= 15


@pytest.mark.parametrize(("text", "why"), NOISE)
def test_machine_text_files_nothing_and_says_which_kind(text: str, why: str, emb: Embedded) -> None:
    c = analyse(text, DAY, emb).classification
    assert c.noise == why
    assert [d.type for d in c.destinations] == ["unknown"]
    assert c.confidence == 0.0


@pytest.mark.parametrize("text", LOOKALIKES)
def test_a_thought_that_looks_like_machine_text_stays_a_thought(text: str, emb: Embedded) -> None:
    c = analyse(text, DAY, emb).classification
    assert c.noise is None
