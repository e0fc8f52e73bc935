#!/usr/bin/env python3
"""The tables of Benchmarks/reading-stages.sh from its output folder: time per reading stage (the engine's
thread time, median and largest over the photos), the user's wait per photo for bookscan (and a baseline build)
against rapidocr and the peer measured in the same run, with the ratios and the titles each read.

    reading_stages_table.py OUTDIR PHOTOS_DIR
"""
import glob, json, os, re, statistics, sys

out, photos = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(photos)))
import score_real  # noqa: E402

STAGES = ["decode", "detect", "read_spines", "photo_lines", "read_stack", "decide"]


def seconds_by_photo(folder, key="time_ms"):
    got = {}
    for path in sorted(glob.glob(os.path.join(out, folder, "*.json"))):
        d = json.load(open(path))
        if key in d:
            got[os.path.basename(path)[:-5]] = d[key] / 1000
    return got


def rapidocr_seconds():
    got = {}
    path = os.path.join(out, "rapidocr.log")
    if os.path.exists(path):
        for line in open(path):
            m = re.match(r"(\S+) ([0-9.]+)s \d+ lines", line)
            if m:
                got[m.group(1)] = float(m.group(2))
    return got


def fmt(values):
    if not values:
        return "—", "—"
    return f"{statistics.median(values):.2f}", f"{max(values):.2f}"


# 1. Stages.
engine = {}
for path in sorted(glob.glob(os.path.join(out, "engine", "*.json"))):
    d = json.load(open(path))
    stages = dict(d.get("stage_ms", {}))
    stages["decode"], stages["detect"] = d["decode_ms"], d["detect_ms"]
    engine[os.path.basename(path)[:-5]] = (stages, d["time_ms"])
print(f"Engine, one photo at a time ({len(engine)} photos), seconds: thread time per stage (2 reading threads), wall time per photo\n")
print("| stage | median | largest | share of the summed time |")
print("|---|---|---|---|")
total_all = sum(sum(s.get(k, 0) for k in STAGES) for s, _ in engine.values()) or 1
for stage in STAGES:
    values = [s.get(stage, 0) / 1000 for s, _ in engine.values()]
    med, big = fmt(values)
    print(f"| {stage} | {med} | {big} | {100 * sum(values) * 1000 / total_all:.0f} % |")
med, big = fmt([t / 1000 for _, t in engine.values()])
print(f"| **wall time** | **{med}** | **{big}** | |\n")

# 2. The user's wait and the references.
columns = [("bookscan scan (serve)", seconds_by_photo("scan"), "scan"), ("baseline build (serve)", seconds_by_photo("baseline"), "baseline"),
           ("rapidocr 3.10.0", rapidocr_seconds(), None), ("Python peer", seconds_by_photo("peer"), "peer")]
columns = [c for c in columns if c[1]]
names = sorted(set.intersection(*[set(c[1]) for c in columns])) if columns else []
print(f"Per photo, the same {len(names)} photos, one at a time, seconds\n")
print("| who | median | largest | titles exact | within CER 0.2 | bag precision |")
print("|---|---|---|---|---|---|")
medians = {}
for label, times, folder in columns:
    values = [times[n] for n in names]
    med, big = fmt(values)
    medians[label] = statistics.median(values) if values else None
    figures = "| — | — | — |"
    if folder:
        s = score_real.score(photos, os.path.join(out, folder))
        exact, fuzzy, bag = s["title_recall_exact"], s["title_recall_fuzzy"], s["bag_precision"]
        figures = f"| {exact:.1f} % | {fuzzy:.1f} % | {bag:.1f} % |"
    print(f"| {label} | {med} | {big} {figures}")
ours = medians.get("bookscan scan (serve)")
if ours:
    print()
    for label, m in medians.items():
        if m and label != "bookscan scan (serve)":
            print(f"- bookscan's median time is {ours / m:.2f}× {label}'s" + (f" ({m / ours:.2f}× faster)" if m > ours else ""))
