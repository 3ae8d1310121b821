"""Roman Urdu: commands in everyday wording, everything that must not be read as one, and claims.

An English verb inside a Roman Urdu command is read as one only at the head of its clause ("delete kar
do gym", "add karo milk"): English reads "gym delete kar do" as "delete" out of a command position, and
the cautious reading wins. The commands below use native verbs there ("hata do", "mukammal karo").
"""

from __future__ import annotations

from support.readers import conversation_tests, language_tests

ADD, LIST, COMPLETE, DELETE, UPDATE = "add_task", "list_tasks", "complete_task", "delete_task", "update_task"

COMMANDS: list[tuple[str, list[str]]] = [
    # Deleting: native verbs anywhere, English verbs with a light verb at the head, polite and colloquial.
    ("gym wala task hata do", [DELETE]),
    ("taxes hatao", [DELETE]),
    ("purani invoices mita dein", [DELETE]),
    ("dentist wala task nikal do", [DELETE]),
    ("delete kar do gym wala task", [DELETE]),
    ("delete kardo taxes", [DELETE]),
    ("please remove kar dein dentist", [DELETE]),
    ("isay uda do", [DELETE]),
    ("yaar gym hata do na", [DELETE]),  # the emphatic "na" is no negation
    ("delete kar do na", [DELETE]),
    ("zara dentist wala task mita do", [DELETE]),
    ("kya aap gym hata sakte hain?", [DELETE]),
    ("mehrbani karke dentist wala task hata dijiye", [DELETE]),
    ("Read book wala task hatado", [DELETE]),
    ("sab purane tasks saaf kar do", [DELETE]),
    ("gym ka task hta do", [DELETE]),
    # Adding.
    ("add karo milk", [ADD]),
    ("add kar do eggs aur bread", [ADD]),
    ("dentist ka task bana do", [ADD]),
    ("naya task: bijli ka bill", [ADD]),
    ("kal subah mujhe ammi ko call karne ka yaad dila dena", [ADD]),
    ("bread likh lo", [ADD]),
    ("note kar lo: plumber ko phone karna", [ADD]),
    ("shopping mein eggs shamil kar do", [ADD]),
    ("list mein daal do: ammi ko doctor ke paas le jana", [ADD]),  # "list" before "mein" is the noun
    ("meri list mein daal do: bijli ka bill, doodh", [ADD]),
    ("create kar do ek task: gym jana", [ADD]),
    ("mujhe yaad dilana ke rent dena hai", [ADD]),
    ("Buy milk likh do", [ADD]),
    ("kya aap milk shamil kar sakte hain?", [ADD]),
    # Completing.
    ("complete kar dijiye report", [COMPLETE]),
    ("taxes mukammal karo", [COMPLETE]),
    ("report poora kar do", [COMPLETE]),
    ("gym done kar do", [COMPLETE]),
    ("taxes done hai", [COMPLETE]),
    ("laundry ka kaam khatam kar do", [COMPLETE]),
    ("bread tick kar do", [COMPLETE]),
    ("Pay rent mukammal kar dein", [COMPLETE]),
    # Updating.
    ("gym friday pe shift kar do", [UPDATE]),
    ("gym ki priority high kar do", [UPDATE]),
    ("gym ka naam badal do", [UPDATE]),
    ("update kar do gym: friday", [UPDATE]),
    ("gym ko wapis open kar do", [UPDATE]),
    ("taxes ki deadline tabdeel karo", [UPDATE]),
    ("meeting aage kar do", [UPDATE]),
    ("gym ki deadline hata do", [UPDATE]),  # a field of gym: an edit, not a delete
    # Listing.
    ("mere tasks dikhao", [LIST]),
    ("aaj ke tasks batao", [LIST]),
    ("kya baqi hai?", [LIST]),
    ("kitne tasks pending hain?", [LIST]),
    ("list dikhao", [LIST]),
    ("mere tasks kya hain?", [LIST]),
    ("kya tum mere tasks dikha sakte ho?", [LIST]),
    # Several actions, corrections, and a report beside a request.
    ("gym hata do aur add kar do milk", [DELETE, ADD]),
    ("taxes mukammal karo aur gym mita do", [COMPLETE, DELETE]),
    ("gym wala task hata do aur taxes done kar do", [DELETE, COMPLETE]),
    ("pehle gym hata do, phir mere tasks dikhao", [DELETE, LIST]),
    ("maine kal gym hata diya tha, usay wapis likh lo", [ADD]),
    ("gym mat hatao, usay mukammal kar do", [COMPLETE]),
    ("gym hata do. nahi ruko. taxes hata do", [DELETE]),
    ("Taskchat, jaldi se eggs shamil karo", [ADD]),
]

NOT_COMMANDS: list[tuple[str, str | None]] = [
    # Questions, yes/no and wh-, about the tasks' state or history.
    ("kya maine taxes complete kar liya?", "state"),
    ("maine aaj subah kya add kiya?", "question"),
    ("milk kab add kiya tha?", "question"),
    ("kya gym delete ho gaya?", "question"),
    ("kya aap ne gym delete kiya?", "question"),
    ("aap ne mera gym wala task kyun hataya?", "question"),
    ("yeh task kis ne add kiya?", "question"),
    ("kya report mukammal hai?", "question"),
    ("gym kab hataya tha?", "question"),
    ("batao maine aaj kya add kiya", "question"),
    ("task kaise delete karte hain?", "question"),
    ("delete karne ka tareeqa kya hai?", "question"),
    ("kya gym hata dein?", "question"),  # "shall we remove gym?": the subjunctive after "kya"
    ("kya isay delete kar dein?", "question"),
    # Advice-seeking.
    ("kya mujhe purani invoices delete karni chahiye?", "advice"),
    ("kya main gym hata doon?", None),
    ("gym hata dena chahiye kya?", "advice"),
    ("aap ke khayal mein kya taxes mukammal kar doon?", "advice"),
    ("kya behtar hoga ke main gym hata doon?", "advice"),
    ("pehle report mukammal karni chahiye?", "advice"),
    ("main tasks kaise add karun?", None),
    ("kya main tasks delete kar sakta hoon?", None),
    # Reports and hypotheticals; plans read with the advice markers (see ur.toml).
    ("maine galti se gym delete kar diya tha", "report"),
    ("boss ne kaha tha report add karne ko", None),
    ("main gym hatane wala tha", None),
    ("maine socha tha milk add karun", None),
    ("main kal milk add kar dunga", None),
    ("delete kar dunga baad mein", None),
    ("add kar raha hoon", None),
    ("shayad main gym baad mein hata doon", "report"),
    ("maine taxes mukammal kar liye", "report"),
    ("maine milk do baar add kar diya", "report"),
    ("agar main gym hata doon to kya wo hamesha ke liye chala jayega?", None),
    ("wo gym wala task hata raha tha", None),
    ("gym complete ho gaya", "report"),
    ("delete karne se pehle mujhe batana", None),
    ("mujhe gym delete karna tha magar bhool gaya", None),
    # Negations and retractions.
    ("gym delete mat karo", "negated"),
    ("delete mat karna gym", "negated"),
    ("gym mat hatao", "negated"),
    ("hatao mat", "negated"),
    ("gym na hatana", "negated"),
    ("kuch bhi delete na karein", "negated"),
    ("taxes ko complete nahi karna", "negated"),
    ("mujhe gym nahi hatana", "negated"),
    ("ruko", "negated"),
    ("rehne do", "negated"),
    ("gym hata do. ruko, rehne do", "negated"),
    ("add kar do milk. chhodo", "negated"),
    ("koi baat nahi", "negated"),
    ("nahi rehne do", "negated"),
    ("gym hata do. ruko, wo wala nahi", "negated"),
    ("gym hata do. isay rehne do", "negated"),
    ("jo tasks complete nahi hue wo hata do", "negated"),  # decision: "nahi" anywhere negates (see ur.toml)
    # Talk.
    ("shukriya", None),
    ("assalam o alaikum", None),
    ("main aaj ke liye farigh hoon", None),
    ("main laundry se farigh ho gaya", None),
    ("ho gaya", None),
]

CLAIMS: list[tuple[str, str | None]] = [
    ("Gym delete kar diya gaya hai.", DELETE),
    ("Maine milk add kar diya hai.", ADD),
    ("Gym ka task hata diya gaya.", DELETE),
    ("Report mukammal ho gayi hai.", COMPLETE),
    ("Ho gaya! Gym list se nikal diya.", DELETE),
    ("Milk, eggs aur bread list mein shamil kar diye gaye hain.", ADD),
    ("Gym ki date Friday pe shift kar di gayi hai.", UPDATE),
    ("Taxes complete mark kar diya hai.", COMPLETE),
    ("Aapka task update ho gaya hai.", UPDATE),
    ("Maine gym ko mita diya.", DELETE),
    ("Done! Milk add ho gaya.", ADD),
    ("Theek hai, maine taxes wala task delete kar diya.", DELETE),
    ("Milk add kiya ja chuka hai.", ADD),
    ("Ji, kar diya.", None),
]

NOT_CLAIMS = [
    "Kya main isay delete kar doon?",
    "Main isay delete kar sakta hoon agar aap chahein.",
    "Kuch bhi delete nahi hua.",
    "Aap ne gym Monday ko complete kiya tha.",
    "Yeh rahe aapke mukammal tasks: Taxes.",
    "Aapke paas 2 tasks hain: Taxes (done), Gym (pending).",
    "Main abhi milk add kar dunga.",
    "Gym abhi bhi list mein hai, kuch delete nahi hua.",
    "Gym delete kar diya jayega.",
    "Maine kuch bhi delete nahi kiya.",
    "Agar aap chahein to main gym hata doon.",
    "Konsa task delete kiya jaye?",
]

DENIALS = [
    "Maaf kijiye, main milk add nahi kar saka.",
    "Gym delete nahi ho saka.",
    "Gym naam ka koi task nahi mila.",
    "Afsos, task update nahi ho paya.",
]
NOT_DENIALS = ["Milk add kar diya.", "Gym hata diya gaya.", "Aapke 3 tasks hain."]


test_commands, test_not_commands, test_claims, test_not_claims, test_denials, test_not_denials = language_tests(
    COMMANDS, NOT_COMMANDS, CLAIMS, NOT_CLAIMS, DENIALS, NOT_DENIALS
)

# Which language a message is in, small talk, undo, and references into the conversation.
DETECTS = [
    "gym wala task hata do",
    "mere aaj ke kaam kya hain?",
    "shukriya yaar, bohat madad hui",
    "haan ji",
    "milk list mein daal do",
    "kya maine gym wala task complete kar diya tha?",
    "assalam o alaikum, kaise ho?",
    "undo kar do",
    "nahi yaar, rehne do",
    "kal subah doctor ko call karna yaad dilana",
    "theek hai, shukriya",
]
SMALL_TALK = [
    "shukriya",
    "bohat shukriya",
    "thank you yaar",
    "thanks bhai",
    "theek hai",
    "acha",
    "zabardast, shukriya",
    "assalam o alaikum",
    "kaise ho?",
    "kya haal hai?",
    "khuda hafiz",
    "allah hafiz",
    "jazakallah",
]
UNDOS = [
    "undo kar do",
    "undo karo please",
    "isay wapas kar do",
    "wapas la do",
    "pichla change undo kar dein",
    "kya aap undo kar sakte hain?",
    "pehle jaisa kar do",
]
REFERENCES = [
    ("yeh wala", "this"),
    ("woh task", "this"),
    ("pichla wala", "previous"),
    ("us se pehle wala", "previous"),
    ("jo maine abhi add kiya", "just_added"),
    ("naya wala", "just_added"),
    ("pehla wala", "first"),
    ("doosra wala", "second"),
    ("teesri wali", "third"),
    ("number 2", "second"),
    ("aakhri wala", "this"),
    ("aakhri wala task", "this"),
]

test_detects, test_small_talk, test_undos, test_references = conversation_tests(
    DETECTS, "ur", SMALL_TALK, UNDOS, REFERENCES
)
