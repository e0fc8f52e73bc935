// The page: pick or photograph shelves, upload them, follow each scan live, show what was found,
// keep a history. Wires the modules together; each one's rules live in that module.
import { LadderTracker } from "./tracker.js";
import { STAGE_LABELS } from "./merge.js";
import { renderResult } from "./result.js";
import { fetchTicket, getJSON, plainError, postAnalytics, preparePhoto, thumbnail, tokenStore, upload } from "./upload.js";

const HISTORY_KEY = "bookscan.history";
const HISTORY_LENGTH = 30;
/** The scans shown on the page (running or finished, until dismissed): a reload or an app switch picks them up. */
const OPEN_KEY = "bookscan.open";
const OPEN_LENGTH = 20;
const $ = (selector) => document.querySelector(selector);

const page = { limits: null, version: "unknown", trackers: new Set(), photos: new Map() };
const forced = ["websocket", "sse", "polling"].includes(new URLSearchParams(location.search).get("strategy"))
  ? new URLSearchParams(location.search).get("strategy") : null;

/** A v4 UUID: crypto.randomUUID where the page is a secure context, else from crypto.getRandomValues (plain http on a LAN). */
function newJobId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The events ticket the page holds (refreshed well before it expires), so no socket or stream URL carries the token. */
const tickets = { value: null, until: 0, timer: null };

async function refreshTicket() {
  clearTimeout(tickets.timer);
  const got = await fetchTicket();
  tickets.value = got?.ticket ?? null;
  tickets.until = got ? performance.now() + (got.seconds - 5) * 1000 : 0;
  // Two thirds into its life a new one is fetched (a sleeping phone's timer is late: `resume` fetches first).
  if (got) tickets.timer = setTimeout(refreshTicket, Math.max(5, got.seconds * 2 / 3) * 1000);
}

const browserEnv = {
  ticket: () => (tickets.value && performance.now() < tickets.until ? tickets.value : null),
  openSocket(path) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return new WebSocket(`${scheme}//${location.host}${path}`);
  },
  openStream(path) {
    return new EventSource(path);
  },
  getJSON,
  setTimer: (action, ms) => setTimeout(action, ms),
  clearTimer: (id) => clearTimeout(id),
  now: () => performance.now(),
};

// MARK: the service and its token

async function connect() {
  const health = await getJSON("/healthz").catch(() => null);
  if (health?.body?.version) page.version = health.body.version;
  const limits = await getJSON("/v1/limits").catch(() => ({ status: 0 }));
  if (limits.status === 200) {
    page.limits = limits.body;
    await refreshTicket();
    showPhoneCode();
    $("#token-form").hidden = true;
    $("#capture").hidden = false;
    $("#status").textContent = "";
    return;
  }
  $("#capture").hidden = true;
  if (limits.status === 401) {
    $("#token-form").hidden = false;
    $("#status").textContent = tokenStore.get() ? "That token was not accepted." : "This service needs its access token.";
    $("#token").focus();
  } else {
    $("#status").textContent = "The service cannot be reached. Reload to try again.";
  }
}

/** The QR code of this page on the machine's network address, when the service listens on one (`serve --host`). */
function showPhoneCode() {
  const image = $("#phone-code-image");
  if (image.src) return;
  image.addEventListener("load", () => { $("#phone-code").hidden = false; }, { once: true });
  image.src = "/web/qr.svg";
}

// MARK: history

function readHistory() {
  try {
    const list = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

function remember(entry) {
  const list = [entry, ...readHistory().filter((old) => old.jobId !== entry.jobId)].slice(0, HISTORY_LENGTH);
  localStorage.setItem(HISTORY_KEY, JSON.stringify(list));
  showHistory();
}

function showHistory() {
  const list = $("#history-list");
  list.replaceChildren();
  for (const entry of readHistory()) {
    const item = document.createElement("li");
    if (entry.thumb) {
      const photo = document.createElement("img");
      photo.src = entry.thumb;
      photo.alt = "";
      item.append(photo);
    }
    const link = document.createElement("a");
    link.href = `#job=${entry.jobId}`;
    link.textContent = entry.name;
    const when = document.createElement("span");
    when.className = "small";
    when.textContent = ` ${new Date(entry.at).toLocaleString()} · ${entry.books} books`;
    item.append(link, when);
    list.append(item);
  }
  $("#history").hidden = list.children.length === 0;
}

async function openFromHistory() {
  const match = /^#job=([0-9a-f-]{36})$/.exec(location.hash);
  if (!match) return;
  const entry = readHistory().find((old) => old.jobId === match[1]);
  const name = entry?.name ?? "photo.jpg";
  const card = newCard(name);
  const answer = await getJSON(`/v1/scans/${match[1]}`).catch(() => ({ status: 0 }));
  if (answer.status === 200 && answer.body?.state === "succeeded" && answer.body.result) {
    card.progress.value = 1;
    card.stage.textContent = "done";
    card.body.append(renderResult({ result: answer.body.result, imageName: name, photoURL: page.photos.get(match[1]) ?? entry?.thumb ?? null }));
  } else if (answer.status === 404) {
    card.stage.textContent = "The service no longer keeps this scan.";
  } else {
    card.stage.textContent = answer.body?.error?.message ?? `This scan is ${answer.body?.state ?? "not readable now"}.`;
  }
}

// MARK: the scans on the page, kept across reloads

function readOpen() {
  try {
    const list = JSON.parse(localStorage.getItem(OPEN_KEY) ?? "[]");
    return Array.isArray(list) ? list.filter((entry) => /^[0-9a-f-]{36}$/.test(entry?.jobId ?? "")) : [];
  } catch {
    return [];
  }
}

function writeOpen(list) {
  try {
    localStorage.setItem(OPEN_KEY, JSON.stringify(list.slice(0, OPEN_LENGTH)));
  } catch {
    // Storage full or off: the scan goes on, only a reload would lose it.
  }
}

/** Keeps (or updates) the page's record of a scan: id, name, the last event seen, its small photo. */
function keepOpen(jobId, patch) {
  const list = readOpen();
  const at = list.findIndex((entry) => entry.jobId === jobId);
  if (at >= 0) list[at] = { ...list[at], ...patch };
  else list.unshift({ jobId, ...patch });
  writeOpen(list);
}

function dropOpen(jobId) {
  writeOpen(readOpen().filter((entry) => entry.jobId !== jobId));
}

/** After a reload: each scan the page showed comes back, followed on from where it was or with its result. */
async function resumeOpen() {
  const running = [];
  for (const entry of [...readOpen()].reverse()) {
    const card = newCard(entry.name ?? "photo.jpg");
    card.root.dataset.jobId = entry.jobId;
    if (entry.thumb) page.photos.set(entry.jobId, entry.thumb);
    const answer = await getJSON(`/v1/scans/${entry.jobId}`).catch(() => ({ status: 0 }));
    if (answer.status === 404) {
      ended(card, "failed", "The service no longer keeps this scan.");
    } else if (answer.status !== 200 || !answer.body) {
      ended(card, "failed", plainError(new Error(answer.body?.error?.message ?? ""), card.name.textContent));
    } else {
      running.push({ card, snapshot: answer.body });
    }
  }
  if (running.length === 0) return;
  const cards = new Map(running.map(({ card, snapshot }) => [snapshot.jobId.toLowerCase(), card]));
  const tracker = newTracker(cards, running.length > 1 && (page.limits?.maxJobsPerEventSocket ?? 1) > 1, running.length > 1);
  for (const { snapshot } of running) tracker.add(snapshot);
}

// MARK: scanning

function newCard(name) {
  const template = $("#job-template").content.cloneNode(true);
  const card = {
    root: template.querySelector(".job"), name: template.querySelector(".name"), upload: template.querySelector(".upload"),
    progress: template.querySelector(".progress"), stage: template.querySelector(".stage"), via: template.querySelector(".via"),
    body: template.querySelector(".job-body"), actions: template.querySelector(".actions"), retry: template.querySelector(".retry"),
  };
  card.name.textContent = name;
  template.querySelector(".dismiss").addEventListener("click", () => {
    if (card.root.dataset.jobId) dropOpen(card.root.dataset.jobId);
    card.root.remove();
  });
  $("#jobs").prepend(card.root);
  return card;
}

/** Marks `card` ended (`outcome`), with `message` when it failed; a failed photo that `file` can send again gets "Try again". */
function ended(card, outcome, message = null, file = null) {
  card.root.dataset.outcome = outcome;
  if (message) card.stage.textContent = message;
  card.actions.hidden = false;
  if (file) {
    card.retry.hidden = false;
    card.retry.addEventListener("click", () => {
      card.root.remove();
      scan([file]);
    }, { once: true });
  }
}

function analyticsRecord(jobId, summary, command) {
  const outcomes = new Set(["succeeded", "failed", "canceled", "job_lost", "unauthorized"]);
  return {
    schemaVersion: 2, timestamp: new Date().toISOString(), jobId, command, client: "web",
    outcome: outcomes.has(summary.outcome) ? summary.outcome : "failed", strategy: summary.strategy,
    fallbackFrom: summary.fallbackFrom ?? undefined, fallbackReason: summary.fallbackReason ?? undefined,
    fallbackStatus: summary.fallbackStatus ?? undefined, fallbackPhase: summary.fallbackPhase ?? undefined,
    reconnects: summary.reconnects, socketFailures: summary.socketFailures, streamFailures: summary.streamFailures, polls: summary.polls,
    eventsByPath: summary.eventsByPath, uploadSeconds: summary.uploadSeconds ?? undefined,
    firstEventSeconds: summary.firstEventSeconds ?? undefined, totalSeconds: summary.totalSeconds, bytesUp: summary.bytesUp ?? undefined,
    uploadAttempts: summary.uploadAttempts, resubmissions: 0, spinesFound: summary.spinesFound ?? undefined,
    network: "web", server: "web", bookscanVersion: page.version,
  };
}

/** A tracker for the jobs of `cards` (jobId → card), on one multiplexed subscription when `multiplexed`. */
function newTracker(cards, multiplexed, batch) {
  const tracker = new LadderTracker({
    env: browserEnv, token: tokenStore.get(), multiplexed, heartbeatSeconds: page.limits?.heartbeatSeconds ?? null,
    forced, eventStream: page.limits?.eventStream !== false,
    onEvent: (jobId, event, fraction) => {
      const card = cards.get(jobId);
      card.progress.value = fraction;
      card.progress.textContent = `${Math.round(fraction * 100)} %`;
      card.stage.textContent = `${STAGE_LABELS[event.stage] ?? event.stage} · ${Math.round(fraction * 100)} %`;
      keepOpen(jobId, { seq: event.seq });
    },
    onEnd: (jobId, summary) => {
      const card = cards.get(jobId);
      card.via.textContent = `via ${summary.transport} (${summary.strategy})`;
      card.root.dataset.strategy = summary.strategy;
      const result = summary.event?.result;
      if (summary.outcome === "succeeded" && result) {
        card.progress.value = 1;
        card.body.append(renderResult({ result, imageName: card.name.textContent, photoURL: page.photos.get(jobId) }));
        const kept = readOpen().find((entry) => entry.jobId === jobId);
        remember({ jobId, name: card.name.textContent, at: Date.now(), books: result.spines.length, thumb: kept?.thumb });
        ended(card, "succeeded");
      } else {
        ended(card, summary.outcome, summary.error?.message ?? summary.event?.error?.message ?? `The scan ended: ${summary.outcome.replace("_", " ")}.`);
      }
      // Once per scan: a scan picked up again after a reload was reported when it ended.
      if (!readOpen().find((entry) => entry.jobId === jobId)?.reported) {
        postAnalytics(analyticsRecord(jobId, summary, batch ? "batch" : "scan"));
        keepOpen(jobId, { reported: true });
      }
      if (tracker.unfinished().length === 0) page.trackers.delete(tracker);
    },
    onTransport: (label) => {
      for (const [jobId, card] of cards) if (tracker.jobs.has(jobId) && !card.root.dataset.outcome) card.via.textContent = `via ${label}`;
    },
  });
  page.trackers.add(tracker);
  return tracker;
}

async function scan(files) {
  if (!page.limits) return;
  const photos = [];
  for (const file of files) {
    if (file.type.startsWith("image/")) {
      photos.push(file);
    } else {
      // Said, not silently skipped: a document picked by mistake.
      ended(newCard(file.name), "rejected", `${file.name} is not a photo (${file.type || "an unknown kind of file"}).`);
    }
  }
  if (photos.length === 0) return;
  const batch = photos.length > 1;
  const cards = new Map();
  // A batch shares one multiplexed subscription per `maxJobsPerEventSocket` jobs; without that
  // route (an older service) every job has a tracker of its own.
  const groupSize = batch ? Math.max(1, page.limits.maxJobsPerEventSocket ?? 1) : 1;
  let tracker = null;
  let inGroup = 0;
  for (const file of photos) {
    const jobId = newJobId();
    const card = newCard(file.name);
    card.root.dataset.jobId = jobId;
    cards.set(jobId, card);
    try {
      card.stage.textContent = "preparing";
      const prepared = await preparePhoto(file, page.limits.recommendedLongSide, page.limits.maxBytes ?? Infinity);
      page.photos.set(jobId, URL.createObjectURL(prepared.blob));
      const thumb = await thumbnail(prepared.blob).catch(() => null);
      card.stage.textContent = "uploading";
      const startedAt = performance.now();
      const sent = await upload(jobId, prepared.blob, (fraction) => {
        card.upload.value = fraction;
        card.upload.textContent = `${Math.round(fraction * 100)} %`;
      });
      keepOpen(jobId, { name: file.name, seq: sent.snapshot.seq ?? 0, thumb });
      if (!tracker || inGroup === groupSize) {
        tracker = newTracker(cards, groupSize > 1, batch);
        inGroup = 0;
      }
      inGroup += 1;
      tracker.add(sent.snapshot, { startedAt, seconds: sent.seconds, bytes: prepared.blob.size, attempts: sent.attempts });
    } catch (error) {
      ended(card, "rejected", plainError(error, file.name), error.notAPhoto || error.code === "undecodable_image" ? null : file);
      if (error.status === 401) connect();
    }
  }
}

// MARK: events of the page

function wire() {
  $("#token-form").addEventListener("submit", (submit) => {
    submit.preventDefault();
    tokenStore.set($("#token").value.trim());
    $("#token").value = "";
    connect();
  });
  $("#forget-token").addEventListener("click", () => {
    tokenStore.set(null);
    connect();
  });
  $("#photos").addEventListener("change", (change) => {
    scan(change.target.files);
    change.target.value = "";
  });
  const drop = $("#drop");
  drop.addEventListener("dragover", (over) => {
    over.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (dropped) => {
    dropped.preventDefault();
    drop.classList.remove("over");
    scan(dropped.dataTransfer.files);
  });
  const resume = async () => {
    if (performance.now() >= tickets.until) await refreshTicket();
    for (const tracker of page.trackers) tracker.resume();
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") resume();
  });
  window.addEventListener("online", resume);
  window.addEventListener("hashchange", openFromHistory);
}

wire();
showHistory();
connect().then(() => (page.limits ? resumeOpen() : null)).then(openFromHistory);
