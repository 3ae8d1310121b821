"""Times of day and repeats as users say them, in every language with a file (issue 50): read by the
language files' `[dates] times` and `[repeats]` into a due time and an RFC 5545 RRULE, the words taken
out of the title. The wordings here were written apart from the ones the files were tuned on."""

from __future__ import annotations

import datetime as dt

import pytest

from backend.app.services.turn.commands import commands_in

SATURDAY = dt.date(2026, 12, 5)
TU, MO, FR, SU = "FREQ=WEEKLY;BYDAY=TU", "FREQ=WEEKLY;BYDAY=MO", "FREQ=WEEKLY;BYDAY=FR", "FREQ=WEEKLY;BYDAY=SU"
WORKDAYS = "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"
FIRST = "FREQ=MONTHLY;BYMONTHDAY=1"

# (message, the title, the repeat, the due time or date) on Saturday 5 December 2026.
CASES = [
    ("add water the plants each friday", "water the plants", FR, None),
    ("add standup every weekday at 9:15am", "standup", WORKDAYS, "2026-12-07T09:15"),
    ("add pay rent on the 1st of each month", "pay rent", FIRST, None),
    ("add clean the gutters every 3 months", "clean the gutters", "FREQ=MONTHLY;INTERVAL=3", None),
    ("add dentist tomorrow at 2pm", "dentist", None, "2026-12-06T14:00"),
    ("add lunch with Sam tomorrow at noon", "lunch with Sam", None, "2026-12-06T12:00"),
    ("add call grandma every sunday at 6 pm", "call grandma", SU, "2026-12-06T18:00"),
    ("füge Müll rausbringen jeden Dienstag hinzu", "Müll rausbringen", TU, None),
    ("füge Miete zahlen am 1. jedes Monats hinzu", "Miete zahlen", FIRST, None),
    ("füge Meeting morgen um 9:30 Uhr hinzu", "Meeting", None, "2026-12-06T09:30"),
    ("füge Blumen gießen alle 2 Wochen hinzu", "Blumen gießen", "FREQ=WEEKLY;INTERVAL=2", None),
    ("füge Zeitung lesen täglich hinzu", "Zeitung lesen", "FREQ=DAILY", None),
    ("añade sacar la basura cada martes", "sacar la basura", TU, None),
    ("añade reunión mañana a las 10:30", "reunión", None, "2026-12-06T10:30"),
    ("añade llamar a mamá todos los domingos", "llamar a mamá", SU, None),
    ("añade gimnasio de lunes a viernes a las 7", "gimnasio", WORKDAYS, "2026-12-07T07:00"),
    ("ajoute sortir les poubelles chaque mardi", "sortir les poubelles", TU, None),
    ("ajoute réunion demain à 14h", "réunion", None, "2026-12-06T14:00"),
    ("ajoute payer le loyer le 1er de chaque mois", "payer le loyer", FIRST, None),
    ("ajoute yoga tous les lundis à 18h30", "yoga", MO, "2026-12-07T18:30"),
    ("aggiungi pagare l'affitto il 1 di ogni mese", "pagare l'affitto", FIRST, None),
    ("aggiungi riunione domani alle 15:30", "riunione", None, "2026-12-06T15:30"),
    ("aggiungi spesa ogni venerdì", "spesa", FR, None),
    ("voeg vuilnis buitenzetten elke dinsdag toe", "vuilnis buitenzetten", TU, None),
    ("voeg vergadering morgen om 14:30 toe", "vergadering", None, "2026-12-06T14:30"),
    ("voeg huur betalen elke maand toe", "huur betalen", "FREQ=MONTHLY", None),
    ("adiciona tirar o lixo toda terça", "tirar o lixo", TU, None),
    ("adiciona reunião amanhã às 10h30", "reunião", None, "2026-12-06T10:30"),
    ("adiciona pagar aluguel todo mês", "pagar aluguel", "FREQ=MONTHLY", None),
    ("lägg till ta ut soporna varje tisdag", "ta ut soporna", TU, None),
    ("lägg till möte i morgon kl 14:30", "möte", None, "2026-12-06T14:30"),
    ("lägg till vattna blommorna varannan vecka", "vattna blommorna", "FREQ=WEEKLY;INTERVAL=2", None),
    ("lägg till betala hyran den 1:a varje månad", "betala hyran", FIRST, None),
    ("lägg till träna på vardagar kl 7", "träna", WORKDAYS, "2026-12-07T07:00"),
    ("kal 3 baje doctor add karo", "doctor", None, "2026-12-06T03:00"),
    ("har peer gym add karo", "gym", MO, None),
]


@pytest.mark.parametrize(("message", "title", "rule", "due"), CASES, ids=[c[0] for c in CASES])
def test_a_time_and_a_repeat_are_read_out_of_the_title(
    message: str, title: str, rule: str | None, due: str | None
) -> None:
    [asked] = commands_in(message, today=SATURDAY)
    args = asked.args
    assert args["title"] == title, args
    assert args.get("recurrence") == rule, args
    assert (args.get("due_at") or args.get("due_date")) == due, args


@pytest.mark.parametrize(
    "message",
    [
        "add read chapter 3",
        "add buy 2 apples",
        "add call mom",
        "füge Einkaufen hinzu",
        "ajoute lait",
        "add every book I own to the shelf",
    ],
)
def test_words_that_are_no_time_or_repeat_stay_in_the_title(message: str) -> None:
    [asked] = commands_in(message, today=SATURDAY)
    assert "recurrence" not in asked.args and "due_at" not in asked.args, asked.args


@pytest.mark.parametrize(
    "message",
    [
        "add renew the passport next month",
        "füge Reifen wechseln nächsten Monat hinzu",
        "añade revisión del coche el mes que viene",
        "ajoute vaccin du chat le mois prochain",
        "aggiungi tagliando il mese prossimo",
        "voeg apk keuring volgende maand toe",
        "adiciona revisão do carro no mês que vem",
        "lägg till bilbesiktning nästa månad",
    ],
)
def test_next_month_is_the_same_day_of_the_next_month_or_its_last(message: str) -> None:
    """On 31 January, "next month" is 28 February (there is no 31st), read from the user's today."""
    [asked] = commands_in(message, today=dt.date(2027, 1, 31))
    assert asked.args.get("due_date") == "2027-02-28", asked.args
    assert "month" not in asked.args["title"].lower() and "mes" not in asked.args["title"].lower(), asked.args


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("add study John 3:16", "study John 3:16"),
        ("add read chapter 3:15", "read chapter 3:15"),
        ("add rate the movie as 5 stars", "rate the movie as 5 stars"),
        ("add call Roz", "call Roz"),
        ("ajoute faire 2 heures de ménage", "faire 2 heures de ménage"),
        ("voeg 2 uur oefenen toe", "2 uur oefenen"),
        ("ajoute appeler le 5 du mois", "appeler le 5 du mois"),
        ("add every 0 days stretch", "every 0 days stretch"),
    ],
)
def test_words_of_another_language_or_another_sense_are_no_time_or_repeat(message: str, title: str) -> None:
    """A message is read with its own language's words ("as 5" is Portuguese for "at 5", "roz" Urdu
    for "daily"); a bare "3:16" is a time only beside a day; a duration is no time of day."""
    [asked] = commands_in(message, today=SATURDAY)
    assert "recurrence" not in asked.args and "due_at" not in asked.args, asked.args
    assert asked.args["title"] == title, asked.args


def test_a_short_weekday_ends_a_repeat_only_at_the_end() -> None:
    """ "each sun lounger" is no Sunday repeat ("sun" alone is still read as a day, as before)."""
    [asked] = commands_in("add clean each sun lounger", today=SATURDAY)
    assert "recurrence" not in asked.args, asked.args


def test_a_time_cut_from_inside_brackets_leaves_no_word_twice() -> None:
    [asked] = commands_in("add call bob (5pm) tomorrow", today=SATURDAY)
    assert (asked.args["title"], asked.args["due_at"]) == ("call bob", "2026-12-06T17:00")


def test_a_later_longer_day_word_wins_as_before_and_combining_marks_go_with_their_letter() -> None:
    [asked] = commands_in("add record the tonight show tomorrow", today=SATURDAY)
    assert (asked.args["title"], asked.args["due_date"]) == ("record the tonight show", "2026-12-06")
    [decomposed] = commands_in("aggiungi chiama mamma ogni lunedi\u0300 alle 9", today=SATURDAY)
    assert decomposed.args["title"] == "chiama mamma" and decomposed.args["recurrence"] == "FREQ=WEEKLY;BYDAY=MO"


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("add buy milk (tomorrow)", "buy milk"),
        ("add urgent: fix the sink tomorrow", "fix the sink"),
        ("añade (mañana) comprar pan", "comprar pan"),
        ("füge Zahnarzt (Freitag) hinzu", "Zahnarzt"),
    ],
)
def test_a_date_or_priority_cut_from_the_title_leaves_no_word_twice(message: str, title: str) -> None:
    """Dates and priorities are cut as times and repeats are (`cut_chars`): by character, so a word
    in brackets or before a colon goes whole, not kept or doubled."""
    [asked] = commands_in(message, today=SATURDAY)
    assert asked.args["title"] == title, asked.args


@pytest.mark.parametrize(
    ("message", "title", "due"),
    [
        ("add call mom at 3", "call mom", "2026-12-05T03:00"),
        ("add call mom tomorrow at 3", "call mom", "2026-12-06T03:00"),
        ("add call mom at 3 tomorrow", "call mom", "2026-12-06T03:00"),
        ("add call mom at 3 on monday", "call mom", "2026-12-07T03:00"),
        ("añade llamar a mamá a las 5 el lunes", "llamar a mamá", "2026-12-07T05:00"),
        ("füge Zahnarzt morgen um 9 hinzu", "Zahnarzt", "2026-12-06T09:00"),
        # A word after the hour that no list knows does not make it a count ("look at 2 houses" is
        # read as a time too: telling the two apart needs more than the word after the number).
        ("add dentist at 9 on tuesday", "dentist", "2026-12-08T09:00"),
        ("add call mom at 5 before dinner", "call mom before dinner", "2026-12-05T05:00"),
        ("füge Meeting um 10 am Montag hinzu", "Meeting", "2026-12-07T10:00"),
    ],
)
def test_a_bare_hour_at_the_end_or_before_a_day_is_a_time(message: str, title: str, due: str) -> None:
    [asked] = commands_in(message, today=SATURDAY)
    assert asked.args["title"] == title, asked.args
    assert (asked.args.get("due_at") or asked.args.get("due_date")) == due, asked.args


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("add meet Bob at 5pm with Anna", "meet Bob with Anna"),
        ("füge Treffen mit Jana morgen um 10 Uhr im Büro hinzu", "Treffen mit Jana im Büro"),
        ("añade cena con Lucía a las 9 en Casa Pepe", "cena con Lucía en Casa Pepe"),
    ],
)
def test_a_title_read_around_a_time_keeps_its_spelling(message: str, title: str) -> None:
    [asked] = commands_in(message, today=SATURDAY)
    assert asked.args["title"] == title, asked.args


def test_each_title_read_around_a_time_takes_its_own_words() -> None:
    """The words of the second title are the second ones typed, not the first title's "Call"."""
    asked = commands_in("add Call Mom at 5pm and call dad at 6pm with Anna", today=SATURDAY)
    assert [a.args["title"] for a in asked] == ["Call Mom", "call dad with Anna"]


# "next monday" is the next Monday, as "monday" is: the word said with the weekday goes with it.
# (message, title) on Saturday 5 December 2026: due Monday 7 December.
NEXT_WEEKDAY = [
    ("add call mom next monday", "call mom"),
    ("add dentist this coming monday", "dentist"),
    ("remind me to renew the passport coming monday", "renew the passport"),
    ("añade llamar a mamá el próximo lunes", "llamar a mamá"),
    ("añade dentista el lunes que viene", "dentista"),
    ("füge Zahnarzt nächsten Montag hinzu", "Zahnarzt"),
    ("füge Müll rausbringen kommenden Montag hinzu", "Müll rausbringen"),
    ("ajoute dentiste lundi prochain", "dentiste"),
    ("aggiungi dentista lunedì prossimo", "dentista"),
    ("aggiungi chiamare la nonna il prossimo lunedì", "chiamare la nonna"),
    ("voeg tandarts volgende maandag toe", "tandarts"),
    ("voeg boodschappen aanstaande maandag toe", "boodschappen"),
    ("adicione dentista na próxima segunda", "dentista"),
    ("adicione pagar a luz segunda que vem", "pagar a luz"),
    ("lägg till tandläkare nästa måndag", "tandläkare"),
    ("dentist agle peer ko add kar do", "dentist"),
    # a word after the weekday, then another part of the words
    ("ajoute réunion lundi prochain avec Paul", "réunion avec Paul"),
    ("aggiungi riunione lunedì prossimo con Marco", "riunione con Marco"),
    ("adicione reunião segunda que vem com Ana", "reunião com Ana"),
    ("füge Meeting diesen Montag hinzu", "Meeting"),
    ("ajoute dentiste lundi prochain, urgent", "dentiste"),
]


@pytest.mark.parametrize(("message", "title"), NEXT_WEEKDAY, ids=[c[0] for c in NEXT_WEEKDAY])
def test_the_word_for_next_goes_with_its_weekday(message: str, title: str) -> None:
    [asked] = commands_in(message, today=SATURDAY)
    assert (asked.args["title"], asked.args.get("due_date")) == (title, "2026-12-07")


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("add plan the next big trip", "plan the next big trip"),  # no weekday beside it
        ("add next steps for the report", "next steps for the report"),
        ("add read the next chapter monday", "read the next chapter"),  # "next" not beside the weekday
        ("añade próximo viaje el lunes", "próximo viaje"),
        # a word after the weekday that goes with the next word, not with the day
        ("añade el lunes próxima reunión", "próxima reunión"),
        ("añade avisar que el lunes que viene Ana", "avisar que el que viene Ana"),
        ("add dinner with this sat crew", "dinner with this crew"),
    ],
)
def test_a_word_for_next_away_from_a_weekday_stays_in_the_title(message: str, title: str) -> None:
    [asked] = commands_in(message, today=SATURDAY)
    assert asked.args["title"] == title
