// The service's HTTP side as the page uses it: the token, JSON requests, and the upload of a photo
// the way the CLI does it: the photo fitted to the service's recommended long side (upright, by its
// EXIF orientation) and PUT to /v1/scans/{jobId} under a jobId made here, so a retry after a network
// hiccup is the same job, never a second one.

const TOKEN_KEY = "bookscan.token";
const UPLOAD_ATTEMPTS = 4;
const JPEG_QUALITY = 0.9;
/** How many times a photo over the byte limit is made smaller before it is sent as it is (and refused). */
const SHRINK_STEPS = 6;

/** The token this browser keeps for the service (localStorage: never in a URL bar or a cookie). */
export const tokenStore = {
  get() {
    return localStorage.getItem(TOKEN_KEY);
  },
  set(token) {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  },
};

/** A request the service answered with its error JSON (or not at all). */
export class ServiceError extends Error {
  constructor(status, body, retryAfterSeconds = null) {
    super(body?.error?.message ?? (status === 0 ? "the service cannot be reached" : `the service answered ${status}`));
    this.status = status;
    this.code = body?.error?.code ?? null;
    this.retryable = status === 0 || (body?.error?.retryable ?? false);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

function authHeaders() {
  const token = tokenStore.get();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

function retryAfter(value) {
  const seconds = Number.parseInt(value ?? "", 10);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** GET `path` as JSON: `{status, body, retryAfterSeconds}` (the tracker's polls and the page's reads). */
export async function getJSON(path) {
  const response = await fetch(path, { headers: { Accept: "application/json", ...authHeaders() }, cache: "no-store" });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  return { status: response.status, body, retryAfterSeconds: retryAfter(response.headers.get("Retry-After")) };
}

/** A short-lived events ticket (POST /v1/tickets) for the WebSocket and event-stream URLs, or null (no token, an
 * older service, offline). */
export async function fetchTicket() {
  if (!tokenStore.get()) return null;
  try {
    const response = await fetch("/v1/tickets", { method: "POST", headers: { Accept: "application/json", ...authHeaders() }, cache: "no-store" });
    if (response.status !== 200) return null;
    const body = await response.json();
    return typeof body?.ticket === "string" ? { ticket: body.ticket, seconds: body.expiresInSeconds ?? 60 } : null;
  } catch {
    return null;
  }
}

/** Whether the service keeps an analytics log: it answers 404 when `serve` has no --analytics-log, and then
 * the page sends no more records. */
let analyticsKept = true;

/** POST one analytics record (best effort: a run is not worse for a record that did not arrive). */
export async function postAnalytics(record) {
  if (!analyticsKept) return;
  try {
    const response = await fetch("/v1/analytics", {
      method: "POST", headers: { "Content-Type": "application/json", ...authHeaders() }, body: JSON.stringify(record), keepalive: true,
    });
    if (response.status === 404) analyticsKept = false;
  } catch {
    // Offline: the record is lost, the result is not.
  }
}

/** Why a photo could not be scanned, in words a person understands (the service's error codes, the
 * browser's failure to open a file). */
export function plainError(error, name) {
  if (error?.name === "InvalidStateError" || error?.name === "EncodingError" || error?.notAPhoto) return `${name} is not a photo this browser can open.`;
  switch (error?.code) {
    case "undecodable_image": return `${name} could not be read as a photo: it may be damaged, or not a JPEG.`;
    case "payload_too_large": return `${name} is too large to send, even made smaller.`;
    case "too_many_pixels": return `${name} has more pixels than this service accepts.`;
    case "unsupported_media_type": return `${name} is not a photo this service accepts.`;
    case "queue_full": return "The service is busy. Try again in a moment.";
    case "unauthorized": return "The access token was not accepted.";
    default: break;
  }
  if (error?.status === 0) return "The service cannot be reached. Check the connection, then try again.";
  return error?.message ?? `${name} could not be sent.`;
}

/** A small JPEG data URL of `blob` (long side `side`), kept with a scan so that it shows its photo after a reload. */
export async function thumbnail(blob, side = 320) {
  const bitmap = await createImageBitmap(blob);
  try {
    const scale = Math.min(1, side / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    return canvas.toDataURL("image/jpeg", 0.6);
  } finally {
    bitmap.close();
  }
}

/** `file` as an upload-ready JPEG: the file itself when it is a JPEG within `longSide` and `maxBytes`, else decoded
 * upright (EXIF orientation applied by the browser), scaled so its long side is at most `longSide`, re-encoded. A file
 * the browser cannot open rejects with an error marked `notAPhoto`. */
export async function preparePhoto(file, longSide, maxBytes = Infinity) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (error) {
    error.notAPhoto = true;
    throw error;
  }
  try {
    const long = Math.max(bitmap.width, bitmap.height);
    if (file.type === "image/jpeg" && long <= longSide && file.size <= maxBytes) return { blob: file, width: bitmap.width, height: bitmap.height, scaled: false };
    // Fitted to the long side, then smaller step by step while the JPEG is over the service's byte limit.
    let scale = Math.min(1, longSide / long);
    for (let attempt = 0; ; attempt += 1) {
      const width = Math.max(1, Math.round(bitmap.width * scale));
      const height = Math.max(1, Math.round(bitmap.height * scale));
      const canvas = document.createElement("canvas");
      canvas.width = width;
      canvas.height = height;
      const context = canvas.getContext("2d");
      context.imageSmoothingQuality = "high";
      context.drawImage(bitmap, 0, 0, width, height);
      const blob = await new Promise((resolve, reject) =>
        canvas.toBlob((made) => (made ? resolve(made) : reject(new Error("the browser could not encode the photo"))), "image/jpeg", JPEG_QUALITY));
      if (blob.size <= maxBytes || attempt >= SHRINK_STEPS) return { blob, width, height, scaled: true };
      scale *= Math.max(0.5, Math.sqrt(maxBytes / blob.size) * 0.95);
    }
  } finally {
    bitmap.close();
  }
}

function putOnce(jobId, blob, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("PUT", `/v1/scans/${jobId}`);
    request.setRequestHeader("Content-Type", "image/jpeg");
    for (const [name, value] of Object.entries(authHeaders())) request.setRequestHeader(name, value);
    request.responseType = "json";
    request.upload.onprogress = (progress) => {
      if (progress.lengthComputable) onProgress(progress.loaded / progress.total);
    };
    request.onload = () => {
      if (request.status >= 200 && request.status < 300 && request.response) {
        onProgress(1);
        resolve(request.response);
      } else {
        reject(new ServiceError(request.status, request.response, retryAfter(request.getResponseHeader("Retry-After"))));
      }
    };
    request.onerror = () => reject(new ServiceError(0, null));
    request.ontimeout = () => reject(new ServiceError(0, null));
    request.send(blob);
  });
}

/** PUTs `blob` as job `jobId`, retrying what may succeed later (the same jobId: idempotent).
 * Resolves to `{snapshot, attempts, seconds}`; rejects with the last ServiceError. */
export async function upload(jobId, blob, onProgress) {
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      const snapshot = await putOnce(jobId, blob, onProgress);
      return { snapshot, attempts: attempt, seconds: (performance.now() - started) / 1000 };
    } catch (error) {
      if (!(error instanceof ServiceError) || !error.retryable || attempt >= UPLOAD_ATTEMPTS) {
        error.attempts = attempt;
        throw error;
      }
      const waitSeconds = error.retryAfterSeconds ?? 2 ** (attempt - 1);
      onProgress(0);
      await new Promise((resolve) => setTimeout(resolve, Math.min(30, waitSeconds) * 1000));
    }
  }
}
