// The merge of every path's events (upload snapshot, WebSocket frames, event-stream messages, polls)
// into the one stream the page shows: the browser's copy of ScanClient's EventMerge, with the same
// invariants and the same tests (Tests/WebClientJS/merge.test.mjs feeds it EventMergeTests' sequences).
//
// - an event is news only if its seq is higher than the last one shown and it is not behind it
//   (state, stage, fraction; a terminal event is never behind), so the shown seq strictly increases
//   and nothing older than what was shown is ever shown;
// - every event seen, news or not, counts for the contiguity a resumed stream asks to replay after;
// - the displayed fraction never decreases; at most one terminal event is news.

/** Order of progress of a job state (JobState.progressRank). */
export const STATE_RANK = Object.freeze({ queued: 0, running: 1, succeeded: 2, failed: 2, canceled: 2 });
/** The pipeline order of the stages (ScanStage.allCases). */
export const STAGES = Object.freeze(["queued", "decoding", "finding_rows", "segmenting_spines", "reading_titles", "finishing", "done"]);
/** A short label for people per stage (ScanStage.label). */
export const STAGE_LABELS = Object.freeze({
  queued: "queued", decoding: "decoding", finding_rows: "finding shelf rows", segmenting_spines: "segmenting spines",
  reading_titles: "reading titles", finishing: "finishing", done: "done",
});

/** Whether no event can follow `state`. */
export function isTerminal(state) {
  return state === "succeeded" || state === "failed" || state === "canceled";
}

function stageRank(stage) {
  const rank = STAGES.indexOf(stage);
  return rank < 0 ? 0 : rank;
}

function clampFraction(value) {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

/** Whether `event` shows less progress than `shown` (EventMerge.isBehind). */
export function isBehind(event, shown) {
  if (!shown || isTerminal(event.state)) return false;
  return (STATE_RANK[event.state] ?? 0) < (STATE_RANK[shown.state] ?? 0)
    || stageRank(event.stage) < stageRank(shown.stage)
    || event.fraction < shown.fraction;
}

/** One job's merge of events from every path. */
export class EventMerge {
  /** `continuing`: the last event an earlier submission of the same job showed. */
  constructor(continuing = null) {
    this.seen = new Set();
    this.contiguous = 0;
    this.lastShown = null;
    this.displayFraction = 0;
    if (continuing) {
      this.contiguous = continuing.seq;
      this.lastShown = continuing;
      this.displayFraction = continuing.state === "succeeded" ? 1 : continuing.fraction;
    }
  }

  /** The seq of the last event shown (0 before any). */
  get lastDelivered() {
    return this.lastShown ? this.lastShown.seq : 0;
  }

  /** Whether a terminal event has been shown. */
  get ended() {
    return this.lastShown !== null && isTerminal(this.lastShown.state);
  }

  /** Takes an event from any path; returns the fraction to display when it is news, null otherwise. */
  accept(raw) {
    if (!raw || !Number.isInteger(raw.seq)) return null;
    const event = { ...raw, fraction: clampFraction(raw.fraction) };
    if (event.seq <= 0 || event.seq <= this.contiguous || this.seen.has(event.seq)) return null;
    this.seen.add(event.seq);
    while (this.seen.has(this.contiguous + 1)) {
      this.seen.delete(this.contiguous + 1);
      this.contiguous += 1;
    }
    if (this.ended || event.seq <= this.lastDelivered || isBehind(event, this.lastShown)) return null;
    this.lastShown = event;
    this.displayFraction = Math.max(this.displayFraction, event.state === "succeeded" ? 1 : event.fraction);
    return this.displayFraction;
  }
}

/** The event a status snapshot stands for (what polling and the upload's answer show). */
export function eventOfSnapshot(snapshot) {
  return {
    jobId: snapshot.jobId, seq: snapshot.seq, state: snapshot.state, stage: snapshot.stage, fraction: snapshot.fraction,
    timestamp: snapshot.updatedAt, result: snapshot.result ?? undefined, error: snapshot.error ?? undefined,
  };
}
