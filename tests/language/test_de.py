"""German: commands in everyday wording, everything that must not be read as one, and claims."""

from __future__ import annotations

from support.readers import conversation_tests, language_tests

ADD, LIST, COMPLETE, DELETE, UPDATE = "add_task", "list_tasks", "complete_task", "delete_task", "update_task"

COMMANDS: list[tuple[str, list[str]]] = [
    # Deleting: V1 imperatives, verb-final infinitives, request frames.
    ("Lösch die Aufgabe Steuern", [DELETE]),
    ("lösche Sport", [DELETE]),
    ("entferne den Zahnarzttermin", [DELETE]),
    ("loesch bitte die alte Rechnung", [DELETE]),
    ("Kannst du Steuern löschen?", [DELETE]),
    ("Könntest du bitte die Aufgabe Sport entfernen?", [DELETE]),
    ("Aufgabe Steuern löschen", [DELETE]),
    ("bitte den Arzttermin entfernen", [DELETE]),
    ("Streich den Friseur", [DELETE]),
    ("Nimm Sport von meiner Liste", [DELETE]),
    ("Wirf die alte Rechnung raus", [DELETE]),
    ("Mach den Zahnarzt weg", [DELETE]),
    ("Ich möchte die Aufgabe Gym session löschen", [DELETE]),
    ("Lösch die Aufgabe, die nicht erledigt ist", [DELETE]),  # decision: a relative clause's "nicht"
    ("lösch die Aufgabe die noch nicht erledigt ist", [DELETE]),  # ...also without the comma
    ("Würdest du 'Read book' löschen?", [DELETE]),
    # Adding: separable prefixes, discontinuous patterns, colloquial and polite.
    ("Füg Milch hinzu", [ADD]),
    ("Füge 'Read book' zu meiner Liste hinzu", [ADD]),
    ("fuege Brot und Eier hinzu", [ADD]),
    ("bitte Milch hinzufügen", [ADD]),
    ("Milch, Eier und Brot hinzufuegen", [ADD]),
    ("Kannst du Eier auf die Einkaufsliste setzen?", [ADD]),
    ("Neue Aufgabe: Brot kaufen", [ADD]),
    ("Erinnere mich daran, die Miete zu zahlen", [ADD]),
    ("Schreib Brot auf die Einkaufsliste", [ADD]),
    ("Notier dir: Klempner anrufen", [ADD]),
    ("Trag den Zahnarzt für Freitag ein", [ADD]),
    ("Leg eine neue Aufgabe für die Steuererklärung an", [ADD]),
    ("Ich möchte eine Aufgabe anlegen: Blumen gießen", [ADD]),
    ("Vergiss nicht, Call plumber auf die Liste zu setzen", [ADD]),
    # Completing.
    ("Hak Steuern ab", [COMPLETE]),
    ("hake die Wäsche ab", [COMPLETE]),
    ("Markiere Sport als erledigt", [COMPLETE]),
    ("Steuern ist erledigt", [COMPLETE]),
    ("Die Wäsche ist jetzt fertig", [COMPLETE]),
    ("Brot erledigt", [COMPLETE]),
    ("Pay rent abhaken", [COMPLETE]),
    ("Kannst du den Bericht als erledigt markieren?", [COMPLETE]),
    ("Streich Brot durch", [COMPLETE]),  # complete_task first, delete_task also accepted
    ("Setz Sport auf erledigt", [COMPLETE]),  # complete_task first, update_task also accepted
    # Updating.
    ("Verschieb Sport auf Freitag", [UPDATE]),
    ("Ändere die Priorität von Sport auf hoch", [UPDATE]),
    ("Benenne Sport in Schwimmen um", [UPDATE]),
    ("Sport auf morgen verschieben", [UPDATE]),
    ("Markiere die Wäsche als nicht erledigt", [UPDATE]),  # reopening is an update
    ("Aktualisiere die Aufgabe Sport", [UPDATE]),
    ("Mach Sport dringend", [UPDATE]),
    ("Füg eine Notiz zu Sport hinzu", [UPDATE]),  # a field of Sport: an edit, not a new task
    ("Entferne das Datum von Steuern", [UPDATE]),
    ("Setz die Priorität von Sport auf niedrig", [UPDATE]),
    # Listing.
    ("Zeig mir meine Aufgaben", [LIST]),
    ("Was steht heute an?", [LIST]),
    ("Welche Aufgaben sind noch offen?", [LIST]),
    ("Wie viele Aufgaben habe ich?", [LIST]),
    ("Meine Aufgaben", [LIST]),
    ("Kannst du mir meine Aufgaben zeigen?", [LIST]),
    ("Gibt es noch offene Aufgaben für morgen?", [LIST]),
    # Several actions, corrections, and a report beside a request.
    ("Lösch Steuern und hak Sport ab", [DELETE, COMPLETE]),
    ("Füg Milch hinzu, lösch Sport und hak die Wäsche ab", [ADD, DELETE, COMPLETE]),
    ("Verschieb Sport auf Freitag und zeig mir dann meine Aufgaben", [UPDATE, LIST]),
    ("Ich habe gestern Sport gelöscht, kannst du es wieder hinzufügen?", [ADD]),
    ("Lösch Sport nicht, hak es stattdessen ab", [COMPLETE]),
    ("Lösch Sport. Nein, warte. Lösch Steuern", [DELETE]),
    ("Hallo Taskchat, füg schnell 'Mama anrufen' hinzu", [ADD]),
]

NOT_COMMANDS: list[tuple[str, str | None]] = [
    # Questions, yes/no and wh-, about the tasks' state or history.
    ("Habe ich die Steuern schon erledigt?", "state"),
    ("Was habe ich heute Morgen hinzugefügt?", "question"),
    ("Wann habe ich Milch hinzugefügt?", "state"),
    ("Ist die Wäsche erledigt?", "state"),
    ("Ist der Bericht schon abgehakt?", "question"),
    ("Wurde Sport gelöscht?", "question"),
    ("Hast du Sport gelöscht?", "question"),
    ("Warum hast du meine Aufgabe Sport entfernt?", "question"),
    ("Wer hat diese Aufgabe hinzugefügt?", "question"),
    ("Habe ich Steuern erledigt und Sport gelöscht?", "question"),
    ("Wie lösche ich eine Aufgabe?", "question"),
    ("Wie füge ich Aufgaben hinzu?", "question"),
    ("Kann ich Aufgaben löschen?", "question"),
    ("Man kann Aufgaben auch löschen", "question"),
    ("Was passiert, wenn ich eine Aufgabe lösche?", "question"),
    ("Steuern löschen?", "question"),
    # Advice-seeking.
    ("Soll ich die alten Rechnungen löschen?", "advice"),
    ("Sollte ich Sport lieber entfernen?", "advice"),
    ("Meinst du, ich sollte Sport streichen?", "advice"),
    ("Muss ich den Bericht zuerst abhaken?", "advice"),
    ("Was meinst du, soll ich Sport abhaken?", "advice"),
    ("Lohnt es sich, Milch hinzuzufügen?", None),
    # Reports and hypotheticals.
    ("Ich hätte fast die Sport-Aufgabe gelöscht", "report"),
    ("Ich wollte eigentlich Sport löschen", "report"),
    ("Mein Chef hat mich gebeten, einen Bericht hinzuzufügen", None),
    ("Mein Chef will, dass ich Sport lösche", "report"),
    ("Meine Frau möchte die Aufgabe Sport löschen", "report"),
    ("Ich habe aus Versehen Milch zweimal hinzugefügt", "report"),
    ("Ich habe die Steuern erledigt", "report"),
    ("Wenn ich Sport lösche, ist es dann für immer weg?", None),
    ("Ich überlege, ob ich Sport lösche", None),
    ("Ich werde es später selbst hinzufügen", "report"),
    ("Vielleicht lösche ich Sport später", "report"),
    ("Ich wollte Steuern löschen und Milch hinzufügen", "report"),
    ("Ich muss morgen noch den Bericht abhaken", "report"),
    ("Er hat die Aufgabe Sport entfernt", "report"),
    ("Mein Kollege sagte, ich soll Sport löschen", "report"),
    # Negations and retractions.
    ("Lösch das nicht", "negated"),
    ("bitte nicht löschen", "negated"),
    ("Lösch bloß nicht die Steuern", "negated"),
    ("Ich will Sport nicht löschen", "negated"),
    ("Keine Aufgaben löschen!", "negated"),
    ("Lösch nichts", "negated"),
    ("Du musst Sport nicht abhaken", "negated"),
    ("Sport noch nicht abhaken", "negated"),
    ("Steuern ist nicht erledigt", "negated"),
    ("Warte, lass das", "negated"),
    ("Lösch Sport. Nein, warte, lass es", "negated"),
    ("Füg Milch hinzu. Ach nee, vergiss es", "negated"),
    ("Vergiss es", "negated"),
    ("Doch nicht", "negated"),
    ("Halt, nicht die!", "negated"),
    ("Ich habe es mir anders überlegt", "negated"),
    ("Behalt sie lieber", "negated"),
    ("Warte, lass Sport drin", "negated"),
    # Talk.
    ("Ich bin mit der Wäsche fertig", None),
    ("Danke, das war's", None),
    ("Hallo", None),
    ("Guten Morgen!", None),
    ("Das ist erledigt", None),
]

CLAIMS: list[tuple[str, str | None]] = [
    ("Sport wurde gelöscht.", DELETE),
    ("Steuern ist von deiner Liste entfernt worden.", DELETE),
    ("Ich habe Milch hinzugefügt.", ADD),
    ("Milch, Eier und Brot wurden zu deiner Liste hinzugefügt.", ADD),
    ("Die Aufgabe Steuern ist jetzt erledigt.", COMPLETE),
    ("Erledigt! Alles hat geklappt.", None),
    ("Fertig, ich habe Sport gelöscht.", DELETE),
    ("Sport wurde auf Freitag verschoben.", UPDATE),
    ("Ich habe die Priorität von Sport geändert.", UPDATE),
    ("Die Aufgabe wurde erfolgreich erstellt.", ADD),
    ("Sport ist weg.", DELETE),
    ("Ich habe Sport als erledigt markiert.", COMPLETE),
    ("Brot ist abgehakt und Sport entfernt.", COMPLETE),
    ("Die Aufgabe, die nicht erledigt war, wurde gelöscht.", DELETE),
]

NOT_CLAIMS = [
    "Soll ich sie löschen?",
    "Ich kann Sport löschen, wenn du willst.",
    "Es wurde nichts gelöscht.",
    "Nichts wurde entfernt.",
    "Du hast Steuern am Montag erledigt.",
    "Hier sind deine erledigten Aufgaben: Steuern.",
    "Du hast 2 Aufgaben: Steuern (erledigt), Sport (offen).",
    "Ich werde Milch gleich hinzufügen.",
    "Sport ist noch da; es wurde nichts entfernt.",
    "Ich habe nichts gelöscht.",
    "Sobald sie hinzugefügt ist, siehst du sie hier.",
    "Welche Aufgabe soll gelöscht werden?",
    "Steuern ist bereits erledigt.",
    "Die Aufgabe wird gelöscht, wenn du bestätigst.",
]

DENIALS = [
    "Leider konnte ich Milch nicht hinzufügen.",
    "Ich konnte die Aufgabe Sport nicht löschen.",
    "Keine Aufgabe namens 'Sport' gefunden.",
    "Beim Aktualisieren ist ein Fehler aufgetreten.",
    "Tut mir leid, das hat nicht geklappt.",
]
NOT_DENIALS = ["Milch hinzugefügt.", "Gelöscht: Sport.", "Du hast 3 Aufgaben.", "Sport wurde abgehakt."]


test_commands, test_not_commands, test_claims, test_not_claims, test_denials, test_not_denials = language_tests(
    COMMANDS, NOT_COMMANDS, CLAIMS, NOT_CLAIMS, DENIALS, NOT_DENIALS
)

# Which language a message is in, small talk, undo, and references into the conversation.
DETECTS = [
    "lösch die Aufgabe Sport",
    "was steht heute an?",
    "vielen Dank, das wär's",
    "ja bitte",
    "füg Milch zu meiner Einkaufsliste hinzu",
    "hab ich die Steuern schon erledigt?",
    "guten Morgen, wie geht's?",
    "mach das rückgängig",
    "nein, lass das",
    "erinnere mich morgen an den Zahnarzt",
]
SMALL_TALK = [
    "danke",
    "vielen Dank",
    "danke dir",
    "danke schön",
    "alles klar",
    "super, danke",
    "guten Morgen",
    "hallo",
    "wie geht's?",
    "tschüss",
    "bis später",
    "prima",
]
UNDOS = [
    "mach das rückgängig",
    "rückgängig machen",
    "bitte rückgängig machen",
    "mach die letzte Änderung rückgängig",
    "kannst du das rückgängig machen?",
    "stell sie wieder her",
    "nimm das zurück",
    "Rückgängig!",
    "mach das rueckgaengig",
]
REFERENCES = [
    ("das", "this"),
    ("diese Aufgabe", "this"),
    ("die vorherige", "previous"),
    ("die davor", "previous"),
    ("die ich gerade hinzugefügt habe", "just_added"),
    ("die neue", "just_added"),
    ("die erste", "first"),
    ("die zweite", "second"),
    ("den zweiten", "second"),  # the accusative: "welchen meinst du?" "den zweiten"
    ("den ersten", "first"),
    ("die dritte", "third"),
    ("Nummer 2", "second"),
    ("die letzte", "this"),
    ("diese letzte Aufgabe", "this"),
]

test_detects, test_small_talk, test_undos, test_references = conversation_tests(
    DETECTS, "de", SMALL_TALK, UNDOS, REFERENCES
)
