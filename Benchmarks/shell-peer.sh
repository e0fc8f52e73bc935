#!/usr/bin/env bash
# The shell peer for `bookscan batch`: what a user would write without bookscan.
#
#   Benchmarks/shell-peer.sh URL DIR OUTDIR [JOBS=4] [POLL_SECONDS=2]
#
# For every *.jpg in DIR, 4 at once (xargs -P4): make a UUID, upload the file as it is with
# `curl -T` (PUT /v1/scans/ID, Content-Type image/jpeg), then `curl` GET /v1/scans/ID right away and
# every 2 s until `state` is succeeded/failed/canceled, and write that final snapshot JSON to
# OUTDIR/<name>.json. No preparation, no WebSocket. The state is read with grep (no jq/python per poll,
# so the peer's client CPU stays minimal). Polling is bounded: at most MAX_POLLS (450 = 15 min at 2 s).
# PEER_UPLOAD_ARGS (default empty) adds curl options to the upload only, e.g. PEER_UPLOAD_ARGS="-H Expect:"
# to stop curl from sending `Expect: 100-continue` (the service never answers it with 100, so plain
# `curl -T` waits curl's 1 s expect timeout before sending each body).
# Exit status: 0 if every job succeeded, 1 otherwise (xargs reports 123 when any invocation failed).
set -uo pipefail

if [[ "${1:-}" == "--one" ]]; then
    # One photo: --one URL OUTDIR POLL_SECONDS FILE
    url=$2 out=$3 poll=$4 file=$5
    id=$(cat /proc/sys/kernel/random/uuid)   # uuidgen is not installed here; same thing
    name=$(basename "$file")
    # shellcheck disable=SC2086  # word-split on purpose
    if ! curl -sS -f -o /dev/null ${PEER_UPLOAD_ARGS:-} -T "$file" -H 'Content-Type: image/jpeg' "$url/v1/scans/$id"; then
        echo "shell-peer: $name: upload failed" >&2
        exit 1
    fi
    max=${MAX_POLLS:-450}
    for ((i = 0; i < max; i++)); do
        json=$(curl -s "$url/v1/scans/$id")
        state=$(grep -o '"state" *: *"[a-z_]*"' <<<"$json" | head -n1 | sed 's/.*"\([a-z_]*\)"$/\1/')
        case "$state" in
            succeeded) printf '%s\n' "$json" > "$out/$name.json"; exit 0 ;;
            failed | canceled) printf '%s\n' "$json" > "$out/$name.json"; echo "shell-peer: $name: $state" >&2; exit 1 ;;
        esac
        sleep "$poll"
    done
    echo "shell-peer: $name: gave up after $max polls" >&2
    exit 1
fi

url=${1:?URL}; dir=${2:?DIR}; out=${3:?OUTDIR}; jobs=${4:-4}; poll=${5:-2}
mkdir -p "$out"
find "$dir" -maxdepth 1 -type f -name '*.jpg' -print0 | sort -z \
    | xargs -0 -P "$jobs" -n 1 "$0" --one "$url" "$out" "$poll"
