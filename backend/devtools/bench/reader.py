"""How long reading one message takes, for the worst messages we can think of.

`python -m backend.devtools.bench.reader [--chars 4000] [--write specs/bench/reader.json]`

Every message the service accepts is read on the event loop before the model is called: the intent
(`classify`) and the language (`detect`). A reply the model writes is read by the claim reader
(`claims`, `denial`). Both are word lists compiled to regular expressions, run per sentence and per
clause, so the cost of a message is set by its shape more than by its length: thousands of short
clauses, one clause thousands of characters long, words that almost match. The shapes below are
built from every language file's own words (each command verb, negation, request frame, filler and
conjunction), repeated up to the longest allowed message, plus shapes of no language. The time is
the best of `--repeat` runs with the readers' caches cleared (what a new message pays), in CPU
seconds of this process.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from backend.app.language import detect as detect_module
from backend.app.language.lexicon import Lexicon, lexicons
from backend.app.language.reading import clauses
from backend.app.language.reading import intent as intent_module
from backend.app.services.guard.claims import claims, denial, readable

_PLAIN = re.compile(r"^[^\W\d_]+(?: [^\W\d_]+)*$")  # an entry that is words, not a pattern


@dataclass(frozen=True, slots=True)
class Shape:
    name: str
    text: str


def _plain(pattern: re.Pattern[str] | None) -> list[str]:
    """The entries of a compiled alternation that are plain words ("mark", "get rid of")."""
    if pattern is None:
        return []
    return [e for e in re.findall(r"\(\?:([^()]*)\)", pattern.pattern) if _PLAIN.match(e)]


def _words(lex: Lexicon) -> dict[str, list[str]]:
    verbs = [e for v in lex.verbs for e in _plain(v.pattern)]
    kinds = ("negation", "request", "fillers", "question", "report", "retraction", "task_nouns", "done_states")
    found = {"verbs": verbs, **{k: _plain(lex.word(k)) for k in kinds}}
    found["conjunctions"] = _plain(lex.word("conjunctions")) or ["and"]
    return found


def _fill(unit: str, chars: int, sep: str = " ") -> str:
    """`unit` repeated with `sep` up to `chars` characters."""
    times = max(1, (chars + len(sep)) // (len(unit) + len(sep)))
    return sep.join([unit] * times)[:chars]


def _numbered(make: Callable[[int], str], chars: int, sep: str) -> str:
    parts: list[str] = []
    size = 0
    i = 0
    while size < chars:
        part = make(i)
        parts.append(part)
        size += len(part) + len(sep)
        i += 1
    return sep.join(parts)[:chars]


def _shuffled(rng: random.Random, words: list[str], chars: int, sep: str) -> str:
    return _numbered(lambda _i: rng.choice(words), chars, sep)


def shapes(chars: int, seed: int = 7) -> Iterator[Shape]:
    """Messages of `chars` characters meant to be slow to read."""
    rng = random.Random(seed)
    everything: list[str] = []
    for lex in lexicons():
        w = _words(lex)
        everything += [x for entries in w.values() for x in entries]
        verbs = sorted(set(w["verbs"]), key=lambda v: (len(v), v))  # not the hash order: the same shapes every run
        picks = verbs[:2] + verbs[-2:] + rng.sample(verbs, min(4, len(verbs)))
        conj = w["conjunctions"][0]
        neg = (w["negation"] or ["not"])[0]
        req = (w["request"] or ["please"])[0]
        for verb in dict.fromkeys(picks):
            yield Shape(f"{lex.code}: '{verb}' repeated", _fill(verb, chars))
            yield Shape(f"{lex.code}: '{verb},' repeated", _fill(verb, chars, ", "))
            yield Shape(f"{lex.code}: '{verb} {conj}' repeated", _fill(verb, chars, f" {conj} "))
            yield Shape(f"{lex.code}: '{verb} itemN,'", _numbered(f"{verb} item{{}}".format, chars, ", "))
            yield Shape(f"{lex.code}: '{verb}.' sentences", _fill(verb, chars, ". "))
            yield Shape(f"{lex.code}: '{verb}?' questions", _fill(verb, chars, "? "))
            yield Shape(f"{lex.code}: '{req} {verb} x{neg}'", _fill(f"{req} {verb} x{neg}", chars))
            yield Shape(f"{lex.code}: '{verb}' glued", _fill(verb, chars, ""))
            yield Shape(f"{lex.code}: 'x{verb}' near misses", _fill("x" + verb, chars))
            yield Shape(f"{lex.code}: quoted '{verb}'", _fill(f'{verb} "{verb}"', chars, ", "))
        for kind in ("negation", "request", "fillers", "question", "report", "retraction"):
            for entry in w[kind][:2]:
                yield Shape(f"{lex.code}: {kind} '{entry}' repeated", _fill(entry, chars))
                yield Shape(f"{lex.code}: {kind} '{entry},' repeated", _fill(entry, chars, ", "))
        mixed = [x for entries in w.values() for x in entries]
        for n in range(3):
            yield Shape(f"{lex.code}: its words shuffled #{n}", _shuffled(rng, mixed, chars, " "))
    for n in range(3):
        yield Shape(f"all: every language's words shuffled #{n}", _shuffled(rng, everything, chars, " "))
        yield Shape(f"all: shuffled, comma-joined #{n}", _shuffled(rng, everything, chars, ", "))
    for name, unit, sep in (
        ("one long word", "a", ""),
        ("letters and spaces", "a", " "),
        ("commas", ",", ""),
        ("periods", ".", ""),
        ("question marks", "?", ""),
        ("quotes", '"', ""),
        ("apostrophes", "'", ""),
        ("empty quotes", '""', " "),
        ("apostrophe words", "l'a", " "),
        ("number periods", "1.", ""),
        ("dates", "15. Dez", " "),
        ("hashes", "#a", " "),
        ("accents", "é", ""),
        ("combining marks", "e\u0301", ""),
        ("colons", "a:", " "),
        ("dashes", "a -", " "),
        ("newlines", "a\n", ""),
        ("inverted marks", "¿a", " "),
        ("cjk", "删除", ""),
        ("arabic", "حذف", " "),
        ("emoji", "🙂", ""),
    ):
        yield Shape(f"none: {name}", _fill(unit, chars, sep))


def replies(chars: int) -> Iterator[Shape]:
    """Model replies of `chars` characters meant to be slow for the claim reader."""
    for lex in lexicons():
        verbs = sorted({e for v in lex.verbs if v.form == "past" for e in _plain(v.pattern)}, key=lambda v: (len(v), v))
        mine = (_plain(lex.claim("first_person")) or ["i"])[0]
        neg = (_plain(lex.word("negation")) or ["not"])[0]
        for verb in verbs[:2] + verbs[-2:]:
            yield Shape(f"{lex.code}: '{mine} {verb} X.' repeated", _fill(f'{mine} {verb} "X".', chars))
            yield Shape(f"{lex.code}: '{verb}' repeated", _fill(verb, chars))
            yield Shape(f"{lex.code}: '{neg} {verb}' repeated", _fill(f"{neg} {verb}", chars))
            yield Shape(f"{lex.code}: '{verb},' repeated", _fill(verb, chars, ", "))
    yield Shape("none: one long word", "a" * chars)
    yield Shape("none: quotes", '"' * chars)
    yield Shape("none: periods", "." * chars)


def _clear() -> None:
    """Forget what earlier messages left in the readers' memos: each shape is a new message."""
    detect_module.scores.cache_clear()
    detect_module.covers.cache_clear()
    clauses.clear_memos()


def read_message(text: str) -> None:
    """What a turn does with a message before the model is called."""
    found = intent_module.classify(text)
    detect_module.detect(text, reader=found.languages)


def read_reply(text: str) -> None:
    """What the guard reads of the model's words (no more than `claims.READABLE` characters)."""
    shown = readable(text)
    claims(shown)
    denial(shown)


def cpu(read: Callable[[str], None], text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        _clear()
        start = time.process_time()
        read(text)
        best = min(best, time.process_time() - start)
    return best


def run(chars: int, reply_chars: int, repeat: int) -> dict[str, Any]:
    read_message("warm up the compiled patterns")
    read_reply("warm up.")
    rows: dict[str, list[dict[str, Any]]] = {"messages": [], "replies": []}
    readers: tuple[tuple[str, Iterator[Shape], Callable[[str], None]], ...] = (
        ("messages", shapes(chars), read_message),
        ("replies", replies(reply_chars), read_reply),
    )
    for key, made, read in readers:
        for shape in made:
            rows[key].append({"shape": shape.name, "chars": len(shape.text), "ms": cpu(read, shape.text, repeat) * 1e3})
        rows[key].sort(key=lambda r: -r["ms"])
    probe = _probe()
    summary = {
        key: {
            "shapes": len(found),
            "max_ms": round(max(r["ms"] for r in found), 2),
            "median_ms": round(sorted(r["ms"] for r in found)[len(found) // 2], 2),
        }
        for key, found in rows.items()
    }
    return {"chars": chars, "reply_chars": reply_chars, "probe_ms": round(probe * 1e3, 1), "summary": summary, **rows}


def _probe() -> float:
    """A fixed Python loop timed beside the readers: the machine's speed right now."""
    start = time.process_time()
    total = 0
    for i in range(2_000_000):
        total += i % 7
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chars", type=int, default=4_000, help="message length (MAX_MESSAGE_CHARS)")
    parser.add_argument("--reply-chars", type=int, default=16_000, help="model reply length")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--top", type=int, default=12, help="slowest shapes printed")
    parser.add_argument("--write", help="write the full results as JSON here")
    args = parser.parse_args(argv)
    found = run(args.chars, args.reply_chars, args.repeat)
    print(f"probe {found['probe_ms']} ms")
    for key in ("messages", "replies"):
        s = found["summary"][key]
        print(f"{key}: {s['shapes']} shapes, max {s['max_ms']} ms, median {s['median_ms']} ms CPU")
        for row in found[key][: args.top]:
            print(f"  {row['ms']:8.2f} ms  {row['chars']:6d}  {row['shape']}")
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            json.dump(found, f, indent=1, ensure_ascii=False)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
