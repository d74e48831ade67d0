// The steward's door on a bad connection (door.html; a file: the Content-Security-Policy
// allows no inline script). Without this script the form posts to the door page as
// before. With it:
//   - each scan is sent to the page's JSON address (form[data-check]: the verdict and the
//     door's count, services.doors.do_check_in), with a random `key` of its own;
//   - the zone's passes by keyed digest (form[data-list], door/passes.json: a key of its
//     own for each list, sent with it) are kept in localStorage; when a scan cannot be
//     sent (offline, a network error, no answer in 8 s, the server unable to answer), the
//     code is checked against that list (HMAC-SHA256 under the list's key, as
//     services.doors.digest makes it, by Web Crypto, which needs a secure context: HTTPS
//     or localhost) and the scan is
//     queued, with its key and the time it was made (`scanned`);
//   - the queue is sent, in order, when the connection returns (the online event, and
//     every 15 s while scans wait), on any door page; its key makes a scan sent twice
//     count once. The server's answer is the one recorded, and shown in the last scans.
//     The list is fetched again then too (and every 5 minutes).
//   - with BarcodeDetector (not in every browser), a "Scan with camera" button.
// What the list cannot tell (people inside, places, the clock, passes taken back since
// it was fetched) the page says, and an offline verdict says it is one.
"use strict";

(function () {
  var QUEUE = "pitchpass.door.queue";
  var LIST = "pitchpass.door.list:";
  var SEND_WITHIN = 8000; // ms: a scan not answered by then is checked offline and queued
  var RETRY_EVERY = 15000;
  var REFRESH_LIST_EVERY = 300000;
  var form = document.getElementById("scan");
  var sending = null; // the queue being sent, once at a time
  var retry = null;
  var settled = function () {}; // (item, verdict, note): the door page shows the answer

  function read(name, fallback) {
    try {
      var text = window.localStorage.getItem(name);
      return text ? JSON.parse(text) : fallback;
    } catch (error) {
      return fallback;
    }
  }

  function write(name, value) {
    try {
      window.localStorage.setItem(name, JSON.stringify(value));
      return true;
    } catch (error) {
      return false; // storage off or full: said where it matters
    }
  }

  function csrf() {
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function newKey() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return "door-" + Array.from(bytes, function (b) {
      return b.toString(16).padStart(2, "0");
    }).join("");
  }

  // A moment with its date and time zone, in the venue's (data-tz; else the device's).
  function clock(iso) {
    var zone = (form && form.getAttribute("data-tz")) || undefined;
    var shape = { weekday: "short", day: "numeric", month: "short", hour: "2-digit",
      minute: "2-digit", second: "2-digit", hour12: false, timeZoneName: "short" };
    try {
      return new Date(iso).toLocaleString("en-GB", Object.assign({ timeZone: zone }, shape));
    } catch (error) {
      return new Date(iso).toLocaleString("en-GB", shape);
    }
  }

  // What a scan's POST came to: "answered" (a verdict), "error" (the server's refusal of
  // the call itself, final), "signed-out" (session or CSRF token gone: sign in again), or
  // "unsent" (no connection, no answer in time, the server unable to answer: queue it).
  async function post(url, body) {
    var abort = new AbortController();
    var timer = window.setTimeout(function () {
      abort.abort();
    }, SEND_WITHIN);
    try {
      var answer = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          "Accept": "application/json",
          "X-CSRFToken": csrf(),
        },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      var json = null;
      if ((answer.headers.get("content-type") || "").indexOf("application/json") === 0) {
        json = await answer.json();
      }
      if (answer.ok && json) {
        return { kind: "answered", verdict: json };
      }
      if (answer.status === 401 || (answer.status === 403 && !json)) {
        return { kind: "signed-out" };
      }
      if (answer.status === 429 || answer.status >= 500 || !json) {
        return { kind: "unsent" };
      }
      return { kind: "error", message: json.message || "refused (" + answer.status + ")" };
    } catch (error) {
      return { kind: "unsent" };
    } finally {
      window.clearTimeout(timer);
    }
  }

  // -- the queue ------------------------------------------------------------------------

  function queued() {
    var items = read(QUEUE, []);
    return Array.isArray(items) ? items : [];
  }

  function dequeue(key) {
    write(QUEUE, queued().filter(function (item) {
      return item.body.key !== key;
    }));
  }

  function showQueue(note) {
    var status = document.getElementById("queue");
    if (!status) {
      return;
    }
    var waiting = queued().length;
    var text = note || "";
    if (waiting) {
      text = waiting + (waiting === 1 ? " scan waits" : " scans wait") +
        " to be sent: they go when the connection returns (tried every 15 s)." +
        (note ? " " + note : "");
    }
    status.textContent = text;
    status.hidden = !text;
  }

  function sendLater() {
    if (retry === null && queued().length) {
      retry = window.setInterval(function () {
        sendQueue();
      }, RETRY_EVERY);
    }
    if (retry !== null && !queued().length) {
      window.clearInterval(retry);
      retry = null;
    }
  }

  // Sends the queued scans in the order they were made; stops at the first that cannot go.
  // Resolves to true when the queue is empty.
  function sendQueue() {
    if (sending) {
      return sending;
    }
    sending = (async function () {
      var sent = 0;
      var admitted = 0;
      var lost = 0; // answered with an error: not recorded (a scan more than a day old)
      var stopped = "";
      var items = queued();
      for (var i = 0; i < items.length; i += 1) {
        var item = items[i];
        var outcome = await post(item.url, item.body);
        if (outcome.kind === "unsent") {
          break;
        }
        if (outcome.kind === "signed-out") {
          stopped = "Sign in again to send them (the session ended).";
          break;
        }
        dequeue(item.body.key);
        sent += 1;
        if (outcome.kind === "answered") {
          admitted += outcome.verdict.result === "admitted" ? 1 : 0;
          settled(item, outcome.verdict, null);
        } else {
          lost += 1;
          settled(item, null, outcome.message);
        }
      }
      var note = stopped;
      if (sent) {
        note = "Sent " + sent + " queued scan" + (sent === 1 ? "" : "s") + ": " + admitted +
          " admitted, " + (sent - admitted - lost) + " refused by the desk" +
          (lost ? ", " + lost + " not recorded (see the last scans)" : "") + ". " + note;
      }
      showQueue(note.trim());
      sendLater();
      return queued().length === 0;
    })();
    sending.finally(function () {
      sending = null;
    });
    return sending;
  }

  window.addEventListener("online", function () {
    sendQueue();
  });
  document.addEventListener("DOMContentLoaded", function () {
    showQueue("");
    if (queued().length) {
      sendQueue();
    }
  });

  if (!form) {
    return; // the door chooser: only the queue is sent
  }

  // -- the door's list for offline ------------------------------------------------------

  var listUrl = form.getAttribute("data-list");
  var kept = document.getElementById("kept");

  function keptList() {
    var list = read(LIST + listUrl, null);
    // A list kept before lists had keys names no pass: fetched again when online.
    return list && Array.isArray(list.passes) && typeof list.key === "string" ? list : null;
  }

  function sayKept(fresh) {
    var list = keptList();
    if (!kept) {
      return;
    }
    if (!list) {
      kept.textContent = "none kept yet: offline, codes cannot be checked";
      return;
    }
    var count = list.passes.length === 1 ? "1 pass" : list.passes.length + " passes";
    kept.textContent = count + ", fetched " + clock(list.fetched) +
      (fresh ? "" : "; a newer one could not be fetched");
  }

  async function fetchList() {
    try {
      var answer = await fetch(listUrl, {
        credentials: "same-origin",
        headers: { "Accept": "application/json" },
      });
      var type = answer.headers.get("content-type") || "";
      if (answer.ok && type.indexOf("application/json") === 0) {
        var json = await answer.json();
        if (Array.isArray(json.passes) && typeof json.key === "string") {
          var stored = write(LIST + listUrl, {
            fetched: new Date().toISOString(), key: json.key, passes: json.passes,
          });
          sayKept(stored);
          return;
        }
      }
    } catch (error) {
      // offline: the list kept before, if any, stands
    }
    sayKept(false);
  }

  // The pass code in what was scanned or typed, as services.doors.plain_code reads it: a
  // QR code's signed code is the code, ":", a signature (checked by the desk when the
  // scan is sent; offline the code before it is looked up); a typed one, its letters.
  function plainCode(text) {
    text = text.trim();
    if (text.indexOf(":") >= 0) {
      return text.split(":")[0];
    }
    return text.replace(/[-\s]/g, "").toUpperCase();
  }

  // A pass's digest as services.doors.digest makes it: HMAC-SHA256 under the list's key.
  async function digestOf(code, key) {
    var encoder = new TextEncoder();
    var secret = await window.crypto.subtle.importKey(
      "raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    var hash = await window.crypto.subtle.sign(
      "HMAC", secret, encoder.encode("pitchpass-pass:" + code));
    return Array.from(new Uint8Array(hash), function (b) {
      return b.toString(16).padStart(2, "0");
    }).join("");
  }

  function listed(items) {
    return items.length === 1 ? items[0]
      : items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }

  // The offline verdict: {result: "admitted" | "refused" | "unchecked", big, text}.
  async function offlineVerdict(body) {
    var list = keptList();
    var then = list ? "the list fetched at " + clock(list.fetched) : "";
    if (!list) {
      return { result: "unchecked", big: "OFFLINE — cannot check offline, queued",
        text: "No list of this zone's passes is kept on this device: the desk checks the" +
          " code when the scan is sent." };
    }
    if (!(window.crypto && window.crypto.subtle)) {
      return { result: "unchecked", big: "OFFLINE — cannot check offline, queued",
        text: "This browser cannot work out a code's digest here (it needs a secure" +
          " connection: HTTPS, or localhost): the desk checks the code when it is sent." };
    }
    var digest = await digestOf(plainCode(body.code), list.key || "");
    var found = list.passes.find(function (one) {
      return one.digest === digest;
    });
    if (!found) {
      return { result: "refused", big: "OFFLINE — unknown code, queued", request: "",
        text: "Not a pass for " + body.zone + " on " + then + ": check the code, or send" +
          " the crew to the desk." };
    }
    var who = found.request + " (" + found.org + ", crew " + found.crew + ")";
    var verdict = offlineRules(body, found, who, then);
    verdict.request = found.request;
    return verdict;
  }

  // What the list can tell of a pass found on it (it mirrors pitchpass.core.match_day.doors.check, the
  // one home of door admission, offline: the
  // zone is the list's; going out is never refused but for none inside, not known here).
  function offlineRules(body, found, who, then) {
    if (body.direction === "out") {
      return { result: "admitted", big: "OFFLINE — out, queued",
        text: who + ": out of " + body.zone + ". How many of its crew are inside is not" +
          " known offline." };
    }
    if (found.revoked) {
      return { result: "refused", big: "OFFLINE — refused by the cached list, queued",
        text: who + ": its place was taken back (" + found.revoked + "), on " + then + "." };
    }
    if (found.phases.indexOf(body.phase) < 0) {
      return { result: "refused", big: "OFFLINE — refused by the cached list, queued",
        text: who + ": its pass is for " + listed(found.phases) + ", not " + body.phase +
          "." };
    }
    return { result: "admitted", big: "OFFLINE — admitted by the cached list, queued",
      text: who + ": a pass for " + body.zone + ", " + body.phase + " on " + then +
        ". Not checked: people inside and the places, the clock, a pass taken back since." };
  }

  // -- what the page shows --------------------------------------------------------------

  var verdictBox = document.getElementById("verdict");
  var insideLine = document.querySelector(".inside");
  var scans = document.querySelector("table[aria-label=scans] tbody");

  function show(result, big, text, offline) {
    if (!verdictBox) {
      return;
    }
    verdictBox.className = "verdict " + result + (offline ? " offline" : "");
    verdictBox.querySelector(".big").textContent = big;
    verdictBox.querySelector(".why").textContent = text;
    verdictBox.hidden = false;
  }

  function addRow(body, when, verdict, provisional) {
    if (!scans) {
      return;
    }
    var empty = scans.querySelector("td[colspan]");
    if (empty) {
      empty.parentElement.remove();
    }
    var row = document.createElement("tr");
    row.setAttribute("data-key", body.key);
    [clock(when), "—", body.direction, ""].forEach(function (text) {
      var cell = document.createElement("td");
      cell.textContent = text;
      row.appendChild(cell);
    });
    scans.insertBefore(row, scans.firstChild);
    fillRow(row, verdict, null, provisional);
  }

  function fillRow(row, verdict, note, provisional) {
    var result = row.lastChild;
    if (verdict) {
      row.children[1].textContent = verdict.request || "—";
      result.className = verdict.result === "admitted" ? "granted" : "refused";
      result.textContent = verdict.result + (verdict.reason ? " (" + verdict.reason + ")" : "");
    } else if (note) {
      result.className = "refused";
      result.textContent = "not recorded: " + note;
    } else {
      row.children[1].textContent = provisional || "—";
      result.className = "queued";
      result.textContent = "queued (offline)";
    }
  }

  var zone = form.querySelector("input[name=zone]").value;
  var phase = form.querySelector("input[name=phase]").value;
  var shown = ""; // the key of the scan whose verdict is shown

  // A queued scan's answer, once sent: in its row, in the count if it is this door's, in
  // the verdict if it is the one shown.
  settled = function (item, verdict, note) {
    var row = scans && scans.querySelector("tr[data-key='" + item.body.key + "']");
    if (row) {
      fillRow(row, verdict, note, "");
    }
    if (verdict && item.body.zone === zone && item.body.phase === phase) {
      sayInside(verdict);
    }
    if (verdict) {
      refreshHeader(); // who is inside, and releases undone, as the desk has them now
    }
    if (item.body.key === shown) {
      var big = verdict ? bigWord(verdict.result, item.body.direction) : "NOT RECORDED";
      show(verdict ? verdict.result : "refused", big,
        "Sent when the connection returned: " + (verdict ? verdict.text : note), false);
    }
  };

  // The verdict in one word: a way out let through is OUT, not ADMITTED.
  function bigWord(result, direction) {
    if (result !== "admitted") {
      return "REFUSED";
    }
    return direction === "out" ? "OUT" : "ADMITTED";
  }

  // The match-day header (#live) counts who is inside: asked again after each answer.
  function refreshHeader() {
    if (window.htmx && document.getElementById("live")) {
      window.htmx.trigger("#live", "refresh");
    }
  }

  function sayInside(verdict) {
    if (!insideLine) {
      return;
    }
    if (verdict && typeof verdict.inside === "number") {
      insideLine.textContent = verdict.inside + " of " + verdict.capacity + " inside";
    } else if (!insideLine.querySelector(".stale")) {
      var stale = document.createElement("span");
      stale.className = "stale";
      stale.textContent = " (before the connection dropped: scans made since are not counted)";
      insideLine.appendChild(stale);
    }
  }

  // -- a scan ---------------------------------------------------------------------------

  var input = form.querySelector("input[name=code]");
  var checkUrl = form.getAttribute("data-check");

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    var button = event.submitter;
    var body = {
      code: input.value,
      zone: zone,
      phase: phase,
      direction: button && button.value === "out" ? "out" : "in",
      key: newKey(),
    };
    if (!body.code.trim()) {
      return;
    }
    var when = new Date().toISOString();
    input.value = "";
    input.focus();
    // Scans made before this one go first; while they cannot, this one waits behind them.
    var outcome = (await sendQueue()) ? await post(checkUrl, body) : { kind: "unsent" };
    shown = body.key;
    if (outcome.kind === "answered") {
      var v = outcome.verdict;
      show(v.result, bigWord(v.result, body.direction), v.text, false);
      sayInside(v);
      addRow(body, when, v, "");
      refreshHeader();
      return;
    }
    if (outcome.kind === "error") {
      show("refused", "REFUSED", outcome.message, false);
      return;
    }
    if (outcome.kind === "signed-out") {
      show("unchecked", "NOT CHECKED", "The session ended: sign in again, then scan again.",
        false);
      return;
    }
    body.scanned = when;
    var offline = await offlineVerdict(body);
    var items = queued();
    items.push({ url: checkUrl, body: body });
    if (!write(QUEUE, items)) {
      offline.big = offline.big.replace(", queued", ", NOT queued");
      offline.text += " This browser keeps nothing here: the scan is not recorded.";
    }
    show(offline.result, offline.big, offline.text, true);
    sayInside(null);
    addRow(body, when, null, offline.request);
    showQueue("");
    sendLater();
  });

  // -- the camera, where the browser reads QR codes --------------------------------------

  var start = document.getElementById("camera-start");
  var camera = document.getElementById("camera");
  var stream = null;

  function stopCamera() {
    if (stream) {
      stream.getTracks().forEach(function (track) {
        track.stop();
      });
    }
    stream = null;
    camera.hidden = true;
    start.textContent = "Scan with camera";
  }

  if (start && camera && "BarcodeDetector" in window) {
    start.hidden = false;
    start.addEventListener("click", async function () {
      if (stream) {
        stopCamera();
        return;
      }
      var video = camera.querySelector("video");
      var note = document.getElementById("camera-note");
      try {
        var detector = new window.BarcodeDetector({ formats: ["qr_code"] });
        stream = await navigator.mediaDevices.getUserMedia({
          video: { facingMode: "environment" },
        });
        video.srcObject = stream;
        camera.hidden = false;
        start.textContent = "Stop the camera";
        note.textContent = "Hold the pass's QR code up to the camera.";
        await video.play();
        var look = async function () {
          if (!stream) {
            return;
          }
          var codes = [];
          try {
            codes = await detector.detect(video);
          } catch (error) {
            codes = [];
          }
          if (codes.length) {
            input.value = codes[0].rawValue;
            stopCamera();
            form.querySelector("button[value=in]").focus(); // In or Out: the steward says
            return;
          }
          window.setTimeout(look, 250);
        };
        look();
      } catch (error) {
        stopCamera();
        camera.hidden = false;
        note.textContent = "No camera: " + error.message + ". Type the code instead.";
      }
    });
  }

  document.getElementById("offline").hidden = false;
  sayKept(true);
  fetchList();
  window.setInterval(fetchList, REFRESH_LIST_EVERY);
  // Back online: a newer list at once (the note does not stay "could not be fetched").
  window.addEventListener("online", fetchList);
})();
