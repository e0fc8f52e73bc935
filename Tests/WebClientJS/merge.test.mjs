// The page's EventMerge (Sources/ScanService/Web/merge.js) fed the sequences of the Swift
// EventMergeTests and TrackerStreamOrderTests. Run: scripts/web-client-js-test (node --test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventMerge, eventOfSnapshot } from "../../Sources/ScanService/Web/merge.js";

const jobId = "6f1c2b4a-0000-4000-8000-000000000001";
const event = (seq, state, stage, fraction) => ({ jobId, seq, state, stage, fraction, timestamp: "1970-01-01T00:00:00.000Z" });

test("out-of-order, repeated and older events fill the contiguity but only newer ones are news", () => {
  const merge = new EventMerge();
  assert.equal(merge.accept(event(3, "running", "finding_rows", 0.3)), 0.3);
  assert.equal(merge.contiguous, 0);
  assert.equal(merge.accept(event(1, "queued", "queued", 0)), null);
  assert.equal(merge.accept(event(2, "running", "decoding", 0.1)), null);
  assert.equal(merge.contiguous, 3);
  assert.equal(merge.accept(event(3, "running", "finding_rows", 0.3)), null);
  assert.equal(merge.accept(event(4, "succeeded", "done", 1)), 1);
  assert.equal(merge.lastDelivered, 4);
});

test("an event with a higher seq but less progress is not news; a terminal one always is", () => {
  const merge = new EventMerge();
  assert.equal(merge.accept(event(1, "running", "segmenting_spines", 0.6)), 0.6);
  assert.equal(merge.accept(event(2, "running", "decoding", 0.7)), null);
  assert.equal(merge.accept(event(3, "running", "segmenting_spines", 0.5)), null);
  assert.equal(merge.accept(event(4, "queued", "queued", 0.9)), null);
  assert.equal(merge.contiguous, 4);
  assert.equal(merge.accept(event(5, "failed", "decoding", 0)), 0.6);
  assert.equal(merge.lastShown.seq, 5);
});

test("a resubmitted job's merge goes on from what the first run showed: its early events are not news", () => {
  const merge = new EventMerge(event(6, "running", "segmenting_spines", 0.62));
  assert.deepEqual([merge.contiguous, merge.lastDelivered, merge.displayFraction], [6, 6, 0.62]);
  assert.equal(merge.accept(event(7, "queued", "queued", 0)), null);
  assert.equal(merge.accept(event(8, "running", "decoding", 0.1)), null);
  assert.equal(merge.accept(event(9, "running", "segmenting_spines", 0.5)), null);
  assert.equal(merge.accept(event(10, "running", "segmenting_spines", 0.7)), 0.7);
  assert.equal(merge.accept(event(11, "succeeded", "done", 1)), 1);
  assert.equal(merge.contiguous, 11);
  assert.equal(merge.accept(event(3, "running", "finding_rows", 0.3)), null);
});

test("upload snapshot seq 3, then a replay of 1, 2: only events newer than 3 are news; contiguity counts 1, 2", () => {
  const merge = new EventMerge();
  const snapshot = { jobId, seq: 3, state: "running", stage: "finding_rows", fraction: 0.3, updatedAt: "1970-01-01T00:00:00.000Z" };
  assert.equal(merge.accept(eventOfSnapshot(snapshot)), 0.3);
  assert.equal(merge.accept(event(1, "queued", "queued", 0)), null);
  assert.equal(merge.accept(event(2, "running", "decoding", 0.1)), null);
  assert.equal(merge.contiguous, 3);
  assert.equal(merge.accept(event(4, "running", "segmenting_spines", 0.5)), 0.5);
});

test("one terminal only: a second terminal event (a confused server) is never news", () => {
  const merge = new EventMerge();
  assert.equal(merge.accept(event(1, "succeeded", "done", 1)), 1);
  assert.equal(merge.accept(event(2, "failed", "done", 1)), null);
  assert.equal(merge.lastShown.state, "succeeded");
});

test("a fraction outside 0…1 and a seq that is not a positive integer are clamped or ignored", () => {
  const merge = new EventMerge();
  assert.equal(merge.accept(event(0, "running", "decoding", 0.1)), null);
  assert.equal(merge.accept(event(1.5, "running", "decoding", 0.1)), null);
  assert.equal(merge.accept(event(1, "running", "decoding", 7)), 1);
});

/** SplitMix64 as the Swift tests use it, on BigInt, for reproducible interleavings. */
function splitMix(seed) {
  let state = BigInt.asUintN(64, BigInt(seed));
  return (bound) => {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    z ^= z >> 31n;
    return Number(z % BigInt(bound));
  };
}

for (let seed = 0; seed < 40; seed += 1) {
  test(`any interleaving of replays, duplicates and polls (seed ${seed}): seq strictly increasing, never back, one terminal`, () => {
    const next = splitMix(seed * 0x9e3779b9 + 1);
    const history = [event(1, "queued", "queued", 0)];
    const stages = ["decoding", "finding_rows", "segmenting_spines", "reading_titles", "finishing"];
    let fraction = 0;
    for (let seq = 2; seq <= 12; seq += 1) {
      fraction = Math.min(0.99, fraction + 0.08);
      history.push(event(seq, "running", stages[Math.min(stages.length - 1, Math.floor((seq - 2) / 2))], fraction));
    }
    history.push(event(13, "succeeded", "done", 1));
    const merge = new EventMerge();
    const shown = [];
    for (let step = 0; step < 80; step += 1) {
      const pick = history[next(history.length)];
      if (merge.accept(pick) !== null) shown.push(merge.lastShown);
    }
    for (const pick of history) if (merge.accept(pick) !== null) shown.push(merge.lastShown);
    for (let i = 1; i < shown.length; i += 1) {
      assert.ok(shown[i].seq > shown[i - 1].seq, "seq strictly increasing");
      assert.ok(shown[i].fraction >= shown[i - 1].fraction || shown[i].state === "succeeded", "fraction never back");
    }
    assert.equal(shown.filter((e) => e.state === "succeeded").length, 1);
    assert.equal(merge.contiguous, 13);
  });
}
