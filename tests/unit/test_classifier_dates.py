"""Date words as people type them, in five languages and in phone shorthand: a table."""

from __future__ import annotations

import datetime as dt

import pytest

from vaultbrain.classify.dates import find_date, mentions_date
from vaultbrain.classify.embedded import classify_embedded
from vaultbrain.packs import load_pack

TODAY = dt.date(2026, 12, 1)  # a Tuesday

# (thought, the date it names, the words that named it)
TABLE = [
    # phone shorthand
    ("dentist thurs 3pm", "2026-12-03", "thurs"),
    ("standup weds", "2026-12-02", "weds"),
    ("pay the gardener fri", "2026-12-04", "fri"),
    ("bbq on sat if it's dry", "2026-12-05", "on sat"),
    ("call the vet tmrw", "2026-12-02", "tmrw"),
    ("2moro: bins out", "2026-12-02", "2moro"),
    ("send the deck eod", "2026-12-01", "eod"),
    ("expenses in by eow", "2026-12-04", "by eow"),
    ("invoice eom", "2026-12-31", "eom"),
    ("rent by the 15th", "2026-12-15", "by the 15th"),
    ("school trip money on the 3rd", "2026-12-03", "on the 3rd"),
    ("payday is the 1st of next month", "2027-01-01", "next month"),
    ("board pack due the 20th", "2026-12-20", "due the 20th"),
    ("okr draft end of q2", "2027-06-30", "end of q2"),
    ("vendor review by q1", "2027-03-31", "by q1"),
    ("close the books by end of the quarter", "2026-12-31", "by end of the quarter"),
    # English words
    ("next Tuesday: parents evening", "2026-12-08", "next Tuesday"),
    ("book the MOT in 3 weeks", "2026-12-22", "in 3 weeks"),
    ("follow up in a couple of weeks", "2026-12-15", "in a couple of weeks"),
    ("check back in a fortnight", "2026-12-15", "in a fortnight"),
    ("renew it before 15 January", "2027-01-15", "before 15 January"),
    ("party on May 3rd", "2027-05-03", "on May 3rd"),
    ("tax return 31st of January", "2027-01-31", "31st of January"),
    ("ship it by the end of March", "2027-03-31", "by the end of March"),
    ("clear the gutters this weekend", "2026-12-05", "this weekend"),
    ("call mum tonight", "2026-12-01", "tonight"),
    ("the day after tomorrow we fly", "2026-12-03", "the day after tomorrow"),
    ("deadline 2027-02-01", "2027-02-01", "2027-02-01"),
    # German
    ("nächsten Dienstag Zahnarzt", "2026-12-08", "nächsten Dienstag"),
    ("morgen Altpapier rausstellen", "2026-12-02", "morgen"),
    ("übermorgen Elternabend", "2026-12-03", "übermorgen"),
    ("Steuererklärung bis Ende des Monats", "2026-12-31", "bis Ende des Monats"),
    ("am 15. die Miete überweisen", "2026-12-15", "am 15."),
    ("Termin am 3.2.2027", "2027-02-03", "3.2.2027"),
    ("Kita-Beitrag bis 10. Januar", "2027-01-10", "bis 10. Januar"),
    ("Reifenwechsel in zwei Wochen", "2026-12-15", "in zwei Wochen"),
    ("Unterlagen bis Fr. abgeben", "2026-12-04", "bis Fr"),
    ("am Wochenende den Keller aufräumen", "2026-12-05", "am Wochenende"),
    ("nächste Woche Bescheid geben", "2026-12-08", "nächste Woche"),
    # French
    ("payer le loyer fin de mois", "2026-12-31", "fin de mois"),
    ("appeler le notaire demain", "2026-12-02", "demain"),
    ("réunion mardi prochain", "2026-12-08", "mardi prochain"),
    ("rendre le dossier avant le 15", "2026-12-15", "avant le 15"),
    ("vaccin du chat le 1er janvier", "2027-01-01", "le 1er janvier"),
    ("relancer le client dans quinze jours", "2026-12-15", "dans quinze jours"),
    ("dans 3 semaines: bilan", "2026-12-22", "dans 3 semaines"),
    ("la semaine prochaine, rappeler Inès", "2026-12-08", "la semaine prochaine"),
    # Spanish
    ("mañana llamar al fontanero", "2026-12-02", "mañana"),
    ("pasado mañana entregar el informe", "2026-12-03", "pasado mañana"),
    ("el martes que viene cena con Lucía", "2026-12-08", "el martes que viene"),
    ("pagar el seguro antes del 20", "2026-12-20", "antes del 20"),
    ("renovar el DNI el 3 de febrero", "2027-02-03", "el 3 de febrero"),
    ("enviar las notas a fin de mes", "2026-12-31", "a fin de mes"),
    ("dentro de dos semanas revisión", "2026-12-15", "dentro de dos semanas"),
    # Portuguese
    ("amanhã levar o carro à oficina", "2026-12-02", "amanhã"),
    ("pagar a conta até sexta-feira", "2026-12-04", "até sexta-feira"),
    ("reunião na quinta", "2026-12-03", "na quinta"),
    ("renovar o passaporte 15 de março", "2027-03-15", "15 de março"),
    ("daqui a duas semanas: consulta", "2026-12-15", "daqui a duas semanas"),
    # words that are no date here
    ("por la mañana correr 5k", None, None),
    ("heute Morgen war es glatt", "2026-12-01", "heute"),
    ("sat on the sofa all day", None, None),
    ("c'mon, finish the draft", None, None),
    ("v2.1 is out", None, None),
    ("3/4 of the wall is painted", None, None),
    ("we may 3 times have said it", None, None),
    ("the 3rd floor toilet is broken", None, None),
    ("€84.20 for the plumber", None, None),
    ("la quinta de mis abuelos", None, None),
]


@pytest.mark.parametrize(("text", "date", "words"), TABLE)
def test_a_date_phrase_and_the_words_that_named_it(
    text: str, date: str | None, words: str | None
) -> None:
    found = find_date(text, TODAY)
    if date is None:
        assert found is None, found
        return
    assert found is not None, text
    assert (found[0].isoformat(), found[1]) == (date, words)
    assert mentions_date(text)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("end of q2", "2026-06-30"),  # before the quarter ends: this year's
        ("by the 15th", "2026-05-15"),  # the 15th has not come yet this month
        ("by the 3rd", "2026-06-03"),  # it has: next month's
        ("this weekend", "2026-05-09"),  # on a Saturday: today
    ],
)
def test_relative_phrases_move_with_today(text: str, date: str) -> None:
    found = find_date(text, dt.date(2026, 5, 9))
    assert found is not None and found[0].isoformat() == date


def test_a_date_word_is_the_due_date_and_leaves_the_title() -> None:
    pack = load_pack("vaultbrain-base")
    for text, due, title_word in [
        ("renew the parking permit thurs", "2026-12-03", "thurs"),
        ("Kfz-Steuer bezahlen nächsten Dienstag", "2026-12-08", "Dienstag"),
        ("payer la cantine fin de mois", "2026-12-31", "mois"),
    ]:
        c = classify_embedded(text, TODAY, pack=pack)
        admin = [d for d in c.destinations if d.type == "admin"]
        assert admin, (text, c.destinations)
        assert admin[0].fields.get("due") == due
        assert title_word not in admin[0].title
