#!/usr/bin/env python3
"""Re-scores EngineEval predictions with stricter title thresholds: titles and authors whose reading
confidence (textConfidence) is below the threshold are dropped, `text` is kept; each variant is scored
with ../shared/eval/evaluate.py. Shows what the reader's confidence threshold trades.

    python3 Benchmarks/title-threshold-sweep.py PREDDIR [OUTDIR]
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
shared_eval = os.path.join(root, "..", "shared", "eval")
pred = sys.argv[1]
out_root = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="title-sweep-")
for t in [0.80, 0.82, 0.84, 0.86, 0.88, 0.90, 0.92, 0.94]:
    out = os.path.join(out_root, f"t{round(t * 100)}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for f in glob.glob(os.path.join(pred, "*.json")):
        d = json.load(open(f))
        for b in d["books"]:
            if b.get("textConfidence", 0) < t:
                b.pop("title", None)
                b.pop("author", None)
        json.dump(d, open(os.path.join(out, os.path.basename(f)), "w"))
    r = subprocess.run(
        ["python3", os.path.join(shared_eval, "evaluate.py"), "--gt", os.path.join(shared_eval, "set"), "--pred", out],
        capture_output=True, text=True, check=True).stdout
    print(f"== threshold {t:.2f}")
    print("\n".join(l for l in r.splitlines() if l.startswith("titles") or l.startswith("bag") or "by tier:" in l))
