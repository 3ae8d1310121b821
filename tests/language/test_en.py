"""English: commands in everyday wording, everything that must not be read as one, and claims."""

from __future__ import annotations

from support.readers import conversation_tests, language_tests

ADD, LIST, COMPLETE, DELETE, UPDATE = "add_task", "list_tasks", "complete_task", "delete_task", "update_task"

COMMANDS: list[tuple[str, list[str]]] = [
    ("bin the taxes task", [DELETE]),
    ("get rid of the laundry, please", [DELETE]),
    ("take gym off my list", [DELETE]),
    ("scrap the dentist thing", [DELETE]),
    ("Could you remove the gym task?", [DELETE]),
    ("would you mind deleting the old invoices", [DELETE]),
    ("ok so trash 'Read book'", [DELETE]),
    ("delete gym please", [DELETE]),
    ("Gym - delete it", [DELETE]),
    ("stick eggs on my list", [ADD]),
    ("pop milk on the shopping list", [ADD]),
    ("throw bread onto my to-do list", [ADD]),
    ("jot down call the plumber", [ADD]),
    ("remind me to water the plants on friday", [ADD]),
    ("don't let me forget to pay rent", [ADD]),
    ("I'd like you to add a task for the dentist", [ADD]),
    ("new task: buy bread", [ADD]),
    ("set up a reminder to call grandma", [ADD]),
    ("strike bread off my list", [COMPLETE]),  # complete_task first, delete_task also accepted
    ("cross laundry off", [COMPLETE]),
    ("tick off the laundry", [COMPLETE]),
    ("mark the taxes as done", [COMPLETE]),
    ("taxes is done", [COMPLETE]),
    ("bread done", [COMPLETE]),
    ("finish the report", [COMPLETE]),
    ("the dishes are finished", [COMPLETE]),
    ("remove the 'urgent' tag from taxes", [UPDATE]),
    ("add a note to the gym task", [UPDATE]),
    ("add a due date to Pay rent", [UPDATE]),
    ("make gym high priority", [UPDATE]),
    ("push gym to friday", [UPDATE]),
    ("rename gym to swimming", [UPDATE]),
    ("mark laundry as not done", [UPDATE]),
    ("change the due date of gym to friday", [UPDATE]),
    ("show me my tasks", [LIST]),
    ("what's on my plate today?", [LIST]),
    ("anything due tomorrow?", [LIST]),
    ("how many tasks are left?", [LIST]),
    ("which tasks are still open?", [LIST]),
    ("remind me what's on my list", [LIST]),
    ("delete the taxes task and mark bread done", [DELETE, COMPLETE]),
    ("add milk, delete gym and complete the laundry", [ADD, DELETE, COMPLETE]),
    ("I deleted gym yesterday, can you add it back?", [ADD]),
    ("don't delete gym, complete it instead", [COMPLETE]),
    ("delete gym. actually no, wait. delete taxes", [DELETE]),
    ("hey taskchat, quickly add call mom", [ADD]),
    ("can you please bin the gym task?", [DELETE]),
    ("time to clean up: delete gym and taxes", [DELETE]),
    ("remind me about the dentist on friday", [ADD]),
    ("Add eggs? Sure, why not", [ADD]),
]

NOT_COMMANDS: list[tuple[str, str | None]] = [
    # Questions, yes/no and wh-, about the tasks' state or history.
    ("did I already finish the taxes?", "state"),
    ("what did I add this morning?", "question"),
    ("when did I add milk?", "state"),
    ("have I completed the laundry?", "state"),
    ("is the report done?", "state"),
    ("was gym removed?", "question"),
    ("did you delete gym?", "question"),
    ("why did you delete my gym task?", "question"),
    ("who added this task?", "question"),
    ("did I finish taxes and delete gym?", "question"),
    ("how do I add and delete tasks?", "question"),
    ("can I remove tasks?", "question"),
    ("what happens if I complete a task?", "question"),
    ("is it possible to delete everything at once?", "question"),
    ("show me how to delete a task", "question"),
    # Advice-seeking.
    ("should I delete the old invoices?", "advice"),
    ("do you think I should remove gym?", "advice"),
    ("would it be a good idea to delete taxes?", "advice"),
    ("is it worth adding a task for this?", "advice"),
    ("shall I mark it done?", "advice"),
    ("do I need to complete the report first?", "advice"),
    # Reports and hypotheticals.
    ("I nearly removed the gym task by mistake", "report"),
    ("I meant to delete the gym task", "report"),
    ("someone asked me to delete the gym task", "report"),
    ("my boss told me to add a report task", "report"),
    ("I was going to mark taxes done but not yet", "report"),
    ("I finished the taxes", "report"),
    ("I accidentally added milk twice", "report"),
    ("if I delete gym will it be gone forever?", None),
    ("I'm thinking about deleting gym", "report"),
    ("I'll add it myself later", "report"),
    ("my wife wants me to add a gym task", "report"),
    ("I meant to delete gym and add milk", "report"),
    ("I might complete the report tonight", "report"),
    # Negations and retractions.
    ("don't delete gym", "negated"),
    ("do not remove anything", "negated"),
    ("no need to mark it done", "negated"),
    ("I don't want to delete Read book", "negated"),
    ("wait, leave that one", "negated"),
    ("delete gym. wait, leave that one", "negated"),
    ("delete gym? no wait, don't", "negated"),
    ("actually, keep it", "negated"),
    ("never mind", "negated"),
    ("scratch that", "negated"),
    ("hold on, not that one", "negated"),
    ("add milk. on second thought, forget it", "negated"),
    # Talk.
    ("I'm done with the laundry", None),
    ("thanks, that's all", None),
    ("hi", None),
    ("maybe delete gym later", None),
    ("call Mark about the report", None),
    ("listen to the podcast", None),
    ("Remind me, did I add eggs?", "question"),
    ("Deleting tasks is easy with this app", None),
    ("Completing the report took me all day", None),
    ("Update: I finished the report", "report"),
    ("Mark my words, I'll finish it", None),
    ("Please tell me you didn't delete taxes", "negated"),
    ("Could I delete all completed tasks at once?", "question"),
    ("Is there anything I should remove?", None),
    ("Which one should I complete first?", "advice"),
    ("Can you check if taxes is done?", "question"),
    ("Tell me what you deleted", "report"),
    ("I don't know if I should delete gym", "negated"),
    ("The dentist asked me to add a reminder", "report"),
    ("You deleted my gym task!", "report"),
    ("Delete? No, I want to keep it.", "negated"),
]

CLAIMS: list[tuple[str, str | None]] = [
    ("Taxes has been removed from your list.", DELETE),
    ("I've deleted Read book for you!", DELETE),
    ("Done! Everything worked.", None),
    ("Sure, consider it done.", None),
    ("Added milk, eggs and bread to your list.", ADD),
    ("Got it, I've added eggs.", ADD),
    ("Milk was added and gym marked as done.", COMPLETE),
    ("I went ahead and got rid of the gym task.", DELETE),
    ("Bread is crossed off now.", COMPLETE),
    ("All set, gym is now moved to Friday.", UPDATE),
    ("Your task was successfully created.", ADD),
    ("I binned the taxes task.", DELETE),
]

NOT_CLAIMS = [
    "Do you want me to delete it?",
    "I can delete it if you want.",
    "Nothing was deleted.",
    "You completed Taxes on Monday.",
    "Here are your completed tasks: Taxes.",
    "You have 2 tasks: Taxes (completed), Gym (pending).",
    "I'll add it now.",
    "The gym task is still there; nothing was removed.",
    "I haven't deleted anything.",
    "Shall I mark it as done?",
    "Once it's added you will see it here.",
    "Which task should be deleted?",
]

DENIALS = [
    "Sorry, I couldn't add milk.",
    "I wasn't able to delete the gym task.",
    "Unfortunately the task could not be updated.",
    "That failed: no task matching 'gym'.",
]
NOT_DENIALS = ["Added milk.", "Deleted: gym.", "You have 3 tasks."]


test_commands, test_not_commands, test_claims, test_not_claims, test_denials, test_not_denials = language_tests(
    COMMANDS, NOT_COMMANDS, CLAIMS, NOT_CLAIMS, DENIALS, NOT_DENIALS
)

# Which language a message is in, small talk, undo, and references into the conversation.
DETECTS = [
    "delete the gym task",
    "what's left for today?",
    "thanks, that's all",
    "can you add milk to my list please",
    "yes please",
    "did I finish the report?",
    "remind me to call mom tomorrow",
    "undo that",
]
SMALL_TALK = [
    "thank you so much",
    "ok cool",
    "thanks!",
    "hi there",
    "good morning",
    "great, thanks",
    "how are you?",
    "cheers",
]
UNDOS = [
    "undo",
    "undo that",
    "please undo my last change",
    "put it back",
    "restore it",
    "revert that",
    "take that back",
]
REFERENCES = [
    ("it", "this"),
    ("that one", "this"),
    ("the previous one", "previous"),
    ("the one before", "previous"),
    ("the one I just added", "just_added"),
    ("the task I added", "just_added"),
    ("the first one", "first"),
    ("the second one", "second"),
    ("#2", "second"),
    ("number 3", "third"),
    ("the last one", "this"),
    ("that last task", "this"),
]

test_detects, test_small_talk, test_undos, test_references = conversation_tests(
    DETECTS, "en", SMALL_TALK, UNDOS, REFERENCES
)
