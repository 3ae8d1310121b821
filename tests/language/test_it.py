"""Italian: commands in everyday wording, everything that must not be read as one, and claims."""

from __future__ import annotations

from support.readers import conversation_tests, language_tests

ADD, LIST, COMPLETE, DELETE, UPDATE = "add_task", "list_tasks", "complete_task", "delete_task", "update_task"

COMMANDS: list[tuple[str, list[str]]] = [
    # Delete: tu, Lei, enclitics, clitics before the verb, polite frames, infinitive.
    ("cancella la palestra", [DELETE]),
    ("cancellala", [DELETE]),
    ("toglila dalla lista", [DELETE]),
    ("toglimela di mezzo", [DELETE]),
    ("eliminala", [DELETE]),
    ("elimina l'attività dentista", [DELETE]),
    ("leva via la voce bollette", [DELETE]),
    ("butta via il promemoria garage", [DELETE]),
    ("annulla la riunione di domani", [DELETE]),
    ("togli Read book dalla mia lista", [DELETE]),
    ("Cancelli l'attività «Riunione budget», per cortesia.", [DELETE]),
    ("puoi cancellare l'attività palestra?", [DELETE]),
    ("potresti cancellarla?", [DELETE]),
    ("mi cancelli la palestra?", [DELETE]),
    ("me la togli dalla lista?", [DELETE]),
    ("voglio che tu cancelli la spesa", [DELETE]),
    ("Cancellare l'attività Pay rent", [DELETE]),
    ("se puoi, cancella la palestra", [DELETE]),
    ("ok allora togli l'attività sport per favore", [DELETE]),
    ("cancella 'Update CV'", [DELETE]),
    # Add.
    ("aggiungi comprare il pane", [ADD]),
    ("aggiungi latte, uova e burro", [ADD]),
    ("aggiungimi chiamare la mamma domani", [ADD]),
    ("metti il latte nella lista della spesa", [ADD]),
    ("segnami il dentista per giovedì", [ADD]),
    ("crea un'attività per pagare l'affitto", [ADD]),
    ("nuova attività: prenotare il treno", [ADD]),
    ("ricordami di chiamare l'idraulico venerdì", [ADD]),
    ("non dimenticare di pagare la mensa", [ADD]),  # a reminder, not a negation
    ("Aggiungere Buy milk", [ADD]),
    ("mi aggiungi annaffiare le piante?", [ADD]),
    ("Potrebbe aggiungere un'attività per la relazione annuale?", [ADD]),
    ("ciao, aggiungi subito chiamare la nonna", [ADD]),
    ("aggiungi Call the bank alla mia lista", [ADD]),
    # Complete.
    ("segna le tasse come fatte", [COMPLETE]),
    ("segnala come fatta", [COMPLETE]),
    ("segna la palestra come completata", [COMPLETE]),
    ("spunta la spesa", [COMPLETE]),
    ("completa la relazione", [COMPLETE]),
    ("chiudi l'attività bucato", [COMPLETE]),
    ("le tasse sono fatte", [COMPLETE]),
    ("palestra fatta", [COMPLETE]),
    ("depenna il pane dalla lista", [COMPLETE]),  # complete_task first, delete_task also accepted
    ("mettila come fatta", [COMPLETE]),  # complete_task first, update_task also accepted
    # Update.
    ("sposta la palestra a venerdì", [UPDATE]),
    ("rinomina palestra in nuoto", [UPDATE]),
    ("modifica l'attività dentista", [UPDATE]),
    ("rimanda la riunione a lunedì", [UPDATE]),
    ("aggiungi una nota all'attività palestra", [UPDATE]),
    ("togli l'etichetta urgente dalle tasse", [UPDATE]),
    ("segna il bucato come non ancora fatto", [UPDATE]),
    ("segnala come da fare", [UPDATE]),
    ("dai priorità alta alla palestra", [UPDATE]),
    # List.
    ("mostrami le mie attività", [LIST]),
    ("fammi vedere la lista", [LIST]),
    ("mi fai vedere le mie attività?", [LIST]),
    ("cosa mi resta da fare?", [LIST]),
    ("cosa devo fare oggi?", [LIST]),
    ("quante attività ho?", [LIST]),
    ("quali sono le mie attività urgenti?", [LIST]),
    ("elenca tutte le attività", [LIST]),
    ("ho qualcosa in scadenza oggi?", [LIST]),
    ("posso vedere le mie attività?", [LIST]),
    # Several actions, and commands beside other readings.
    ("cancella le tasse e segna il pane come fatto", [DELETE, COMPLETE]),
    ("aggiungi il latte, poi mostrami la lista", [ADD, LIST]),
    ("ho cancellato la palestra ieri, puoi riaggiungerla?", [ADD]),
    ("non cancellare la palestra, segnala come fatta invece", [COMPLETE]),
    ("cancella palestra. anzi no, aspetta. cancella tasse", [DELETE]),
]

NOT_COMMANDS: list[tuple[str, str | None]] = [
    # Questions, yes/no and wh-, about the tasks' state or history.
    ("ho già finito le tasse?", "state"),
    ("cosa ho aggiunto stamattina?", "question"),
    ("quando ho aggiunto il latte?", "state"),
    ("ho completato il bucato?", "state"),
    ("la relazione è finita?", "question"),
    ("la palestra è stata cancellata?", "question"),
    ("hai cancellato la palestra?", "question"),
    ("perché hai eliminato la mia attività sport?", "question"),
    ("chi ha aggiunto questa attività?", "question"),
    ("ho finito le tasse e cancellato la palestra?", "question"),
    ("come faccio a cancellare un'attività?", "question"),
    ("come si aggiunge un'attività?", None),
    ("posso cancellare più attività insieme?", "question"),
    ("cosa succede se segno un'attività come fatta?", None),
    ("è possibile eliminare tutto in una volta?", "question"),
    ("mostrami come cancellare un'attività", "question"),
    # Advice-seeking.
    ("dovrei cancellare le vecchie bollette?", "advice"),
    ("secondo te dovrei togliere la palestra?", "advice"),
    ("vale la pena aggiungere un'attività per questo?", "advice"),
    ("pensi che debba cancellare la palestra?", "advice"),
    ("devo segnare la relazione come completata?", "advice"),
    ("devo cancellare l'attività palestra?", "advice"),
    ("mi chiedo se dovrei eliminare la piscina", "advice"),
    # Reports and hypotheticals.
    ("stavo per cancellare la palestra per sbaglio", "report"),
    ("il mio capo mi ha chiesto di aggiungere un'attività relazione", "report"),
    ("volevo cancellare la palestra ma non adesso", "report"),
    ("ho finito le tasse", "report"),
    ("ho fatto la spesa e cancellato la palestra", "report"),
    ("ho aggiunto il latte due volte per errore", "report"),
    ("se cancello la palestra sparisce per sempre?", None),
    ("sto pensando di cancellare la palestra la settimana prossima", "report"),
    ("la aggiungo io più tardi", None),
    ("mia moglie vuole che aggiunga un'attività sport", "report"),
    ("stavo per segnare le tasse come fatte", "report"),
    ("forse cancella la palestra più tardi", "report"),
    # Negations and retractions.
    ("non cancellare la palestra", "negated"),
    ("non cancellarla", "negated"),
    ("non toglierla dalla lista", "negated"),
    ("non serve cancellare la palestra", "negated"),
    ("non voglio eliminare Read book", "negated"),
    ("mai cancellare le tasse", "negated"),
    ("aspetta, lasciala stare", "negated"),
    ("cancella la palestra. aspetta, lascia stare", "negated"),
    ("cancella la palestra? no aspetta, non farlo", "negated"),
    ("anzi, tienila", "negated"),
    ("lascia perdere", "negated"),
    ("come non detto", "negated"),
    ("no, non quella", "negated"),
    ("aggiungi il latte. anzi no, lascia perdere", "negated"),
    ("ho cambiato idea", "negated"),
    # Talk.
    ("ho finito per oggi", None),
    ("grazie mille", None),
    ("ciao", None),
    ("chiama Marco per la relazione", None),
    ("la spesa non è ancora fatta", None),
]

CLAIMS: list[tuple[str, str | None]] = [
    ("L'attività Tasse è stata cancellata.", DELETE),
    ("Ho eliminato Read book per te!", DELETE),
    ("Fatto! Tutto ha funzionato.", None),
    ("Ecco fatto.", None),
    ("Ho aggiunto latte, uova e pane alla tua lista.", ADD),
    ("Perfetto, ho aggiunto le uova.", ADD),
    ("Il latte è stato aggiunto e la palestra segnata come fatta.", COMPLETE),
    ("L'ho tolta dalla tua lista.", DELETE),
    ("L'attività sport ora è spuntata.", COMPLETE),
    ("La palestra è stata spostata a venerdì.", UPDATE),
    ("La tua attività è stata creata con successo.", ADD),
    ("Ho segnato le tasse come completate.", COMPLETE),
    ("Attività eliminata: palestra.", DELETE),
    ("Ti confermo che l'attività è stata cancellata.", DELETE),
    ("Come mi hai chiesto, ho completato l'attività relazione.", COMPLETE),
    ("Le attività sono state eliminate.", DELETE),
    ("Nessun problema, ho aggiunto il pane.", ADD),
    ("La palestra non c'è più: l'ho cancellata.", DELETE),
    ("Ho provveduto a cancellare la palestra.", None),
]

NOT_CLAIMS = [
    "Vuoi che la cancelli?",
    "Posso cancellarla se vuoi.",
    "Non è stato cancellato niente.",
    "L'hai completata lunedì.",
    "Ecco le tue attività completate: Tasse.",
    "Hai 2 attività: Tasse (completata), Palestra (in sospeso).",
    "La aggiungo subito.",
    "La palestra è ancora lì; non è stato eliminato nulla.",
    "Non ho cancellato niente.",
    "Devo segnarla come fatta?",
    "Una volta aggiunta, la vedrai qui.",
    "Quale attività devo cancellare?",
    "Nessuna attività è stata eliminata.",
    "Se vuoi, può essere cancellata.",
    "Hai cancellato la palestra ieri.",
]

DENIALS = [
    "Mi dispiace, non sono riuscito ad aggiungere il latte.",
    "Non è stato possibile cancellare l'attività palestra.",
    "Purtroppo l'attività non è stata aggiornata.",
    "Errore: nessuna attività corrisponde a «palestra».",
    "Impossibile trovare questa attività.",
]
NOT_DENIALS = ["Aggiunto: latte.", "Eliminata: palestra.", "Hai 3 attività.", "Fatto, ho spuntato tutto."]


test_commands, test_not_commands, test_claims, test_not_claims, test_denials, test_not_denials = language_tests(
    COMMANDS, NOT_COMMANDS, CLAIMS, NOT_CLAIMS, DENIALS, NOT_DENIALS
)

# Which language a message is in, small talk, undo, and references into the conversation.
DETECTS = [
    "cancella l'attività palestra",
    "cosa devo fare oggi?",
    "grazie mille, è tutto",
    "sì, grazie",
    "aggiungi il latte alla lista della spesa",
    "ho già finito la relazione?",
    "ciao, come stai?",
    "annulla",
    "non importa, lascia stare",
    "ricordami di chiamare la mamma domani",
]
SMALL_TALK = [
    "grazie",
    "grazie mille",
    "ti ringrazio",
    "va bene",
    "perfetto, grazie",
    "ok, capito",
    "buongiorno",
    "ciao, come stai?",
    "come va?",
    "a domani",
    "arrivederci",
    "benissimo",
]
UNDOS = [
    "annulla",
    "annullalo",
    "annulla l'ultima modifica",
    "torna indietro",
    "puoi annullare l'ultima operazione?",
    "ripristinala",
    "annulla quello",
    "rimettila com'era",
    "annulla, per favore",
]
REFERENCES = [
    ("quello", "this"),
    ("questa attività", "this"),
    ("la precedente", "previous"),
    ("quella di prima", "previous"),
    ("quella che ho appena aggiunto", "just_added"),
    ("la nuova", "just_added"),
    ("la prima", "first"),
    ("il secondo", "second"),
    ("la terza", "third"),
    ("numero 2", "second"),
    ("l'ultima", "this"),
    ("quell'ultima attività", "this"),
]

test_detects, test_small_talk, test_undos, test_references = conversation_tests(
    DETECTS, "it", SMALL_TALK, UNDOS, REFERENCES
)
