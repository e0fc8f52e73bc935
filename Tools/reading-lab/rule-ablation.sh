#!/usr/bin/env bash
# The reading rules' ablation table: EngineEval (release) over a set with each rule of `ReadingRule` switched off in
# turn (and once with all on), the photos' lines recorded and the learned decision off, then the reading lab's
# rules and held-out figures (leave one source repository out) on each cache.
#   Tools/reading-lab/rule-ablation.sh CACHE [real|generated|both] [RULE...]
# Without RULEs: all on, then each rule off. About 5 minutes a run on the real set (2 cores), 12 on the generated.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${1:?usage: rule-ablation.sh CACHE [real|generated|both] [RULE...]}"
sets="${2:-real}"
shift $(( $# >= 2 ? 2 : 1 ))
rules=("$@")
[ ${#rules[@]} -gt 0 ] || rules=(none given_names edition_lines name_trim stack_reading title_vote merged_spine_split line_check label_pieces deblur word_ink lettering_join enlarged_look other_layout word_rescue one_word_line)
shared="$(cd "$repo/.." && pwd)/shared/eval"
python="$repo/.build/reading-lab-venv/bin/python"
[ -x "$python" ] || python=python3
cd "$repo"
swift build -c release --product EngineEval >/dev/null
for rule in "${rules[@]}"; do
  off=()
  [ "$rule" = none ] || off=(--without "$rule")
  for s in real generated; do
    [ "$sets" = both ] || [ "$sets" = "$s" ] || continue
    dir="$shared/real"; [ "$s" = generated ] && dir="$shared/set"
    if [ ! -f "$cache/$rule/$s.done" ]; then
      mkdir -p "$cache/$rule"
      .build/release/EngineEval --images "$dir" --out "$cache/$rule/$s" --lines --without learned_choice "${off[@]}" >"$cache/$rule/$s.log" 2>&1
      touch "$cache/$rule/$s.done"
    fi
  done
  echo "== $rule off"
  "$python" Tools/reading-lab/reading_lab.py --cache "$cache/$rule" | grep -E '^(rules|learned choice)'
done
