#!/usr/bin/env python3
"""The reading lab: re-decides every book's title from cached readings in seconds, and scores the decision
with the evaluation's own scorers (../shared/eval/score_real.py and evaluate.py), fitted and held out.

The cache is what EngineEval writes with --lines (one JSON per photo: the books as the scan gave them, with the
title the reading's rules chose, and every text line PP-OCR read on the whole photo):

    .build-release/release/EngineEval --images ../shared/eval/real --out CACHE/real --lines
    .build-release/release/EngineEval --images ../shared/eval/set  --out CACHE/generated --lines
    python3 Tools/reading-lab/reading_lab.py --cache CACHE [--write-model Sources/.../title-model.json]

Held out: the real photos leave one source repository out at a time (each photo's `source`), the generated
photos one difficulty tier at a time; the model and its threshold are fitted on the rest (both sets) and decide
the held-out photos. Fitted: fitted on all, scored on all. A decision only counts when its held-out figures gain.
"""
import argparse, functools, glob, json, multiprocessing, os, sys, tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EVAL = os.path.join(os.path.dirname(REPO), "shared", "eval")
sys.path.insert(0, HERE)
sys.path.insert(0, EVAL)

import evaluate  # noqa: E402
import score_real  # noqa: E402
from features import FEATURES, candidates, rules_title, simple  # noqa: E402
from knowledge import Knowledge  # noqa: E402

# The scorers compare the same pairs of titles again and again (each threshold, each fold): their edit distance
# is remembered, the scoring itself is theirs unchanged.
_distance = functools.lru_cache(maxsize=None)(evaluate.levenshtein)
evaluate.levenshtein = _distance
score_real.levenshtein = _distance
_poly_iou = functools.lru_cache(maxsize=None)(lambda p, q: evaluate_poly_iou([list(x) for x in p], [list(x) for x in q]))
evaluate_poly_iou = evaluate.poly_iou
evaluate.poly_iou = lambda p, q: _poly_iou(tuple(map(tuple, p)), tuple(map(tuple, q)))


def load(cache, knowledge):
    """Photos: dicts with set, name, group, gt, pred, and per book its candidates (text, source, features, label)."""
    photos = []
    for kind, gt_dir in (("real", os.path.join(EVAL, "real")), ("generated", os.path.join(EVAL, "set"))):
        for path in sorted(glob.glob(os.path.join(cache, kind, "*.json"))):
            name = os.path.basename(path)[:-5]
            gt_path = os.path.join(gt_dir, name + ".json")
            if not os.path.exists(gt_path):
                continue
            gt = json.load(open(gt_path))
            pred = json.load(open(path))
            if "lines" not in pred:
                sys.exit(f"{path}: no lines (run EngineEval with --lines)")
            group = gt["source"].split(":")[0] if kind == "real" else "tier:" + gt.get("difficulty", "?")
            titles = [evaluate.normalize(b["title"]) for b in gt["books"] if b.get("title")]
            books = []
            for book in pred["books"]:
                cands = []
                for text, source, f in candidates(book, pred["lines"], pred["width"], pred["height"], knowledge):
                    n = evaluate.normalize(text)
                    label = any(n == t or score_real.fuzzy(n, t) for t in titles)
                    cands.append(dict(text=text, source=source, x=np.array(f), label=label))
                books.append(cands)
            photos.append(dict(set=kind, name=name, group=group, gt=gt, gt_path=gt_path, pred=pred, books=books))
    return photos


def matrix(photos, mask=None):
    X = np.array([cand["x"] for p in photos for b in p["books"] for cand in b])
    y = np.array([cand["label"] for p in photos for b in p["books"] for cand in b])
    return (X if mask is None else X * mask), y


def fit(photos, mask=None):
    """Boosted decision stumps (scikit-learn's gradient boosting, depth 1, log loss) over the candidates of
    `photos`, as a plain model: the initial log-odds and each stump's feature, threshold and the log-odds it adds
    left (feature <= threshold, compared in float32 as scikit-learn does) and right."""
    from sklearn.ensemble import GradientBoostingClassifier
    X, y = matrix(photos, mask)
    # The sets weigh REAL_SHARE and 1 - REAL_SHARE of the training, whatever their counts of candidates (the
    # generated set has three times the real set's): the real photos are what users scan.
    kinds = np.array([p["set"] for p in photos for b in p["books"] for _ in b])
    weight = np.ones(len(y))
    if len(set(kinds)) == 2:
        for kind, share in (("real", REAL_SHARE), ("generated", 1 - REAL_SHARE)):
            weight[kinds == kind] = share * len(y) / np.sum(kinds == kind)
    gb = GradientBoostingClassifier(max_depth=1, n_estimators=STUMPS, learning_rate=LEARNING_RATE, random_state=0)
    gb.fit(X, y, sample_weight=weight)
    prior = float(np.clip(np.average(y, weights=weight), 1e-6, 1 - 1e-6))
    stumps = []
    for tree in gb.estimators_[:, 0]:
        t = tree.tree_
        if t.node_count < 3:
            continue
        stumps.append([int(t.feature[0]), float(t.threshold[0]), LEARNING_RATE * float(t.value[1][0][0]), LEARNING_RATE * float(t.value[2][0][0])])
    model = dict(initial=float(np.log(prior / (1 - prior))), stumps=stumps)
    check = X[: min(len(X), 200)]
    assert np.allclose(log_odds(model, check), gb.decision_function(check), atol=1e-6), "exported stumps differ from scikit-learn's"
    return model


STUMPS, LEARNING_RATE = 200, 0.1
REAL_SHARE = float(os.environ.get("READING_LAB_REAL_SHARE", "1.0"))


def log_odds(model, X):
    X32 = np.asarray(X, dtype=np.float32).astype(np.float64)
    z = np.full(len(X32), model["initial"])
    for f, threshold, left, right in model["stumps"]:
        z += np.where(X32[:, f] <= threshold, left, right)
    return z


def probabilities(photo, model, mask=None):
    """Each book's candidates' probabilities of being its title."""
    out = []
    for cands in photo["books"]:
        if not cands:
            out.append(np.zeros(0))
            continue
        X = np.array([c["x"] for c in cands])
        if mask is not None:
            X = X * mask
        out.append(1 / (1 + np.exp(-log_odds(model, X))))
    return out


def decide(photo, weights, threshold, mask=None, probs=None):
    """The photo's prediction with each book's title chosen by the model: its likeliest candidate when that
    reaches `threshold`, else none; a title chosen twice on one photo stays with the likelier book (the first
    on a tie). Swift's `TitleChoice` decides the same way."""
    if probs is None:
        probs = probabilities(photo, weights, mask)
    pred = {k: v for k, v in photo["pred"].items() if k != "lines"}
    pred["books"] = [dict(b) for b in photo["pred"]["books"]]
    chosen = {}
    for i, (book, cands, ps) in enumerate(zip(pred["books"], photo["books"], probs)):
        book.pop("title", None)
        if not len(cands):
            continue
        j = int(np.argmax(ps))
        best, score = cands[j], float(ps[j])
        if score < threshold:
            continue
        key = simple(best["text"])
        if key in chosen and chosen[key][1] >= score:
            continue
        if key in chosen:
            pred["books"][chosen[key][0]].pop("title", None)
        chosen[key] = (i, score)
        book["title"] = best["text"]
    return pred


def score(photos, preds):
    """Real: score_real's summary over these photos; generated: evaluate's."""
    out = {}
    real = [(p, q) for p, q in zip(photos, preds) if p["set"] == "real"]
    gen = [(p, q) for p, q in zip(photos, preds) if p["set"] == "generated"]
    if real:
        with tempfile.TemporaryDirectory() as tmp:
            gt_dir, pred_dir = os.path.join(tmp, "gt"), os.path.join(tmp, "pred")
            os.makedirs(gt_dir), os.makedirs(pred_dir)
            for p, q in real:
                os.symlink(p["gt_path"], os.path.join(gt_dir, p["name"] + ".json"))
                json.dump(q, open(os.path.join(pred_dir, p["name"] + ".json"), "w"))
            out["real"] = score_real.score(gt_dir, pred_dir)["counts"]
    if gen:
        out["generated"] = [evaluate.evaluate_image(p["gt"], q, 0.5) for p, q in gen]
    return out


def summary(parts):
    """Figures from scored parts (folds summed)."""
    real = [p["real"] for p in parts if "real" in p]
    gen = [r for p in parts if "generated" in p for r in p["generated"]]
    s = {}
    if real:
        t = {k: sum(r[k] for r in real) for k in real[0]}
        pct = lambda a, b: 100.0 * a / b if b else 0.0
        s["real"] = dict(exact=pct(t["exact"], t["gt_titles"]), cer02=pct(t["fuzzy"], t["gt_titles"]),
                         bag_precision=pct(t["pred_ok"], t["pred_titles"]), listed=t["pred_titles"],
                         spine_recall=pct(t["spines_found"], t["gt_spines"]), spine_precision=pct(t["spines_found"], t["pred_spines"]))
    if gen:
        g = evaluate.summarize(gen, 0.5)
        s["generated"] = dict(exact=100 * g["titles"]["exact_acc"], bag_precision=100 * g["bag_of_titles"]["exact_precision"],
                              listed=g["bag_of_titles"]["n_pred_titles"], f1=100 * g["detection"]["f1"])
    return s


def objective(s):
    """What a threshold is chosen by: titles read exactly, within CER 0.2, and the share of titles listed that are
    right, each in per cent, summed over both sets."""
    return sum(part["exact"] + part.get("cer02", part["exact"]) + part["bag_precision"] for part in s.values())


def choose_threshold(photos, weights, mask=None):
    """The threshold (0.20–0.80 in steps of 0.05) with the best `objective` on `photos`."""
    probs = [probabilities(p, weights, mask) for p in photos]
    best, best_t = None, 0.5
    for t in np.arange(0.20, 0.81, 0.05):
        value = objective(summary([score(photos, [decide(p, weights, t, probs=q) for p, q in zip(photos, probs)])]))
        if best is None or value > best:
            best, best_t = value, float(t)
    return best_t


_FOLD = None


def _fold(g):
    photos, mask = _FOLD
    train = [p for p in photos if p["group"] != g]
    test = [p for p in photos if p["group"] == g]
    w = fit(train, mask)
    t = choose_threshold(train, w, mask)
    return score(test, [decide(p, w, t, mask) for p in test])


def held_out(photos, mask=None):
    """Leave one group out: each group decided by the model and threshold fitted on the others (the folds run
    in one process per core)."""
    global _FOLD
    _FOLD = (photos, mask)
    groups = sorted({p["group"] for p in photos})
    with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1) as pool:
        parts = pool.map(_fold, groups)
    return summary(parts)


def as_cached(photo):
    """The photo's prediction as the scan gave it."""
    return {k: v for k, v in photo["pred"].items() if k != "lines"}


def as_ruled(photo):
    """The photo's prediction with the rules' titles (the learned decision's trace says what they were)."""
    pred = as_cached(photo)
    pred["books"] = [dict(b) for b in pred["books"]]
    for book in pred["books"]:
        title = rules_title(book)
        book.pop("title", None)
        if title:
            book["title"] = title
    return pred


def rules(photos):
    """The rules' titles: what the scan gave before the learned decision."""
    return summary([score(photos, [as_ruled(p) for p in photos])])


def parity(photos, model, threshold):
    """How many books the product (the scan with the learned decision on, the cache's titles) titled otherwise
    than the lab's decision with the same model: 0 when Swift and Python build and weigh candidates alike."""
    differ, decided = [], 0
    for p in photos:
        if not any("titleTrace" in b for b in p["pred"]["books"]):
            continue
        lab = decide(p, model, threshold)
        for i, (a, b) in enumerate(zip(p["pred"]["books"], lab["books"])):
            decided += 1
            if a.get("title") != b.get("title"):
                differ.append((p["name"], i, a.get("title"), b.get("title")))
    return decided, differ


def show(label, s):
    r, g = s.get("real"), s.get("generated")
    line = f"{label:34s}"
    if r:
        line += f" real exact {r['exact']:5.1f}  CER0.2 {r['cer02']:5.1f}  bagP {r['bag_precision']:5.1f} ({r['listed']})  spines {r['spine_recall']:.1f}/{r['spine_precision']:.1f}"
    if g:
        line += f" | gen exact {g['exact']:5.1f}  bagP {g['bag_precision']:5.1f} ({g['listed']})  F1 {g['f1']:.1f}"
    print(line, flush=True)


# What the ablation table leaves out, one at a time: a kind of candidate (keep: which candidates stay) or the
# features of one source of evidence.
ABLATIONS = [
    ("the rules' titles as candidates", [], lambda c: c["source"] != "rules"),
    ("two-line candidates", [], lambda c: c["x"][FEATURES.index("two_lines")] == 0),
    ("word lists (Debian dictionaries)", ["english_share", "other_language_share"], None),
    ("line size and place", ["relative_thickness", "is_thickest", "length_share", "relative_length", "lines_on_book"], None),
    ("recognizer confidence", ["confidence"], None),
    ("agreement with the rules", ["agrees_with_rules", "rules_similarity", "within_rules"], None),
    ("text shape", ["words", "letters", "digit_share", "upper_share", "latin_share", "mark_share", "one_word"], None),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", required=True, help="folder with real/ and generated/ EngineEval --lines output")
    ap.add_argument("--write-model", help="fit on everything and write the weights and threshold here (JSON)")
    ap.add_argument("--ablation", action="store_true", help="held-out figures with each feature left out")
    ap.add_argument("--write-predictions", help="write the fitted model's predictions here (real/, generated/)")
    ap.add_argument("--parity", help="a model file (JSON): check that the cache's titles (a scan with that model) are the lab's")
    a = ap.parse_args()
    knowledge = Knowledge()
    photos = load(a.cache, knowledge)
    print(f"{len(photos)} photos, {sum(len(c) for p in photos for c in p['books'])} candidates", flush=True)
    show("rules (the scan before the decision)", rules(photos))
    if any("titleTrace" in b for p in photos for b in p["pred"]["books"]):
        show("the scan as cached (decision on)", summary([score(photos, [as_cached(p) for p in photos])]))
    if a.parity:
        committed = json.load(open(a.parity))
        decided, differ = parity(photos, committed, committed["threshold"])
        print(f"parity with {a.parity}: {decided - len(differ)} of {decided} books titled alike")
        for d in differ[:20]:
            print("  differs:", d)
    w = fit(photos)
    t = choose_threshold(photos, w)
    fitted = summary([score(photos, [decide(p, w, t) for p in photos])])
    show(f"learned choice, fitted (t={t:.2f})", fitted)
    held = held_out(photos)
    show("learned choice, held out", held)
    if a.ablation:
        for label, names, keep in ABLATIONS:
            mask = np.array([0.0 if f in names else 1.0 for f in FEATURES])
            subset = photos if keep is None else [dict(p, books=[[c for c in b if keep(c)] for b in p["books"]]) for p in photos]
            show(f"  without {label}", held_out(subset, mask))
    if a.write_predictions:
        for p in photos:
            d = os.path.join(a.write_predictions, p["set"])
            os.makedirs(d, exist_ok=True)
            json.dump(decide(p, w, t), open(os.path.join(d, p["name"] + ".json"), "w"))
    if a.write_model:
        model = dict(features=FEATURES, initial=w["initial"], stumps=w["stumps"], threshold=round(t, 4),
                     trained_on=dict(real=sum(p["set"] == "real" for p in photos), generated=sum(p["set"] == "generated" for p in photos)),
                     fitted=fitted, held_out=held)
        # One line per stump, so that a change of the model reads as a change of its lines.
        text = json.dumps({k: v for k, v in model.items() if k != "stumps"}, indent=1)
        stumps = ",\n".join("  " + json.dumps([f, round(t, 9), round(l, 9), round(r, 9)]) for f, t, l, r in w["stumps"])
        text = text[: text.rindex("}")].rstrip() + ',\n "stumps": [\n' + stumps + "\n ]\n}\n"
        json.loads(text)
        open(a.write_model, "w").write(text)
        print(f"wrote {a.write_model}")


if __name__ == "__main__":
    main()
