"""Reading a user's message: which task actions it asks for (`intent`), one clause at a time (`clauses`)."""
