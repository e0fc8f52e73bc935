// The page's ladder (Sources/ScanService/Web/tracker.js) driven by a fake environment: sockets,
// event streams, polls and a manual clock, so each rung, each fallback and the ordering rules are
// checked without a browser (the browser check runs the same code against the real service).
import { test } from "node:test";
import assert from "node:assert/strict";
import { LadderTracker, HELLO_FRAME } from "../../Sources/ScanService/Web/tracker.js";

const A = "6f1c2b4a-0000-4000-8000-00000000000a";
const B = "6f1c2b4a-0000-4000-8000-00000000000b";
// The service writes UUIDs in capitals (Foundation's UUID encoding); paths and the page use lower case.
const history = (id, jobId = id.toUpperCase()) => [
  { jobId, seq: 1, state: "queued", stage: "queued", fraction: 0 },
  { jobId, seq: 2, state: "running", stage: "decoding", fraction: 0.1 },
  { jobId, seq: 3, state: "running", stage: "finding_rows", fraction: 0.3 },
  { jobId, seq: 4, state: "running", stage: "reading_titles", fraction: 0.7 },
  { jobId, seq: 5, state: "succeeded", stage: "done", fraction: 1, result: { imageWidth: 10, imageHeight: 10, spines: [] } },
];
const snapshot = (event) => ({ ...event, updatedAt: "1970-01-01T00:00:00.000Z" });
const frame = (event) => ({ data: JSON.stringify({ type: "event", event }) });

/** Sockets, streams, polls and timers the test moves by hand. */
class FakeEnv {
  constructor() {
    this.clock = 0;
    this.timers = new Map();
    this.nextTimer = 1;
    this.sockets = [];
    this.streams = [];
    this.polled = [];
    this.server = new Map();  // jobId → snapshot the polls answer
  }
  openSocket(path) {
    const socket = { path, sent: [], closed: false, send(text) { this.sent.push(text); }, close() { this.closed = true; } };
    this.sockets.push(socket);
    return socket;
  }
  openStream(path) {
    const listeners = new Map();
    const stream = {
      path, readyState: 0, closed: false,
      addEventListener(type, listener) { listeners.set(type, listener); },
      close() { this.closed = true; this.readyState = 2; },
      emit(type, data) { listeners.get(type)?.({ data: JSON.stringify(data) }); },
    };
    this.streams.push(stream);
    return stream;
  }
  async getJSON(path) {
    this.polled.push(path);
    const jobId = path.split("/").pop();
    const body = this.server.get(jobId);
    return body ? { status: 200, body, retryAfterSeconds: null } : { status: 404, body: null, retryAfterSeconds: null };
  }
  setTimer(action, ms) {
    const id = this.nextTimer++;
    this.timers.set(id, { at: this.clock + ms, action });
    return id;
  }
  clearTimer(id) {
    this.timers.delete(id);
  }
  now() {
    return this.clock;
  }
  /** Moves the clock by `ms`, firing due timers in order (and letting their promises settle). */
  async advance(ms) {
    const end = this.clock + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.clock = due[1].at;
      due[1].action();
      await settle();
    }
    this.clock = end;
    await settle();
  }
}

async function settle() {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

function makeTracker(env, options = {}) {
  const shown = [];
  const ends = [];
  const tracker = new LadderTracker({
    env, heartbeatSeconds: 2, ...options,
    onEvent: (jobId, event, fraction) => shown.push({ jobId, seq: event.seq, fraction }),
    onEnd: (jobId, summary) => ends.push({ jobId, ...summary }),
  });
  return { tracker, shown, ends };
}

function checkOrder(shown) {
  const byJob = new Map();
  for (const entry of shown) {
    const last = byJob.get(entry.jobId);
    if (last) {
      assert.ok(entry.seq > last.seq, `seq ${entry.seq} after ${last.seq}`);
      assert.ok(entry.fraction >= last.fraction, "fraction never back");
    }
    byJob.set(entry.jobId, entry);
  }
}

test("the WebSocket carries a job: hello first, a replay older than the upload's snapshot is not shown, one end", async () => {
  const env = new FakeEnv();
  const { tracker, shown, ends } = makeTracker(env);
  const events = history(A);
  tracker.add(snapshot(events[1]));
  const socket = env.sockets[0];
  assert.equal(socket.path, `/v1/scans/${A}/events?after=0`);
  socket.onopen();
  assert.deepEqual(socket.sent, [HELLO_FRAME]);
  socket.onmessage(frame(events[0]));
  socket.onmessage(frame(events[1]));
  for (const event of events.slice(2)) socket.onmessage(frame(event));
  socket.onmessage(frame(events[4]));
  checkOrder(shown);
  assert.deepEqual(shown.map((e) => e.seq), [2, 3, 4, 5]);
  assert.equal(ends.length, 1);
  assert.equal(ends[0].strategy, "websocket");
  assert.equal(ends[0].outcome, "succeeded");
  assert.ok(socket.closed);
  assert.equal(env.timers.size, 0, "no timer left after the end");
});

test("a refused upgrade falls to the event stream, which resumes after what was seen and carries the job", async () => {
  const env = new FakeEnv();
  const { tracker, shown, ends } = makeTracker(env, { token: "s3cret" });
  const events = history(A);
  tracker.add(snapshot(events[0]));
  assert.equal(env.sockets[0].path, `/v1/scans/${A}/events?after=1&access_token=s3cret`);
  env.sockets[0].onclose();
  assert.equal(tracker.mode, "sse");
  const stream = env.streams[0];
  assert.equal(stream.path, `/v1/scans/${A}/events?after=1&access_token=s3cret`);
  stream.readyState = 1;
  stream.onopen();
  for (const event of [events[2], events[1], events[3], events[2], events[4]]) stream.emit("event", { type: "event", event });
  checkOrder(shown);
  assert.deepEqual(shown.map((e) => e.seq), [1, 3, 4, 5]);
  assert.equal(ends.length, 1);
  assert.equal(ends[0].strategy, "sse");
  assert.deepEqual([ends[0].fallbackFrom, ends[0].fallbackReason], ["websocket", "refused"]);
  assert.equal(ends[0].eventsByPath.sse, 3);
});

test("with the event stream refused too, polling every 2 s carries the job to its one end", async () => {
  const env = new FakeEnv();
  const { tracker, shown, ends } = makeTracker(env);
  const events = history(A);
  tracker.add(snapshot(events[0]));
  env.sockets[0].onclose();
  const stream = env.streams[0];
  stream.readyState = 2;
  stream.onerror();
  assert.equal(tracker.mode, "polling");
  env.server.set(A, snapshot(events[2]));
  await env.advance(0);
  env.server.set(A, snapshot(events[1]));  // a poll that answers older than what was shown
  await env.advance(2000);
  env.server.set(A, snapshot(events[4]));
  await env.advance(2000);
  await env.advance(10000);
  checkOrder(shown);
  assert.deepEqual(shown.map((e) => e.seq), [1, 3, 5]);
  assert.equal(ends.length, 1);
  assert.equal(ends[0].strategy, "polling_fallback");
  assert.deepEqual([ends[0].fallbackFrom, ends[0].fallbackReason, ends[0].fallbackPhase], ["websocket", "refused", "before_first_event"]);
  assert.equal(env.polled.length, 3, "polling stops at the end");
});

test("a socket that drops mid-scan reconnects after what was seen; the replay shows nothing twice", async () => {
  const env = new FakeEnv();
  const { tracker, shown, ends } = makeTracker(env);
  const events = history(A);
  tracker.add(snapshot(events[0]));
  const first = env.sockets[0];
  first.onopen();
  first.onmessage(frame(events[1]));
  first.onmessage(frame(events[2]));
  first.onclose();
  assert.equal(tracker.mode, "websocket");
  env.server.set(A, snapshot(events[2]));
  await env.advance(1000);
  const second = env.sockets[1];
  assert.equal(second.path, `/v1/scans/${A}/events?after=3`);
  second.onopen();
  second.onmessage(frame(events[2]));
  second.onmessage(frame(events[3]));
  second.onmessage(frame(events[4]));
  checkOrder(shown);
  assert.deepEqual(shown.map((e) => e.seq), [1, 2, 3, 4, 5]);
  assert.equal(ends[0].strategy, "websocket_reconnected");
});

test("an event stream that opens but never delivers while a poll shows news is buffered: polling takes over", async () => {
  const env = new FakeEnv();
  const { tracker, shown, ends } = makeTracker(env, { forced: null });
  const events = history(A);
  tracker.add(snapshot(events[0]));
  env.sockets[0].onclose();
  const stream = env.streams[0];
  stream.readyState = 1;
  stream.onopen();
  env.server.set(A, snapshot(events[3]));
  await env.advance(5000);
  assert.equal(tracker.mode, "polling");
  assert.ok(stream.closed);
  env.server.set(A, snapshot(events[4]));
  await env.advance(2000);
  stream.emit("event", { type: "event", event: events[4] });  // a late frame of the closed stream
  checkOrder(shown);
  assert.deepEqual(shown.map((e) => e.seq), [1, 4, 5]);
  assert.equal(ends.length, 1);
  assert.equal(ends[0].strategy, "polling_fallback");
  assert.equal(ends[0].streamFailures, 1);
});

test("a batch shares one multiplexed socket: later jobs are subscribed on it, each job ends once", async () => {
  const env = new FakeEnv();
  const { tracker, shown, ends } = makeTracker(env, { multiplexed: true });
  const a = history(A);
  const b = history(B);
  tracker.add(snapshot(a[0]));
  const socket = env.sockets[0];
  assert.equal(socket.path, `/v1/events?jobs=${A}:1`);
  socket.onopen();
  tracker.add(snapshot(b[0]));
  assert.equal(env.sockets.length, 1);
  assert.deepEqual(JSON.parse(socket.sent[1]), { type: "subscribe", subscribe: { jobs: [{ jobId: B, after: 1 }] } });
  for (const [x, y] of a.map((e, i) => [e, b[i]])) {
    socket.onmessage(frame(y));
    socket.onmessage(frame(x));
    socket.onmessage({ data: JSON.stringify({ type: "heartbeat", heartbeat: { latestSeq: x.seq, timestamp: "1970-01-01T00:00:00.000Z" } }) });
  }
  checkOrder(shown);
  assert.deepEqual(ends.map((e) => e.jobId).sort(), [A, B]);
  assert.ok(socket.closed);
});

test("coming back (visible, online) polls at once and reopens the stream after what was seen", async () => {
  const env = new FakeEnv();
  const { tracker, shown } = makeTracker(env);
  const events = history(A);
  tracker.add(snapshot(events[0]));
  env.sockets[0].onopen();
  env.sockets[0].onmessage(frame(events[1]));
  env.server.set(A, snapshot(events[2]));
  tracker.resume();
  await settle();
  assert.equal(env.polled.length, 1);
  assert.ok(env.sockets[0].closed);
  assert.equal(env.sockets[1].path, `/v1/scans/${A}/events?after=3`);
  checkOrder(shown);
  assert.deepEqual(shown.map((e) => e.seq), [1, 2, 3]);
});

test("a job the server lost ends once as job_lost", async () => {
  const env = new FakeEnv();
  const { tracker, ends } = makeTracker(env, { forced: "polling" });
  tracker.add(snapshot(history(A)[0]));
  await env.advance(0);
  await env.advance(4000);
  assert.equal(ends.length, 1);
  assert.equal(ends[0].outcome, "job_lost");
  assert.equal(ends[0].strategy, "polling");
});

test("a batch job added after the first one ended is still followed (the ladder rests, it does not stop)", async () => {
  const env = new FakeEnv();
  const { tracker, shown, ends } = makeTracker(env, { multiplexed: true });
  const a = history(A);
  const b = history(B);
  tracker.add(snapshot(a[0]));
  env.sockets[0].onopen();
  for (const event of a) env.sockets[0].onmessage(frame(event));
  assert.equal(ends.length, 1);
  assert.ok(env.sockets[0].closed);
  tracker.add(snapshot(b[0]));
  const second = env.sockets[1];
  assert.equal(second.path, `/v1/events?jobs=${B}:1`);
  second.onopen();
  for (const event of b) second.onmessage(frame(event));
  checkOrder(shown);
  assert.deepEqual(ends.map((e) => e.jobId), [A, B]);
});

test("with a ticket the events URLs carry it, never the token; without one the token as before", async () => {
  const env = new FakeEnv();
  env.ticket = () => "1700000000.abc";
  const { tracker } = makeTracker(env, { token: "secret token" });
  tracker.add(snapshot(history(A)[1]));
  assert.equal(env.sockets[0].path, `/v1/scans/${A}/events?after=0&ticket=1700000000.abc`);
  assert.ok(!env.sockets[0].path.includes("access_token"));
  const plain = new FakeEnv();
  const other = makeTracker(plain, { token: "secret token" });
  other.tracker.add(snapshot(history(A)[1]));
  assert.equal(plain.sockets[0].path, `/v1/scans/${A}/events?after=0&access_token=secret%20token`);
});
