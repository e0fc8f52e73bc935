"""The reading's knowledge from maintained Debian data, read the same way as Swift's `ReadingKnowledge`:
the word lists of wamerican, wbritish, wngerman, wspanish and wfrench under /usr/share/dict. (The US Census
names of libtext-names-perl were a feature too; held out they gained nothing and were removed: BENCHMARKS.md.)"""
import os

DICT_DIR = "/usr/share/dict"
LANGUAGES = {"en": ["american-english", "british-english"], "de": ["ngerman"], "es": ["spanish"], "fr": ["french"]}


def key(word):
    """A word as the lists are asked: its letters, lower case; a trailing possessive 's goes."""
    w = word.lower()
    for s in ("'s", "\u2019s"):
        if w.endswith(s) and len(w) > len(s):
            w = w[: -len(s)]
    return "".join(ch for ch in w if ch.isalpha())


def load_words(files):
    out = set()
    for f in files:
        with open(os.path.join(DICT_DIR, f), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                k = key(line.strip())
                if k:
                    out.add(k)
    return out


class Knowledge:
    def __init__(self):
        self.words = {lang: load_words(files) for lang, files in LANGUAGES.items()}
