"""The reading's knowledge from maintained Debian data, read the same way as Swift's `ReadingKnowledge`:
word lists (wamerican, wbritish, wngerman, wspanish, wfrench under /usr/share/dict) and the US Census name
lists that libtext-names-perl carries (/usr/share/perl5/Text/Names.pm)."""
import os, re

DICT_DIR = "/usr/share/dict"
LANGUAGES = {"en": ["american-english", "british-english"], "de": ["ngerman"], "es": ["spanish"], "fr": ["french"]}
NAMES_FILE = "/usr/share/perl5/Text/Names.pm"


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


def load_names():
    """Given names and surnames of the Census lists: the heredocs of Names.pm, one upper-case name and its
    frequencies per entry."""
    names = set()
    inside = False
    with open(NAMES_FILE, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if re.match(r"^\$COMMON_[A-Z_]+ = <<ENDNAMES;", line):
                inside = True
                continue
            if line.startswith("ENDNAMES"):
                inside = False
                continue
            if inside:
                for m in re.finditer(r"\b([A-Z][A-Z'-]+)\s+\d+\.\d+", line):
                    names.add(key(m.group(1)))
    return names


class Knowledge:
    def __init__(self):
        self.words = {lang: load_words(files) for lang, files in LANGUAGES.items()}
        self.names = load_names()
