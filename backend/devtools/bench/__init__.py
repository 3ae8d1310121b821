"""`taskchat bench`: the performance benchmark (a fake model on loopback, load, tokens, resolver)."""
