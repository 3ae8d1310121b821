"""French: commands in everyday wording, everything that must not be read as one, and claims."""

from __future__ import annotations

from support.readers import conversation_tests, language_tests

ADD, LIST, COMPLETE, DELETE, UPDATE = "add_task", "list_tasks", "complete_task", "delete_task", "update_task"

COMMANDS: list[tuple[str, list[str]]] = [
    # Delete: tu, vous, slang, elided and clitic forms, polite frames, infinitive.
    ("supprime la tâche impôts", [DELETE]),
    ("supprime-la", [DELETE]),
    ("efface l'entrée dentiste", [DELETE]),
    ("enlève le sport de ma liste", [DELETE]),
    ("retire la tâche piscine", [DELETE]),
    ("vire-moi ce truc de ma liste", [DELETE]),
    ("fais sauter la tâche piscine", [DELETE]),
    ("jette la tâche Read book", [DELETE]),
    ("annule le rendez-vous chez le garagiste", [DELETE]),
    ("efface-les toutes", [DELETE]),
    ("Supprimez la tâche « Réunion budget », s'il vous plaît.", [DELETE]),
    ("supprimez tout ce qui concerne le déménagement", [DELETE]),
    ("tu peux supprimer la tâche gym ?", [DELETE]),
    ("pourriez-vous effacer la note de frais de mars ?", [DELETE]),  # "note de frais" is a title, not a field
    ("est-ce que tu pourrais virer la tâche ménage ?", [DELETE]),
    ("je veux que tu supprimes la tache courses", [DELETE]),
    ("il faut que tu supprimes les vieilles tâches", [DELETE]),
    ("Supprimer la tâche Pay rent", [DELETE]),
    ("impôts - supprime-la", [DELETE]),
    ("ok donc vire la tâche sport stp", [DELETE]),
    ("supprime 'Update CV'", [DELETE]),
    # Add.
    ("ajoute acheter du pain", [ADD]),
    ("ajoute du lait, des oeufs et du beurre", [ADD]),
    ("rajoute appeler maman demain", [ADD]),
    ("mets le lait sur ma liste de courses", [ADD]),
    ("note-moi rendez-vous dentiste jeudi", [ADD]),
    ("crée une tâche pour payer le loyer", [ADD]),
    ("nouvelle tâche : réserver le train", [ADD]),
    ("rappelle-moi d'appeler le plombier vendredi", [ADD]),
    ("n'oublie pas de payer la cantine", [ADD]),  # a reminder, not a negation
    ("Ajouter Buy milk", [ADD]),
    ("tu peux m'ajouter arroser les plantes ?", [ADD]),
    ("Pourriez-vous ajouter une tâche pour le rapport annuel ?", [ADD]),
    ("merci d'ajouter sortir les poubelles", [ADD]),
    ("je voudrais ajouter un rendez-vous chez le coiffeur samedi", [ADD]),
    ("salut, ajoute vite appeler mamie", [ADD]),
    ("ajoute Call the bank à ma liste", [ADD]),
    # Complete.
    ("marque les impôts comme faits", [COMPLETE]),
    ("marque la tâche sport comme terminée", [COMPLETE]),
    ("veuillez marquer la tâche rapport comme terminée", [COMPLETE]),
    ("coche la tâche courses", [COMPLETE]),
    ("vous pouvez cocher la tâche banque svp", [COMPLETE]),
    ("termine la tâche rapport", [COMPLETE]),
    ("Finis la tâche ménage stp", [COMPLETE]),
    ("valide la tâche lessive", [COMPLETE]),
    ("les impôts sont faits", [COMPLETE]),
    ("la tâche gym est terminée", [COMPLETE]),
    ("le rapport est terminé", [COMPLETE]),
    ("courses faites", [COMPLETE]),
    ("raye le pain de ma liste", [COMPLETE]),  # complete_task first, delete_task also accepted
    ("mets-la comme faite", [COMPLETE]),  # complete_task first, update_task also accepted
    # Update.
    ("déplace gym à vendredi", [UPDATE]),
    ("renomme gym en natation", [UPDATE]),
    ("modifie la tâche dentiste", [UPDATE]),
    ("repousse la réunion à lundi", [UPDATE]),
    ("ajoute une note à la tâche sport", [UPDATE]),
    ("enlève l'étiquette urgente des impôts", [UPDATE]),
    ("décoche la tâche lessive", [UPDATE]),
    ("remets la lessive à faire", [UPDATE]),
    ("mets gym en priorité haute", [UPDATE]),
    # List.
    ("montre-moi mes tâches", [LIST]),
    ("affiche ma liste", [LIST]),
    ("tu peux me montrer ma liste ?", [LIST]),
    ("qu'est-ce qu'il me reste ?", [LIST]),
    ("qu'est-ce que j'ai à faire aujourd'hui ?", [LIST]),
    ("j'ai quoi de prévu demain ?", [LIST]),
    ("combien de tâches il me reste ?", [LIST]),
    ("quelles sont mes tâches urgentes ?", [LIST]),
    ("liste toutes mes tâches", [LIST]),
    ("est-ce que j'ai des tâches en retard ?", [LIST]),
    # Several actions, and commands beside other readings.
    ("supprime la tâche impôts et marque le pain comme fait", [DELETE, COMPLETE]),
    ("Merci de supprimer la tache gym et d'ajouter acheter du pain", [DELETE, ADD]),
    ("ajoute du lait puis montre-moi ma liste", [ADD, LIST]),
    ("j'ai supprimé gym hier, tu peux le rajouter ?", [ADD]),
    ("ne supprime pas gym, marque-la comme faite plutôt", [COMPLETE]),
    ("supprime gym. en fait non, attends. supprime impôts", [DELETE]),
]

NOT_COMMANDS: list[tuple[str, str | None]] = [
    # Questions, yes/no and wh-, about the tasks' state or history.
    ("est-ce que j'ai déjà fini les impôts ?", "state"),
    ("qu'est-ce que j'ai ajouté ce matin ?", "question"),
    ("quand est-ce que j'ai ajouté le lait ?", "state"),
    ("j'ai terminé la lessive ?", "state"),
    ("la tâche rapport est finie ?", "state"),
    ("est-ce que la tâche gym a été supprimée ?", "question"),
    ("tu as supprimé gym ?", "question"),
    ("pourquoi tu as supprimé ma tâche sport ?", "question"),
    ("qui a ajouté cette tâche ?", "question"),
    ("est-ce que tu as bien coché les courses", "question"),
    ("Est-ce que j'ai fini les impôts et supprimé gym ?", "question"),  # "supprimé" there is no imperative
    ("comment je fais pour supprimer une tâche ?", "question"),
    ("comment ajouter une tâche", "question"),
    ("est-ce que je peux supprimer plusieurs tâches à la fois ?", "question"),
    ("qu'est-ce qui se passe si je marque une tâche comme faite ?", "question"),
    ("c'est possible d'effacer toutes les tâches d'un coup ?", "question"),
    ("montre-moi comment supprimer une tâche", "question"),
    ("je dois supprimer la tâche gym ?", "question"),
    # Advice-seeking.
    ("je devrais supprimer les vieilles factures ?", "advice"),
    ("tu crois que je devrais effacer gym ?", "advice"),
    ("ça vaut le coup d'ajouter une tâche pour ça ?", "advice"),
    ("dois-je marquer le rapport comme terminé ?", "advice"),
    ("je me demande si je devrais supprimer la tâche piscine", "advice"),
    ("à ton avis, il faut supprimer le sport ?", None),
    # Reports and hypotheticals.
    ("j'ai failli supprimer la tâche sport par erreur", "report"),
    ("mon chef m'a demandé d'ajouter une tâche rapport", "report"),
    ("je voulais supprimer gym mais pas maintenant", "report"),
    ("j'ai fini les impôts", "report"),
    ("j'ai fini les impôts et supprimé gym", "report"),
    ("j'ai ajouté du lait deux fois par accident", "report"),
    ("si je supprime gym, elle disparaît pour toujours ?", None),
    ("je pense supprimer gym la semaine prochaine", "report"),
    ("je vais l'ajouter moi-même plus tard", "report"),
    ("j'allais marquer les impôts comme faits", "report"),
    ("peut-être supprimer gym plus tard", "report"),
    ("ma femme veut que j'ajoute une tâche sport", None),
    # Negations: "ne ... pas", "pas" alone, "pas besoin de", and retractions.
    ("ne supprime pas ça", "negated"),
    ("ne supprime pas la tâche gym", "negated"),
    ("supprime pas ça", "negated"),
    ("n'efface pas la tâche impôts", "negated"),
    ("n'ajoute rien", "negated"),
    ("pas besoin de supprimer gym", "negated"),
    ("je ne veux pas effacer Read book", "negated"),
    ("surtout ne l'enlève pas", "negated"),
    ("attends, laisse celle-là", "negated"),
    ("supprime gym. attends, laisse celle-là", "negated"),
    ("supprime gym ? non attends, ne le fais pas", "negated"),
    ("en fait, garde-la", "negated"),
    ("laisse tomber", "negated"),
    ("oublie ça", "negated"),
    ("non, pas celle-là", "negated"),
    ("ajoute du lait. finalement, oublie ça", "negated"),
    ("j'ai changé d'avis", "negated"),
    # Talk.
    ("j'ai fini pour aujourd'hui", None),
    ("merci, c'est tout", None),
    ("salut", None),
    ("appelle Marc pour le rapport", None),
    ("la tâche n'est pas encore faite", None),
    ("c'est pas fait", None),
]

CLAIMS: list[tuple[str, str | None]] = [
    ("La tâche Impôts a été supprimée.", DELETE),
    ("J'ai supprimé Read book pour toi !", DELETE),
    ("C'est fait ! Tout a fonctionné.", None),
    ("Voilà, c'est fait.", None),
    ("J'ai ajouté du lait, des oeufs et du pain à ta liste.", ADD),
    ("Parfait, j'ai bien ajouté les oeufs.", ADD),
    ("Le lait a été ajouté et gym marquée comme faite.", COMPLETE),
    ("Je l'ai effacée de ta liste.", DELETE),
    ("La tâche sport est maintenant cochée.", COMPLETE),
    ("Gym a été déplacée à vendredi.", UPDATE),
    ("Ta tâche a bien été créée.", ADD),
    ("J'ai marqué les impôts comme terminés.", COMPLETE),
    ("Tâche supprimée : gym.", DELETE),
    ("Je te confirme que la tâche a été supprimée.", DELETE),
    ("Comme tu l'as demandé, j'ai terminé la tâche rapport.", COMPLETE),
    ("C'est noté, rendez-vous dentiste jeudi.", None),
    ("Pas de problème, j'ai ajouté le pain.", ADD),
    ("La tâche « Sport » a bien été retirée de ta liste.", DELETE),
]

NOT_CLAIMS = [
    "Tu veux que je la supprime ?",
    "Je peux la supprimer si tu veux.",
    "Rien n'a été supprimé.",
    "Tu l'as terminée lundi.",
    "Voici tes tâches terminées : Impôts.",
    "Tu as 2 tâches : Impôts (terminée), Sport (en attente).",
    "Je vais l'ajouter maintenant.",
    "La tâche sport est toujours là ; rien n'a été supprimé.",
    "Je n'ai rien supprimé.",
    "Dois-je la marquer comme faite ?",
    "Une fois ajoutée, elle apparaîtra ici.",
    "Quelle tâche faut-il supprimer ?",
    "Aucune tâche n'a été effacée.",
    "Si tu veux, elle peut être supprimée.",
    "Tu as fini les impôts lundi.",
    "Tu as complété la tâche hier.",
]

DENIALS = [
    "Désolé, je n'ai pas pu ajouter le lait.",
    "Je n'ai pas réussi à supprimer la tâche sport.",
    "Malheureusement, la tâche n'a pas pu être modifiée.",
    "Erreur : aucune tâche ne correspond à « gym ».",
    "Impossible de trouver cette tâche.",
]
NOT_DENIALS = ["Ajouté : lait.", "Supprimée : gym.", "Tu as 3 tâches.", "C'est fait, j'ai tout coché."]


test_commands, test_not_commands, test_claims, test_not_claims, test_denials, test_not_denials = language_tests(
    COMMANDS, NOT_COMMANDS, CLAIMS, NOT_CLAIMS, DENIALS, NOT_DENIALS
)

# Which language a message is in, small talk, undo, and references into the conversation.
DETECTS = [
    "supprime la tâche sport",
    "qu'est-ce qu'il me reste à faire aujourd'hui ?",
    "merci beaucoup, c'est tout",
    "oui, vas-y",
    "ajoute du pain à ma liste",
    "est-ce que j'ai fini le rapport ?",
    "bonjour, ça va ?",
    "annule ça",
    "non merci",
    "rappelle-moi d'appeler maman demain",
]
SMALL_TALK = [
    "merci beaucoup",
    "merci bien",
    "merci !",
    "d'accord, super",
    "parfait, merci",
    "bonjour",
    "salut, ça va ?",
    "comment ça va ?",
    "bonne soirée",
    "à bientôt",
    "ok cool",
    "au revoir",
]
UNDOS = [
    "annule ça",
    "annule",
    "annulez",
    "défais ça",
    "annule la dernière modification",
    "reviens en arrière",
    "peux-tu annuler ma dernière action ?",
    "restaure-la",
    "remets comme avant",
]
REFERENCES = [
    ("ça", "this"),
    ("cette tâche", "this"),
    ("la précédente", "previous"),
    ("celle d'avant", "previous"),
    ("celle que je viens d'ajouter", "just_added"),
    ("la nouvelle", "just_added"),
    ("la première", "first"),
    ("la deuxième", "second"),
    ("le troisième", "third"),
    ("numéro 2", "second"),
    ("la dernière", "this"),
    ("cette dernière tâche", "this"),
]

test_detects, test_small_talk, test_undos, test_references = conversation_tests(
    DETECTS, "fr", SMALL_TALK, UNDOS, REFERENCES
)
