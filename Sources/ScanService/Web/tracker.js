// Follows jobs to their end over the ladder the CLI climbs down (ScanClient/Tracker): a WebSocket
// first, the event stream (EventSource, Server-Sent Events, resuming with Last-Event-ID) when the
// socket is refused or silent, polling every 2 s last. One job uses its own events route; a batch
// uses the multiplexed one (/v1/events), adding jobs as their uploads are accepted. Every path's
// events go through each job's EventMerge, so nothing older than what was shown is shown, and each
// job ends exactly once. The page's environment (sockets, streams, fetch, timers) comes in `env`,
// so the ladder runs the same in the browser and under `node --test`.
import { EventMerge, eventOfSnapshot, isTerminal } from "./merge.js";

/** Defaults, as TrackerSettings has them. */
export const SETTINGS = Object.freeze({
  pollMs: 2000, firstFrameMs: 5000, silenceMs: 5000, heartbeatsBeforeSilence: 2.5, maxStreamFailures: 3,
  backoffBaseMs: 1000, backoffCapMs: 8000, maxRetryAfterMs: 30000,
});
/** What the client says first on a socket (ClientHello.frame). */
export const HELLO_FRAME = '{"hello":{"protocolVersion":1},"type":"hello"}';

/** A job id as the page keys it: the service writes UUIDs in capitals, paths take them in lower case. */
function idOf(text) {
  return String(text ?? "").toLowerCase();
}

const TRANSPORT_LABEL = { websocket: "WebSocket", sse: "Server-Sent Events", polling: "polling every 2 s" };

/** The ladder for one job or a batch. `forced`: "websocket" | "sse" | "polling" pins a rung (`?strategy=`);
 * `eventStream`: false when the service has none (the ladder goes from the WebSocket to polling). */
export class LadderTracker {
  constructor({ env, token = null, multiplexed = false, heartbeatSeconds = null, forced = null, eventStream = true, onEvent, onEnd, onTransport }) {
    this.env = env;
    this.token = token;
    this.multiplexed = multiplexed;
    this.forced = forced;
    this.eventStream = eventStream;
    this.settings = { ...SETTINGS };
    if (heartbeatSeconds > 0) this.settings.silenceMs = Math.round(heartbeatSeconds * 1000 * SETTINGS.heartbeatsBeforeSilence);
    this.onEvent = onEvent ?? (() => {});
    this.onEnd = onEnd ?? (() => {});
    this.onTransport = onTransport ?? (() => {});
    this.jobs = new Map();
    this.mode = forced ?? "websocket";
    this.connection = null;
    this.connectionNumber = 0;
    this.timers = new Map();
    this.reconnects = 0;
    this.socketFailures = 0;
    this.streamFailures = 0;
    this.consecutiveFailures = 0;
    this.polls = 0;
    this.firstFailure = null;
    this.stopped = false;
  }

  /** The name shown in small print for the rung carrying the jobs. */
  get transportLabel() {
    return TRANSPORT_LABEL[this.mode];
  }

  /** A job's upload was accepted with `snapshot` (its answer); `upload` holds the upload's numbers. */
  add(snapshot, upload = {}) {
    const jobId = idOf(snapshot.jobId);
    if (this.jobs.has(jobId) || this.stopped) return;
    const job = {
      jobId, merge: new EventMerge(), startedAt: upload.startedAt ?? this.env.now(), uploadSeconds: upload.seconds ?? null,
      bytesUp: upload.bytes ?? null, uploadAttempts: upload.attempts ?? 1, firstEventAt: null,
      eventsByPath: {}, ended: false, pollOnly: false,
    };
    this.jobs.set(jobId, job);
    this.deliver(job, eventOfSnapshot(snapshot), "upload");
    if (job.ended) return;
    if (this.mode === "polling") {
      this.schedulePoll(0);
    } else if (this.connection && this.multiplexed && this.mode === "websocket" && this.connection.opened) {
      this.connection.socket.send(JSON.stringify({ type: "subscribe", subscribe: { jobs: [{ jobId, after: job.merge.contiguous }] } }));
    } else {
      this.open();
    }
  }

  /** The page came back (visible again, or the network is back): catch up at once and reopen the carrying path. */
  async resume() {
    if (this.stopped || this.unfinished().length === 0) return;
    await this.poll();
    if (!this.stopped && this.unfinished().length > 0 && this.mode !== "polling") {
      this.reconnects += 1;
      this.open();
    }
  }

  /** Stops following: closes every connection and timer (the page is leaving). */
  stop() {
    this.stopped = true;
    this.rest();
  }

  /** Closes every connection and timer; a job added later opens them again (a batch still uploading). */
  rest() {
    this.closeConnection();
    for (const id of this.timers.values()) this.env.clearTimer(id);
    this.timers.clear();
  }

  unfinished() {
    return [...this.jobs.values()].filter((job) => !job.ended);
  }

  // MARK: delivering and ending

  deliver(job, event, path) {
    if (job.ended || !event) return;
    const fraction = job.merge.accept(event);
    if (fraction === null) return;
    if (job.firstEventAt === null && path !== "upload") job.firstEventAt = this.env.now();
    job.eventsByPath[path] = (job.eventsByPath[path] ?? 0) + 1;
    this.onEvent(job.jobId, job.merge.lastShown, fraction, path);
    if (isTerminal(job.merge.lastShown.state)) this.finish(job, job.merge.lastShown.state);
  }

  finish(job, outcome, error = null) {
    if (job.ended) return;
    job.ended = true;
    this.onEnd(job.jobId, this.summary(job, outcome, error));
    if (this.unfinished().length === 0) this.rest();
  }

  /** What the run of `job` was, in the analytics record's terms (StrategyName, fallback fields). */
  summary(job, outcome, error) {
    let strategy;
    if (this.mode === "websocket") strategy = this.reconnects > 0 ? "websocket_reconnected" : "websocket";
    else if (this.mode === "sse") strategy = "sse";
    else strategy = this.forced === "polling" ? "polling" : "polling_fallback";
    const failure = this.firstFailure;
    const result = job.merge.lastShown?.result ?? null;
    return {
      outcome, strategy, error, event: job.merge.lastShown, transport: this.transportLabel,
      fallbackFrom: failure?.from ?? null, fallbackReason: failure?.reason ?? null, fallbackStatus: failure?.status ?? null,
      fallbackPhase: failure?.phase ?? null, reconnects: this.reconnects, socketFailures: this.socketFailures,
      streamFailures: this.streamFailures, polls: this.polls, eventsByPath: { ...job.eventsByPath },
      uploadSeconds: job.uploadSeconds, bytesUp: job.bytesUp, uploadAttempts: job.uploadAttempts,
      firstEventSeconds: job.firstEventAt === null ? null : (job.firstEventAt - job.startedAt) / 1000,
      totalSeconds: (this.env.now() - job.startedAt) / 1000, spinesFound: result ? result.spines.length : null,
    };
  }

  // MARK: the ladder

  /** Records a failure of the current rung and steps down when it cannot carry the jobs. */
  fail(reason, status = null, { stepDown = true } = {}) {
    const from = this.mode;
    if (from === "websocket") this.socketFailures += 1;
    if (from === "sse") this.streamFailures += 1;
    if (!this.firstFailure && from !== "polling") {
      const shown = this.unfinished().some((job) => job.firstEventAt !== null);
      this.firstFailure = { from, reason, status, phase: shown ? "mid_scan" : "before_first_event" };
    }
    this.closeConnection();
    if (this.forced && this.forced !== "polling") {
      this.consecutiveFailures += 1;
      this.scheduleReopen();
      this.schedulePoll(this.settings.pollMs);
      return;
    }
    if (!stepDown) {
      this.consecutiveFailures += 1;
      this.reconnects += 1;
      if (this.consecutiveFailures <= SETTINGS.maxStreamFailures) {
        this.scheduleReopen();
        this.schedulePoll(this.settings.pollMs);
        return;
      }
    }
    this.consecutiveFailures = 0;
    this.mode = from === "websocket" && this.eventStream ? "sse" : "polling";
    this.onTransport(this.transportLabel);
    if (this.mode === "polling") this.schedulePoll(0);
    else this.open();
  }

  scheduleReopen() {
    const delay = Math.min(SETTINGS.backoffCapMs, SETTINGS.backoffBaseMs * 2 ** Math.max(0, this.consecutiveFailures - 1));
    this.setTimer("reopen", delay, () => this.open());
  }

  closeConnection() {
    if (!this.connection) return;
    const old = this.connection;
    this.connection = null;
    this.clearTimer("deadline");
    this.clearTimer("silence");
    try {
      old.close();
    } catch {
      // Closing a connection that is already gone.
    }
  }

  cursorsQuery() {
    return this.unfinished().map((job) => (job.merge.contiguous > 0 ? `${job.jobId}:${job.merge.contiguous}` : job.jobId)).join(",");
  }

  eventsPath() {
    let path;
    if (this.multiplexed) {
      path = `/v1/events?jobs=${this.cursorsQuery()}`;
    } else {
      const job = this.unfinished()[0];
      path = `/v1/scans/${job.jobId}/events?after=${job.merge.contiguous}`;
    }
    // A short-lived ticket where the page has one (POST /v1/tickets): the long-lived token stays out of URLs.
    const ticket = this.env.ticket?.() ?? null;
    if (ticket) return `${path}&ticket=${encodeURIComponent(ticket)}`;
    return this.token ? `${path}&access_token=${encodeURIComponent(this.token)}` : path;
  }

  open() {
    this.clearTimer("reopen");
    this.closeConnection();
    if (this.stopped || this.unfinished().length === 0) return;
    if (this.mode === "websocket") this.openSocket();
    else if (this.mode === "sse") this.openStream();
    else this.schedulePoll(0);
    this.onTransport(this.transportLabel);
  }

  openSocket() {
    const number = ++this.connectionNumber;
    const socket = this.env.openSocket(this.eventsPath());
    const connection = { number, socket, opened: false, frames: 0, close: () => socket.close() };
    this.connection = connection;
    const current = () => this.connection === connection;
    this.setTimer("deadline", this.settings.firstFrameMs, () => {
      if (current()) this.fail(connection.opened ? "silent" : "connect_timeout");
    });
    socket.onopen = () => {
      if (!current()) return;
      connection.opened = true;
      socket.send(HELLO_FRAME);
    };
    socket.onmessage = (message) => {
      if (!current()) return;
      const frame = this.acceptFrame(connection, message);
      if (frame === undefined) return;
      this.setTimer("silence", this.settings.silenceMs, () => {
        if (current()) this.fail("silent", null, { stepDown: false });
      });
      this.handleFrame(frame, "websocket");
    };
    socket.onclose = () => {
      if (!current()) return;
      if (!connection.opened) this.fail("refused");
      else if (connection.frames === 0) this.fail("dropped");
      else this.fail("dropped", null, { stepDown: false });
    };
    socket.onerror = () => {};
  }

  /** A frame of the connection carrying the job, parsed; `undefined` (the connection failed) when it is no JSON. */
  acceptFrame(connection, message) {
    let parsed;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      this.fail("protocol_error");
      return undefined;
    }
    connection.frames += 1;
    this.consecutiveFailures = 0;
    this.clearTimer("deadline");
    return parsed;
  }

  openStream() {
    const number = ++this.connectionNumber;
    const stream = this.env.openStream(this.eventsPath());
    const connection = { number, stream, opened: false, frames: 0, close: () => stream.close() };
    this.connection = connection;
    const current = () => this.connection === connection;
    const onMessage = (type) => (message) => {
      if (!current()) return;
      const data = this.acceptFrame(connection, message);
      if (data === undefined) return;
      this.watchStream(connection);
      this.handleFrame(data.type ? data : { type, [type]: data }, "sse");
    };
    for (const type of ["event", "subscribed", "refused", "heartbeat"]) stream.addEventListener(type, onMessage(type));
    stream.onopen = () => {
      if (!current()) return;
      connection.opened = true;
      this.watchStream(connection);
    };
    stream.onerror = () => {
      if (!current()) return;
      // CLOSED: the stream was refused (an HTTP error, or not an event stream); CONNECTING: the
      // browser reconnects by itself with Last-Event-ID, which is a failure of the stream all the same.
      if (stream.readyState === 2 || !connection.opened) this.fail(connection.opened ? "dropped" : "refused");
      else {
        this.streamFailures += 1;
        this.consecutiveFailures += 1;
        if (this.consecutiveFailures > SETTINGS.maxStreamFailures) this.fail("dropped");
      }
    };
    this.setTimer("deadline", this.settings.firstFrameMs, () => {
      if (current() && !connection.opened) this.fail("connect_timeout");
    });
  }

  /** An event stream hides its heartbeats (comments) from scripts: after a silence a hedged poll
   * tells an idle job from a stream that is buffered (never delivered) or lagging (behind the server). */
  watchStream(connection) {
    this.setTimer("silence", this.settings.silenceMs, async () => {
      if (this.connection !== connection) return;
      const before = new Map(this.unfinished().map((job) => [job.jobId, job.merge.lastDelivered]));
      const news = await this.poll();
      if (this.connection !== connection) return;
      const behind = news.some((jobId) => before.has(jobId));
      if (behind) this.fail(connection.frames === 0 ? "buffered" : "lagging");
      else this.watchStream(connection);
    });
  }

  handleFrame(frame, path) {
    if (frame.type === "event" && frame.event) {
      const job = this.jobs.get(idOf(frame.event.jobId));
      if (job) this.deliver(job, frame.event, path);
    } else if (frame.type === "refused" && frame.refused) {
      const job = this.jobs.get(idOf(frame.refused.jobId));
      if (!job) return;
      if (frame.refused.status === 404) this.finish(job, "job_lost", frame.refused.error ?? null);
      else {
        job.pollOnly = true;
        this.schedulePoll(0);
      }
    }
  }

  // MARK: polling

  schedulePoll(delay) {
    if (this.stopped || this.timers.has("poll")) return;
    this.setTimer("poll", delay, async () => {
      await this.poll();
      const polled = this.mode === "polling" || this.unfinished().some((job) => job.pollOnly);
      if (polled && !this.stopped) this.schedulePoll(this.retryAfterMs ?? this.settings.pollMs);
      this.retryAfterMs = null;
    });
  }

  /** Polls every unfinished job once; returns the ids of the jobs the poll showed news for. */
  async poll() {
    const news = [];
    for (const job of this.unfinished()) {
      this.polls += 1;
      let answer;
      try {
        answer = await this.env.getJSON(`/v1/scans/${job.jobId}`);
      } catch {
        continue;  // the network is away: the next poll (or `online`) tries again
      }
      if (answer.status === 200 && answer.body) {
        const before = job.merge.lastDelivered;
        this.deliver(job, eventOfSnapshot(answer.body), "polling");
        if (job.merge.lastDelivered > before) news.push(job.jobId);
      } else if (answer.status === 404) {
        this.finish(job, "job_lost", answer.body?.error ?? null);
      } else if (answer.status === 401) {
        this.finish(job, "unauthorized", answer.body?.error ?? null);
      } else if (answer.retryAfterSeconds) {
        this.retryAfterMs = Math.min(SETTINGS.maxRetryAfterMs, answer.retryAfterSeconds * 1000);
      }
    }
    return news;
  }

  // MARK: timers

  setTimer(name, ms, action) {
    this.clearTimer(name);
    const id = this.env.setTimer(() => {
      if (this.timers.get(name) === id) this.timers.delete(name);
      if (!this.stopped) action();
    }, ms);
    this.timers.set(name, id);
  }

  clearTimer(name) {
    const id = this.timers.get(name);
    if (id === undefined) return;
    this.env.clearTimer(id);
    this.timers.delete(name);
  }
}
