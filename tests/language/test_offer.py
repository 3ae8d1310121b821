"""What a model's words plainly offer to do (language/reading/offer.py), read where they cannot be
shown so that the backend can ask the same in its catalog's words: a plain offer of one delete or
completion of one quoted title, in nine languages, and the questions that are no plain offer (the
cases two reviews found: a negation, the opposite offered, another person, another time, a state,
the past, a condition, another list, another task)."""

from __future__ import annotations

import pytest

from backend.app.language.reading.offer import offered_change

OFFERS = [
    'Should I tick off "Gym"?',
    "Vuoi che segni «Gym» come fatto?",
    'Oof, that dentist saga continues! Should I remove "Dentist" from your list?',
    "Landlord appeased, splendid! Want me to mark 'Pay rent' as done?",
    "Schade, Entspannung adé. Soll ich „Yoga“ von deiner Liste löschen?",
    "Quelle tristesse pour tes abdos ! Tu veux que je supprime « Gym » ?",
    "¡Uf, menuda odisea con el casero! ¿Quieres que marque «Pay rent» como hecha?",
    "Che seccatura, povero molare! Vuoi che elimini «Dentist» dalla lista?",
    "Balen, geen zonnegroet dus. Zal ik 'Yoga' verwijderen?",
    "Que pena, adeus esteira! Quer que eu apague «Gym» da lista?",
    "Tråkigt med borren! Ska jag ta bort ”Dentist” från listan?",
    "Skönt, hyresvärden blir glad! Vill du att jag bockar av ”Pay rent”?",
    'Makes sense! Do you want me to delete "Gym" from your list?',
    "Jammer! Zal ik 'Cursus Spaans' van je lijst halen?",
    "Poxa! Quer que eu tire «Curso de inglês» da lista?",
    "Schade. Soll ich „Yoga“ löschen?",
    'Should I just delete "Gym"?',
    'Ok so should I delete "Gym"?',
    "Soll ich „Pay rent“ als erledigt markieren?",
    "Wil je dat ik 'Gym' verwijder?",
    "Devo eliminare «Gym»?",
    "¿Quieres que borre «Gym» de tu lista?",
    "Posso excluir «Gym»?",
    "Je supprime « Gym » ?",
]


NOT_OFFERS = [
    'Is "Pay rent" complete?',
    'Is "Gym" gone?',
    "As-tu terminé « Pay rent » ?",
    'Should I have deleted "Gym"?',
    'Shall I delete "Gym" from your other list?',
    'Should I not delete "Gym"?',
    'Should I keep it instead of deleting "Gym"?',
    'Should I delete the "Gym" tag?',
    'Should Anna delete "Gym"?',
    'Should I delete "Gym" tomorrow?',
    'Did you delete "Gym"?',
    "Soll ich Yoga statt „Gym“ löschen?",
    'Kya main "Gym" delete karne ke bajaye rakh loon?',
    "¿Cuándo quieres que borre «Gym»?",
    "Quand veux-tu que je supprime « Gym » ?",
    "Quando vuoi che elimini «Gym»?",
    "Quando quer que eu apague «Gym»?",
    "Wird „Gym“ gelöscht?",
    "Wordt 'Gym' verwijderd?",
    'Should I delete "Gym" from Anna\'s list?',
    "Ska jag ta bort ”Gym” från Annas lista?",
    "Ska jag ta bort ”Gym” sen?",
    'Going to delete "Gym"?',
    "¿Tienes que borrar «Gym»?",
    "Tu peux supprimer « Gym » ?",
    "Om du tar bort ”Gym”?",
    'You can delete "Gym"?',
    'If you delete "Gym"?',
    'Try to delete "Gym"?',
    "Bevor ich „Gym“ lösche?",
    "Innan jag tar bort ”Gym”?",
    "¿He borrado «Gym»?",
    "Ho eliminato «Gym»?",
    'Should I delete "Gym" from your shopping list?',
    "¿Quieres que borre «Gym» luego?",
    "Vuoi che elimini «Gym» poi?",
    'Should I delete "Gym" for you?',
    "¿Borro «Gym»?",  # a first-person present is read as a past or a statement: no offer's verb
    '"Gym" deleted?',
    "„Gym“ gelöscht?",
    '"Gym" is done?',
    "„Gym“ ist erledigt?",
    'Should I check whether your coach already ticked off "Gym"?',
    'Should I tick your warm-up off "Gym"?',
    "Vuoi che segni che Anna ha fatto «Gym»?",
    "Tu veux que je marque quand tu auras fini « Gym » ?",
    'Should I delete "Gym" on 12/05?',
    "¿Quieres que borre «Gym» a las 18:00?",
    'Should I remove "Gym" as completed?',
    "¿Quieres que quite «Gym» de las hechas?",
    'Should I delete "Gym"? Just kidding, it stays on your list!',
    'Should I delete "Gym" or "Yoga"?',
    'Should I delete "Gym", or mark "Yoga" as done?',
    'Renovations, what a saga! Should I delete everything except "Gym"?',
]


@pytest.mark.parametrize("words", OFFERS)
def test_a_plain_offer_is_read_with_its_change_and_title(words: str) -> None:
    found = offered_change(words)
    assert found is not None, words
    assert found[1] in {"dentist", "pay rent", "yoga", "gym", "cursus spaans", "curso de ingles"}, found


@pytest.mark.parametrize("words", NOT_OFFERS)
def test_anything_else_is_no_plain_offer(words: str) -> None:
    assert offered_change(words) is None
