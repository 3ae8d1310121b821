"""Confirmations: what the backend asks before a change it should not make alone, and how an answer
("yes", "the second one", "the one due on the 12th") is read (`questions`)."""
