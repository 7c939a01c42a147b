/// The page `listen --web` serves: a phone opens it (by the QR code on the laptop), taps Start,
/// and its browser sends its motion sensors to SensorWah. Everything is in this one page: no
/// external script, font or style, so it works with the laptop as the only thing on the network.
enum WebPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1">
        <meta name="theme-color" content="#1d1b22">
        <title>SensorWah: this phone as the sensor</title>
        <style>
          :root { color-scheme: dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
          body { margin: 0; background: #1d1b22; color: #eee; display: flex; flex-direction: column; align-items: center; min-height: 100vh; }
          h1 { font-size: 1.2rem; font-weight: 600; margin: 1rem 0 0.3rem; }
          #start { font-size: 1.6rem; font-weight: 700; width: 80vw; max-width: 420px; height: 6rem; border-radius: 1.2rem; border: 0;
                   background: #f29d38; color: #1d1b22; margin: 1rem 0; touch-action: manipulation; }
          #start.on { background: #3a3645; color: #eee; font-size: 1.2rem; height: 3.5rem; }
          .row { display: flex; gap: 1rem; align-items: center; margin: 0.3rem 0; }
          #state { font-size: 1.1rem; padding: 0.3rem 0.8rem; border-radius: 0.5rem; background: #3a3645; }
          #state.ok { background: #2d6a3e; } #state.bad { background: #8a2f2f; } #state.wait { background: #6a5a2d; }
          #problem { color: #ffb3a7; max-width: 90vw; text-align: center; min-height: 1.2rem; }
          #tilt { width: 200px; height: 200px; border-radius: 50%; border: 2px solid #555; position: relative; margin: 1rem; }
          #dot { width: 28px; height: 28px; border-radius: 50%; background: #f29d38; position: absolute; left: 86px; top: 86px; }
          #tilt::after { content: ""; position: absolute; left: 98px; top: 0; bottom: 0; width: 1px; background: #444; }
          #tilt::before { content: ""; position: absolute; top: 98px; left: 0; right: 0; height: 1px; background: #444; }
          input { font-size: 1rem; padding: 0.4rem; border-radius: 0.4rem; border: 1px solid #555; background: #2a2731; color: #eee; width: 12rem; }
          small { color: #aaa; max-width: 90vw; text-align: center; }
          a { color: #f2b56b; }
        </style>
        </head>
        <body>
        <h1>SensorWah</h1>
        <div class="row"><span id="state" class="wait">not started</span><span id="rate">0 Hz</span></div>
        <button id="start">Start</button>
        <div id="problem" role="alert"></div>
        <div id="tilt" aria-label="tilt"><div id="dot"></div></div>
        <div class="row"><label for="name">This phone:</label><input id="name" maxlength="40" autocomplete="off"></div>
        <small id="wake"></small>
        <small>Keep this page open and the screen on while you play. To stop the browser's warning about
        this page, install SensorWah's authority: <a href="/ca.crt">Android</a> ·
        <a href="/ca.mobileconfig">iPhone and iPad</a> (then Settings → General → About → Certificate Trust Settings).</small>
        <script>
        "use strict";
        const $ = (id) => document.getElementById(id);
        const state = $("state"), problem = $("problem"), rateEl = $("rate"), dot = $("dot"), nameEl = $("name"), startBtn = $("start");
        function show(text, kind) { state.textContent = text; state.className = kind; }
        function say(text) { problem.textContent = text || ""; }
        nameEl.value = localStorage.getItem("sensorwah-name") || "";
        nameEl.addEventListener("change", () => { localStorage.setItem("sensorwah-name", nameEl.value.trim()); });
        if (!window.isSecureContext) say("This page is not secure (not https): the browser will not give it the motion sensors. Open the https:// address SensorWah shows.");
        if (typeof DeviceMotionEvent === "undefined") say("This browser has no motion sensors (no DeviceMotionEvent). Open the page on a phone or tablet.");

        let running = false, batch = [], count = 0, lastCount = 0, lastRateAt = performance.now(), sawEvent = false;
        let ws = null, wsFailures = 0, usePost = false, sending = false, backoff = 500;
        const fmt = (v) => (v === null || v === undefined || !isFinite(v)) ? "-" : (Math.round(v * 10000) / 10000).toString();

        function onMotion(e) {
          sawEvent = true;
          const g = e.accelerationIncludingGravity || {}, a = e.acceleration || {}, r = e.rotationRate || {};
          batch.push([e.timeStamp.toFixed(3), fmt(g.x), fmt(g.y), fmt(g.z), fmt(a.x), fmt(a.y), fmt(a.z), fmt(r.alpha), fmt(r.beta), fmt(r.gamma)].join(" "));
          if (batch.length > 2000) batch.splice(0, batch.length - 2000);   // offline for long: keep the last seconds
          count++;
          if (g.x !== null && g.x !== undefined) {
            const m = Math.hypot(g.x, g.y, g.z) || 1;
            dot.style.left = (86 + 86 * Math.max(-1, Math.min(1, -g.x / m))) + "px";
            dot.style.top = (86 + 86 * Math.max(-1, Math.min(1, g.y / m))) + "px";
          }
        }

        // the name as SensorWah takes it: at most 60 bytes of UTF-8
        function senderName() {
          let n = nameEl.value.trim().replace(/[\u0000-\u001f\u007f]/g, "");
          while (new TextEncoder().encode(n).length > 60) n = n.slice(0, -1);
          return n;
        }
        function head() { const n = senderName(); return "SWW1 " + (n ? encodeURIComponent(n) : "-") + "\n"; }

        function connect() {
          if (usePost || !running) return;
          const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
          let opened = false;
          try { ws = new WebSocket(url); } catch (err) { ws = null; fail(); return; }
          show("connecting", "wait");
          ws.onopen = () => { opened = true; wsFailures = 0; backoff = 500; show("connected", "ok"); say(""); };
          ws.onmessage = (m) => {
            if (typeof m.data === "string" && m.data.startsWith("refused")) { show("refused", "bad"); say("SensorWah refused the readings: " + m.data.slice(9)); }
            else if (state.className === "bad") { show("connected", "ok"); say(""); }
          };
          ws.onclose = () => {
            ws = null;
            if (!opened) { fail(); return; }
            show("reconnecting", "wait");
            setTimeout(connect, backoff); backoff = Math.min(backoff * 2, 5000);
          };
          ws.onerror = () => {};
        }

        function fail() {
          wsFailures++;
          if (wsFailures >= 2) {   // the socket cannot open here (iOS with an accepted, untrusted certificate): HTTPS batches
            usePost = true; show("connected (https)", "wait"); return;
          }
          setTimeout(connect, backoff); backoff = Math.min(backoff * 2, 5000);
        }

        async function flush() {
          if (!running || batch.length === 0) return;
          if (!usePost) {
            if (ws && ws.readyState === 1 && ws.bufferedAmount < 65536) {
              const lines = batch.splice(0, 400);
              ws.send(head() + lines.join("\n") + "\n");
            }
            return;
          }
          if (sending) return;
          sending = true;
          const lines = batch.splice(0, 400);
          try {
            const r = await fetch("/batch", { method: "POST", body: head() + lines.join("\n") + "\n", headers: { "Content-Type": "text/plain" } });
            if (r.ok) { show("connected (https)", "ok"); backoff = 500; say(""); }
            else { show("refused", "bad"); say("SensorWah refused the readings: " + (await r.text())); }
          } catch (err) {
            batch.unshift(...lines);
            show("reconnecting", "wait");
            await new Promise((res) => setTimeout(res, backoff)); backoff = Math.min(backoff * 2, 5000);
          } finally { sending = false; }
        }

        let wakeLock = null;
        async function keepAwake() {
          if (!("wakeLock" in navigator)) { $("wake").textContent = "This browser cannot keep the screen on: turn off auto-lock while you play."; return; }
          try { wakeLock = await navigator.wakeLock.request("screen"); $("wake").textContent = "The screen stays on while this page is open."; }
          catch (err) { $("wake").textContent = "The screen may turn off: " + err.message; }
        }
        document.addEventListener("visibilitychange", () => { if (running && document.visibilityState === "visible") keepAwake(); });

        async function start() {
          if (running) { return; }
          say("");
          if (typeof DeviceMotionEvent !== "undefined" && typeof DeviceMotionEvent.requestPermission === "function") {
            let answer = "denied";
            try { answer = await DeviceMotionEvent.requestPermission(); } catch (err) { answer = "denied"; }
            if (answer !== "granted") {
              show("no permission", "bad");
              say("Motion access was refused, so nothing can be sent. Allow it and reload: on iPhone close this tab, open the page again and tap Allow (or Settings → Safari → Motion & Orientation Access); in Chrome, the site's settings → Motion sensors.");
              return;
            }
          }
          running = true;
          startBtn.textContent = "Sending"; startBtn.classList.add("on");
          window.addEventListener("devicemotion", onMotion);
          keepAwake();
          connect();
          setTimeout(() => { if (!sawEvent) { show("no sensors", "bad"); say("No motion readings arrive: this device has no motion sensors, or the browser keeps them from the page."); } }, 3000);
        }
        startBtn.addEventListener("click", start);
        setInterval(flush, 25);
        setInterval(() => {
          const now = performance.now();
          rateEl.textContent = Math.round((count - lastCount) * 1000 / (now - lastRateAt)) + " Hz";
          lastCount = count; lastRateAt = now;
        }, 1000);
        </script>
        </body>
        </html>
        """#
}
