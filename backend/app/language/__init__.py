"""Languages Taskchat reads: one TOML file per language in `data/`, compiled by `lexicon`."""
