"""Candidates and their features for the title decision, as Swift's `TitleCandidates` builds them: for each book,
the title the reading's rules gave (if any) and each text line of the photo that lies on it and runs along it.
Keep this file and Sources/SpineReading/Decision/TitleCandidates.swift the same (the lab checks that Swift's
choices with the committed model equal the lab's)."""
import math, re

from knowledge import key

FEATURES = [
    "bias", "from_line", "confidence", "relative_thickness", "is_thickest", "agrees_with_rules", "rules_similarity",
    "words", "letters", "digit_share", "upper_share", "english_share", "other_language_share",
    "length_share", "one_word", "lines_on_book", "two_lines", "within_rules", "latin_share", "mark_share",
    "relative_length", "crop_agreement",
]

# Two lines of one title: the second lies under the first (across, by 0.3–2.5 of the thicker's thickness,
# overlapping along by a third of the shorter) or after it on the same text line (across within half a thickness,
# at most 3 thicknesses after it), and neither is over 1.6 times as thick as the other.
PAIR_MIN_ACROSS, PAIR_MAX_ACROSS, PAIR_OVERLAP = 0.3, 2.5, 1 / 3
PAIR_SAME_LINE, PAIR_MAX_GAP, PAIR_THICKNESS_RATIO = 0.5, 3.0, 1.6



def point_in_polygon(x, y, poly):
    inside = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xi = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < xi:
                inside = not inside
    return inside


def levenshtein(a, b):
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def simple(text):
    """Lower case, letters and digits, single spaces: how two readings are compared."""
    t = "".join(ch.lower() if ch.isalnum() else " " for ch in text)
    return " ".join(t.split())


def book_length(book):
    """The book's long side in pixels (its polygon's longer edge pair)."""
    p = book["polygon"]
    d = lambda a, b: math.hypot(a[0] - b[0], a[1] - b[1])
    return max((d(p[0], p[1]) + d(p[2], p[3])) / 2, (d(p[1], p[2]) + d(p[3], p[0])) / 2)


def lines_on(book, lines, width, height):
    lying = book.get("pose") == "lying"
    out = []
    for ln in lines:
        if (ln["orientation"] == "horizontal") != lying:
            continue
        if point_in_polygon(ln["centerX"] * width, ln["centerY"] * height, book["polygon"]):
            out.append(ln)
    return out


def reading_frame(line, width, height):
    """(along, across) of the line's centre in the photo turned so that it reads left to right (pixels)."""
    x, y = line["centerX"] * width, line["centerY"] * height
    if line["orientation"] == "vertical_tb":
        return y, width - x
    if line["orientation"] == "vertical_bt":
        return height - y, x
    return x, y


def pairs(on, width, height):
    """Each two lines of `on` that read as one title in that order (see PAIR_*): [(first, second)]."""
    side = max(width, height)
    out = []
    for a in on:
        for b in on:
            if a is b or a["orientation"] != b["orientation"]:
                continue
            ta, tb = a["thickness"] * side, b["thickness"] * side
            if max(ta, tb) > PAIR_THICKNESS_RATIO * min(ta, tb):
                continue
            (ua, va), (ub, vb) = reading_frame(a, width, height), reading_frame(b, width, height)
            la, lb = a["length"] * side, b["length"] * side
            thick = max(ta, tb)
            overlap = min(ua + la / 2, ub + lb / 2) - max(ua - la / 2, ub - lb / 2)
            under = PAIR_MIN_ACROSS * thick <= vb - va <= PAIR_MAX_ACROSS * thick and overlap >= PAIR_OVERLAP * min(la, lb)
            gap = (ub - lb / 2) - (ua + la / 2)
            after = abs(vb - va) <= PAIR_SAME_LINE * thick and -0.5 * thick <= gap <= PAIR_MAX_GAP * thick
            if under or after:
                out.append((a, b))
    return out


def share_in(text, words):
    """The share of `text`'s words (keys) that `words` holds: how far the reading spine by spine agrees."""
    keys = [key(w) for w in text.split()]
    keys = [k for k in keys if k]
    return sum(k in words for k in keys) / len(keys) if keys and words else 0.0


def word_shares(text, knowledge):
    words = [key(w) for w in text.split()]
    words = [w for w in words if w]
    if not words:
        return 0.0, 0.0
    en = sum(w in knowledge.words["en"] for w in words) / len(words)
    other = max(sum(w in knowledge.words[lang] for w in words) / len(words) for lang in ("de", "es", "fr"))
    return en, other


def rules_title(book):
    """The title the reading's rules gave: the cached title, or with the learned decision on, what its trace
    says the rules gave."""
    trace = book.get("titleTrace")
    return trace.get("rulesTitle") if trace is not None else book.get("title")


def candidates(book, lines, width, height, knowledge):
    """[(text, source, features)] for one book: each line on it, each two lines that read as one title, and the
    rules' title when no line or pair reads it."""
    on = lines_on(book, lines, width, height)
    rules = rules_title(book)
    thickest = max((ln["thickness"] for ln in on), default=0.0)
    longest = max((ln["length"] for ln in on), default=0.0)
    long_side = max(width, height)
    length = book_length(book)
    items = [(ln["text"], "line", [ln]) for ln in on]
    items += [(a["text"] + " " + b["text"], "line", [a, b]) for a, b in pairs(on, width, height)]
    if rules and not any(simple(text) == simple(rules) for text, _, _ in items):
        items.append((rules, "rules", []))
    r = simple(rules) if rules else ""
    crop_words = {key(w) for w in (book.get("text") or "").split()} - {""}
    out = []
    for text, source, parts in items:
        s = simple(text)
        if not s:
            continue
        letters = [ch for ch in text if ch.isalpha()]
        digits = sum(ch.isdecimal() for ch in text)
        marks = sum(not (ch.isalnum() or ch.isspace()) for ch in text)
        en, other = word_shares(text, knowledge)
        thickness = min((ln["thickness"] for ln in parts), default=0.0)
        line_length = max((ln["length"] for ln in parts), default=0.0)
        f = {
            "bias": 1.0,
            "from_line": 1.0 if parts else 0.0,
            "confidence": min(ln["confidence"] for ln in parts) if parts else book.get("textConfidence", 0.0),
            "relative_thickness": thickness / thickest if parts and thickest > 0 else 0.0,
            "is_thickest": 1.0 if parts and thickness >= thickest else 0.0,
            "agrees_with_rules": 1.0 if r and s == r else 0.0,
            "rules_similarity": 1.0 - levenshtein(s, r) / max(len(s), len(r)) if r else 0.0,
            "words": min(len(s.split()), 8) / 8.0,
            "letters": math.log1p(len(letters)) / 4.0,
            "digit_share": digits / max(1, len(letters) + digits),
            "upper_share": sum(ch.isupper() for ch in letters) / max(1, len(letters)),
            "english_share": en,
            "other_language_share": other,
            "length_share": min(1.0, line_length * long_side / length) if parts and length > 0 else 0.0,
            "one_word": 1.0 if len(s.split()) == 1 else 0.0,
            "lines_on_book": math.log1p(len(on)) / 3.0,
            "two_lines": 1.0 if len(parts) == 2 else 0.0,
            "within_rules": 1.0 if r and s != r and (" " + s + " ") in (" " + r + " ") else 0.0,
            "latin_share": sum(ord(ch) < 0x250 for ch in letters) / max(1, len(letters)),
            "mark_share": marks / max(1, len(text.replace(" ", ""))),
            "relative_length": line_length / longest if parts and longest > 0 else 0.0,
            "crop_agreement": share_in(text, crop_words),
        }
        out.append((text, source, [f[k] for k in FEATURES]))
    return out
