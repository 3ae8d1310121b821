"""Development tooling: the benchmark (`taskchat bench`) and the eval harness (`taskchat eval`).

Not part of the app: the wheel and the image leave it out, and it needs the `dev` extras
(`pip install -e '.[dev]'`, which `make install` does: tqdm for progress, matplotlib for charts).
It imports the app; the app never imports it (the `taskchat` command only registers its
subcommands when it is importable, and says what to install when it is not).
"""
