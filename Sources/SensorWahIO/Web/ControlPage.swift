/// The control page `listen --web` serves at `/control`: what SensorWah hears (each sender, the
/// tilt, every mapping's raw, smoothed and sent value over the last 10 s, gestures, the outputs)
/// and the running rig to change (mappings, scenes, solo, re-zero, save). One file, no external
/// script, font or style. The token comes from the address's fragment (`/control#TOKEN`), which
/// the browser never sends to a server; every call carries it (docs/control.md).
enum ControlPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="theme-color" content="#1d1b22">
        <title>SensorWah control</title>
        <style>
          :root { color-scheme: dark; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
          body { margin: 0; background: #1d1b22; color: #eee; }
          header { display: flex; flex-wrap: wrap; gap: 0.6rem; align-items: center; padding: 0.6rem 1rem; background: #26232d; position: sticky; top: 0; z-index: 2; }
          h1 { font-size: 1.1rem; margin: 0 1rem 0 0; }
          h2 { font-size: 0.95rem; color: #bbb; margin: 1rem 0 0.4rem; font-weight: 600; }
          main { padding: 0 1rem 2rem; display: grid; grid-template-columns: minmax(16rem, 22rem) minmax(0, 1fr); gap: 0 1.5rem; }
          @media (max-width: 760px) { main { grid-template-columns: minmax(0, 1fr); } }
          section { min-width: 0; }
          button { font: inherit; padding: 0.45rem 0.8rem; border-radius: 0.45rem; border: 1px solid #555; background: #3a3645; color: #eee; min-height: 2.4rem; touch-action: manipulation; }
          button:focus-visible, input:focus-visible { outline: 2px solid #f29d38; outline-offset: 1px; }
          button.on { background: #f29d38; color: #1d1b22; border-color: #f29d38; }
          button.danger { background: #5a2a2a; }
          input { font: inherit; font-family: ui-monospace, monospace; width: 100%; box-sizing: border-box; padding: 0.45rem; border-radius: 0.45rem; border: 1px solid #555; background: #2a2731; color: #eee; min-width: 0; }
          #state { padding: 0.25rem 0.7rem; border-radius: 0.4rem; background: #6a5a2d; }
          #state.ok { background: #2d6a3e; } #state.bad { background: #8a2f2f; }
          #message { color: #ffd29a; min-height: 1.2rem; }
          .sender { background: #26232d; border-radius: 0.6rem; padding: 0.6rem; margin-bottom: 0.6rem; display: flex; gap: 0.8rem; align-items: center; }
          .sender .name { font-weight: 600; word-break: break-all; }
          .sender .stats { color: #bbb; font-size: 0.9rem; }
          canvas.tilt { width: 72px; height: 72px; flex: none; }
          .mapping { background: #26232d; border-radius: 0.6rem; padding: 0.6rem; margin-bottom: 0.7rem; }
          .mapping .top { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
          .mapping .top input { flex: 1 1 14rem; }
          .mapping .num { font-weight: 700; width: 1.6rem; text-align: right; }
          .mapping .value { font-family: ui-monospace, monospace; width: 3.5rem; text-align: right; }
          .mapping .error { color: #ffb3a7; min-height: 0; }
          details.fields summary { cursor: pointer; color: #bbb; font-size: 0.9rem; margin-top: 0.3rem; }
          .fieldgrid { display: grid; grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr)); gap: 0.4rem 0.6rem; margin-top: 0.4rem; }
          .fieldgrid label { font-size: 0.8rem; color: #aaa; display: flex; flex-direction: column; gap: 0.15rem; }
          select { font: inherit; padding: 0.4rem; border-radius: 0.45rem; border: 1px solid #555; background: #2a2731; color: #eee; }
          canvas.plot { width: 100%; height: 70px; display: block; margin-top: 0.4rem; background: #1d1b22; border-radius: 0.3rem; }
          .legend { font-size: 0.8rem; color: #aaa; }
          .legend b { display: inline-block; width: 0.9rem; height: 0.25rem; vertical-align: middle; margin: 0 0.2rem 0 0.6rem; }
          #watcherror { color: #ffb3a7; }
          #add { display: flex; gap: 0.5rem; } #add input { flex: 1; }
          #teach { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; } #teach input { flex: 1; min-width: 8rem; } #taught { width: 100%; }
          #gestures span { display: inline-block; padding: 0.3rem 0.6rem; margin: 0 0.3rem 0.3rem 0; border-radius: 0.4rem; background: #3a3645; transition: background 0.4s; }
          #gestures span.fired { background: #f29d38; color: #1d1b22; transition: none; }
          pre { white-space: pre-wrap; font-size: 0.85rem; color: #ccc; background: #26232d; padding: 0.5rem; border-radius: 0.4rem; margin: 0; }
          small { color: #aaa; }
        </style>
        </head>
        <body>
        <header>
          <h1>SensorWah</h1>
          <span id="state">connecting</span>
          <span id="scenes" role="group" aria-label="scenes"></span>
          <button id="rezero" title="Capture the rest orientation (hold the sensor still)">Re-zero</button>
          <button id="save" title="Write the running mappings into the configuration file">Save</button>
          <span id="message" role="status"></span>
        </header>
        <main>
          <section>
            <h2>Senders</h2>
            <div id="senders"><small>No sender yet: start the phone's app, or open this computer's phone page on the phone.</small></div>
            <h2>Watch</h2>
            <div id="watch">
              <input id="watchlist" aria-label="sources to watch" placeholder="tilt.x, accel.y" autocomplete="off" spellcheck="false">
              <div class="error" id="watcherror" role="alert"></div>
              <canvas class="plot" id="watchplot" height="160" aria-label="the watched sources, last 10 s"></canvas>
              <div class="legend" id="watchlegend"></div>
            </div>
            <h2>Gestures</h2>
            <div id="gestures"><span data-g="flick">flick 0</span><span data-g="shake">shake 0</span><span data-g="tap">tap 0</span></div>
            <h2>Teach</h2>
            <div id="teach">
              <input id="teachname" aria-label="what to teach" placeholder="swing, or wah=1 for a pose" autocomplete="off" spellcheck="false">
              <button id="teachstart">Start</button>
              <button id="teachmark" disabled title="During or just after the movement (space, Page Down or a page-turner pedal do the same)">Mark</button>
              <button id="teachfinish" disabled>Finish</button>
              <button id="teachcancel" disabled>Drop</button>
              <div class="legend" id="taught"></div>
            </div>
            <small>A gesture: type its name, Start, perform it and press Mark during or just after each one (3 to 5 times), Finish. A pose: NAME=VALUE, hold it, Mark, Finish; again with another value. It is written to the --gestures file and works at once as gesture:NAME, gesture:NAME.progress or pose:NAME.</small>
            <h2>Outputs</h2>
            <pre id="outputs">-</pre>
            <div id="playoutbox">
              <label for="playout">Playout</label>
              <input id="playout" list="playouts" size="8" aria-label="playout: off, auto or a delay in ms" autocomplete="off" spellcheck="false">
              <datalist id="playouts"><option>off</option><option>auto</option><option>10</option><option>20</option><option>40</option></datalist>
              <button id="playoutset">Set</button>
            </div>
            <small>Playout: off plays each reading as it arrives; auto plays it at the sender's own time plus the delay its Wi-Fi needs (steady timing); a number is a fixed delay in ms.</small>
          </section>
          <section>
            <h2>Mappings <span class="legend"><b style="background:#777"></b>raw<b style="background:#6ab0f3"></b>smoothed<b style="background:#f29d38"></b>sent (last 10 s)</span></h2>
            <div id="mappings"></div>
            <datalist id="sources"><option>tilt.x</option><option>tilt.y</option><option>tilt.pitch</option><option>tilt.roll</option><option>accel.x</option><option>accel.y</option><option>accel.z</option><option>gyro.x</option><option>gyro.y</option><option>gyro.z</option><option>flick</option><option>shake</option><option>tap</option></datalist>
            <div id="add">
              <input id="newmap" aria-label="new mapping" placeholder="tilt.y cc=11 range=-60..60 smooth=30" autocomplete="off" spellcheck="false">
              <button id="addbutton">Add</button>
            </div>
            <small>A mapping in the command line's syntax: SOURCE TARGET [range=LO..HI] [bipolar] [curve=exp:2] [smooth=MS] [deadzone=X] [hold=tap] ... (sensorwah mappings lists them). Enter applies it at once.</small>
          </section>
        </main>
        <script>
        "use strict";
        const token = decodeURIComponent(location.hash.slice(1));
        const $ = (id) => document.getElementById(id);
        const hist = new Map();          // "index text" -> [{t, raw, smoothed, value}]: a changed mapping starts a new trace
        let state = null, live = null, lastGestures = null, lastRebuild = "", lastMessage = null;
        const colors = ["#f29d38", "#6ab0f3", "#8fd18f", "#e07be0", "#f2e35b", "#ff7f7f", "#7fffd4", "#c0c0c0"];
        let watching = "", watchHist = new Map();   // source -> [{t, v}] of the first sender

        function say(text) { $("message").textContent = text; if (text) setTimeout(() => { if ($("message").textContent === text) $("message").textContent = ""; }, 6000); }
        function status(text, cls) { const s = $("state"); s.textContent = text; s.className = cls || ""; }

        async function call(method, path, body) {
          const r = await fetch("/api/" + path, { method, headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
                                                  body: body === undefined ? undefined : JSON.stringify(body) });
          const j = await r.json().catch(() => ({ error: "HTTP " + r.status }));
          if (!r.ok) throw new Error(j.error || ("HTTP " + r.status));
          return j;
        }

        function tiltCanvas(c, pitch, roll) {
          const g = c.getContext("2d"), w = c.width, h = c.height;
          g.clearRect(0, 0, w, h);
          g.strokeStyle = "#555"; g.lineWidth = 2;
          g.beginPath(); g.arc(w / 2, h / 2, w / 2 - 2, 0, 2 * Math.PI); g.stroke();
          g.beginPath(); g.moveTo(w / 2, 2); g.lineTo(w / 2, h - 2); g.moveTo(2, h / 2); g.lineTo(w - 2, h / 2); g.stroke();
          if (pitch === null || roll === null) return;
          const clamp = (v) => Math.max(-90, Math.min(90, v));
          const x = w / 2 + clamp(roll) / 90 * (w / 2 - 8), y = h / 2 - clamp(pitch) / 90 * (h / 2 - 8);
          g.fillStyle = "#f29d38"; g.beginPath(); g.arc(x, y, 7, 0, 2 * Math.PI); g.fill();
        }

        function renderSenders(s) {
          const box = $("senders");
          if (s.senders.length === 0) { if (!box.querySelector("small")) box.innerHTML = "<small>No sender yet.</small>"; return; }
          const key = s.senders.map(x => x.name).join("\n");
          if (box.dataset.key !== key) {
            box.dataset.key = key; box.innerHTML = "";
            for (const x of s.senders) {
              const d = document.createElement("div"); d.className = "sender";
              d.innerHTML = '<canvas class="tilt" width="144" height="144" aria-label="tilt"></canvas><div><div class="name"></div><div class="stats"></div></div>';
              d.querySelector(".name").textContent = x.name;
              box.appendChild(d);
            }
          }
          s.senders.forEach((x, i) => {
            const d = box.children[i];
            const silent = x.silent === null ? "" : (x.silent > 1 ? `, silent ${x.silent.toFixed(1)} s` : "");
            d.querySelector(".stats").textContent = `${x.rate} Hz, ${x.frames} frames, ${x.skipped} skipped${silent}`;
            d.querySelector("canvas").dataset.pitch = x.pitch; d.querySelector("canvas").dataset.roll = x.roll;
          });
        }

        function rebuildMappings(s) {
          const box = $("mappings");
          const key = JSON.stringify([s.mappings.map(m => m.text), s.solo]);
          if (key === lastRebuild) return;
          // never rebuild under a mapping being edited
          if (box.contains(document.activeElement) && document.activeElement.tagName === "INPUT" && box.dataset.count == s.mappings.length) {
            return;
          }
          lastRebuild = key; box.dataset.count = s.mappings.length; box.innerHTML = "";
          for (const m of s.mappings) {
            const d = document.createElement("div"); d.className = "mapping"; d.dataset.index = m.index; d.dataset.text = m.text;
            d.innerHTML = `<div class="top"><span class="num">${m.index}</span><input aria-label="mapping ${m.index}" autocomplete="off" spellcheck="false">
              <span class="value" title="last value sent">-</span><button class="solo">Solo</button><button class="cal" title="Trace your range: rest 1.5 s, then move">Calibrate</button><button class="danger del" aria-label="remove mapping ${m.index}">✕</button></div>
              <div class="error" role="alert"></div><canvas class="plot" height="140"></canvas>
              <details class="fields"><summary>Settings</summary><div class="fieldgrid">
                <label>source<input data-f="source" list="sources" autocomplete="off" spellcheck="false"></label>
                <label>target<input data-f="target" placeholder="cc=11 ch=1" autocomplete="off" spellcheck="false"></label>
                <label>range<input data-f="range" placeholder="-1..1" autocomplete="off" spellcheck="false"></label>
                <label>curve<select data-f="curve"><option value="">linear</option><option>exp:2</option><option>exp:4</option><option>log:2</option><option>log:4</option></select></label>
                <label>smoothing (ms)<input data-f="smooth" inputmode="decimal" placeholder="default" autocomplete="off"></label>
                <label>dead zone<input data-f="deadzone" inputmode="decimal" placeholder="0" autocomplete="off"></label>
                <label>hold<select data-f="hold"><option value="">none</option><option>flick</option><option>shake</option><option>tap</option></select></label>
              </div></details>`;
            const input = d.querySelector("input"); input.value = m.text; input.dataset.text = m.text;
            input.addEventListener("keydown", (e) => {
              if (e.key === "Enter") { e.preventDefault(); replace(m.index, input, d.querySelector(".error")); }
              if (e.key === "Escape") { input.value = input.dataset.text; input.blur(); }
            });
            input.addEventListener("change", () => replace(m.index, input, d.querySelector(".error")));
            fillFields(d, m.text);
            for (const f of d.querySelectorAll("[data-f]")) f.addEventListener("change", () => {
              input.value = withField(input.value, f.dataset.f, f.value.trim());
              replace(m.index, input, d.querySelector(".error"));
            });
            const solo = d.querySelector(".solo");
            if (s.solo === m.index) solo.classList.add("on");
            solo.addEventListener("click", () => call("POST", "solo/" + (s.solo === m.index ? 0 : m.index)).then(r => say(r.solo ? `only mapping ${r.solo} sends (for a DAW's MIDI learn)` : "every mapping sends")).catch(e => say(e.message)));
            d.querySelector(".cal").addEventListener("click", () => call("POST", "calibrate/" + m.index).then(r => say(r.steps)).catch(e => say(e.message)));
            d.querySelector(".del").addEventListener("click", () => call("DELETE", "mappings/" + m.index).then(apply).then(() => say(`mapping ${m.index} removed`)).catch(e => say(e.message)));
            box.appendChild(d);
          }
        }

        // the settings form writes the same text: each field is a word of the --map syntax
        const targetKeys = ["cc", "cc14", "note", "toggle", "fx", "ch", "to", "length", "bend", "pitchbend"];
        const key = (w) => w.split("=")[0].toLowerCase();
        function fieldOf(words, f) {
          if (f === "source") return words[0] || "";
          if (f === "target") return words.slice(1).filter(w => targetKeys.includes(key(w))).join(" ");
          const w = words.slice(1).find(w => key(w) === f || (f === "smooth" && key(w) === "smoothing"));
          return w && w.includes("=") ? w.slice(w.indexOf("=") + 1) : "";
        }
        function fillFields(d, text) {
          const words = text.trim().split(/\s+/);
          for (const f of d.querySelectorAll("[data-f]")) f.value = fieldOf(words, f.dataset.f);
        }
        function withField(text, f, value) {
          let words = text.trim().split(/\s+/);
          if (f === "source") { words[0] = value; return words.join(" "); }
          if (f === "target") {
            const rest = words.slice(1).filter(w => !targetKeys.includes(key(w)));
            return [words[0], ...(value ? value.split(/\s+/) : []), ...rest].join(" ");
          }
          words = words.filter((w, i) => i === 0 || !(key(w) === f || (f === "smooth" && key(w) === "smoothing")));
          if (value) words.push(f + "=" + value);
          return words.join(" ");
        }

        async function replace(index, input, errorBox) {
          if (input.value.trim() === input.dataset.text) { errorBox.textContent = ""; return; }
          try {
            const s = await call("PUT", "mappings/" + index, { text: input.value });
            errorBox.textContent = ""; input.dataset.text = input.value.trim(); input.blur();
            apply(s); say(`mapping ${index} changed`);
          } catch (e) { errorBox.textContent = e.message; }
        }

        function renderScenes(s) {
          const box = $("scenes");
          const key = JSON.stringify([s.scenes, s.scene && s.scene.index]);
          if (box.dataset.key === key) return;
          box.dataset.key = key; box.innerHTML = "";
          s.scenes.forEach((name, i) => {
            const b = document.createElement("button"); b.textContent = name; b.dataset.scene = i + 1;
            if (s.scene && s.scene.index === i + 1) { b.classList.add("on"); b.setAttribute("aria-pressed", "true"); }
            b.addEventListener("click", () => call("POST", "scene/" + (i + 1)).then(apply).then(() => say(`scene ${name}`)).catch(e => say(e.message)));
            box.appendChild(b);
          });
        }

        function renderTeach(s) {
          const t = s.taught || { gestures: [], poses: [], canTeach: false }, on = typeof s.teach === "string";
          $("teachstart").disabled = !t.canTeach || on; $("teachname").disabled = !t.canTeach || on;
          for (const id of ["teachmark", "teachfinish", "teachcancel"]) $(id).disabled = !on;
          $("teachstart").title = t.canTeach ? "Start teaching what the field names" : "listen runs without --gestures FILE: nothing to teach into";
          if (on && document.activeElement !== $("teachname")) $("teachname").value = s.teach;
          const names = t.gestures.map(n => "gesture:" + n).concat(t.poses.map(n => "pose:" + n));
          const text = names.length ? "taught: " + names.join(", ") : (t.canTeach ? "nothing taught yet" : "");
          if ($("taught").textContent !== text) {
            $("taught").textContent = text;
            const list = $("sources");
            list.querySelectorAll("option.taught").forEach(o => o.remove());
            for (const n of t.gestures.flatMap(n => ["gesture:" + n, "gesture:" + n + ".progress"]).concat(t.poses.map(n => "pose:" + n))) {
              const o = document.createElement("option"); o.className = "taught"; o.textContent = n; list.appendChild(o);
            }
          }
        }

        async function teachStart() {
          const text = $("teachname").value.trim(), eq = text.indexOf("=");
          if (!text) { say("teach: type a name first (swing, or wah=1 for a pose)"); return; }
          const body = eq < 0 ? { name: text } : { name: text.slice(0, eq), value: Number(text.slice(eq + 1)) };
          if (eq >= 0 && (text.slice(eq + 1).trim() === "" || !isFinite(body.value))) { say("teach: after = comes the pose's value, a number"); return; }
          try { await call("POST", "teach", body); } catch (e) { say(e.message); }
        }
        const teachCall = (what) => call("POST", "teach/" + what).catch(e => say(e.message));

        function apply(s) {
          state = s;
          renderSenders(s); renderScenes(s); rebuildMappings(s);
          $("save").disabled = !s.canSave;
          $("save").title = s.canSave ? "Write the running mappings into the configuration file" : "listen runs without --config: nothing to save to";
          for (const m of s.mappings) {
            const k = m.index + " " + m.text;
            let h = hist.get(k); if (!h) { h = []; hist.set(k, h); }
            h.push({ t: s.time, raw: m.raw, smoothed: m.smoothed, value: m.value, max: m.max, text: m.text });
            while (h.length && h[0].t < s.time - 10) h.shift();
          }
          for (const [k, h] of hist) if (!h.length || h[h.length - 1].t < s.time - 10) hist.delete(k);
          for (const m of s.mappings) {
            const d = document.querySelector(`.mapping[data-index="${m.index}"] .value`); if (d) d.textContent = m.value;
          }
          for (const g of Object.keys(s.gestures)) {
            let el = document.querySelector(`#gestures [data-g="${g}"]`);
            if (!el) { el = document.createElement("span"); el.dataset.g = g; $("gestures").appendChild(el); }
            el.textContent = `${g} ${s.gestures[g]}`;
            if (lastGestures && s.gestures[g] > (lastGestures[g] || 0)) { el.classList.add("fired"); setTimeout(() => el.classList.remove("fired"), 50); }
          }
          document.querySelectorAll("#gestures span").forEach(el => { if (!(el.dataset.g in s.gestures)) el.remove(); });
          lastGestures = s.gestures;
          if (s.message.serial !== lastMessage) { if (lastMessage !== null && s.message.text) say(s.message.text); lastMessage = s.message.serial; }
          $("outputs").textContent = s.outputs.length ? s.outputs.join("\n") : "MIDI as the command line set it";
          if (document.activeElement !== $("playout")) $("playout").value = s.playout;
          renderTeach(s);
          $("watcherror").textContent = s.sourcesError || "";
          if (s.sources) {
            const first = Object.keys(s.sources).sort()[0];
            const values = first ? s.sources[first] : {};
            for (const [name, v] of Object.entries(values)) {
              let h = watchHist.get(name); if (!h) { h = []; watchHist.set(name, h); }
              h.push({ t: s.time, v }); while (h.length && h[0].t < s.time - 10) h.shift();
            }
            $("watchlegend").innerHTML = "";
            [...watchHist.keys()].forEach((name, i) => {
              const b = document.createElement("span"); const v = values[name];
              b.innerHTML = `<b style="background:${colors[i % colors.length]}"></b>`; b.append(`${name} ${v === null || v === undefined ? "-" : v.toFixed(3)}`);
              $("watchlegend").appendChild(b);
            });
          }
        }

        function drawWatch() {
          const c = $("watchplot"), w = c.width = c.clientWidth * devicePixelRatio, ht = c.height;
          const g = c.getContext("2d"); g.clearRect(0, 0, w, ht);
          if (!state) return;
          [...watchHist.values()].forEach((h, i) => {
            // each source on the scale it covered
            let lo = Infinity, hi = -Infinity;
            for (const p of h) if (p.v !== null) { lo = Math.min(lo, p.v); hi = Math.max(hi, p.v); }
            if (!isFinite(lo)) return;
            if (hi - lo < 1e-9) { hi += 0.5; lo -= 0.5; }
            g.strokeStyle = colors[i % colors.length]; g.lineWidth = 2 * devicePixelRatio; g.beginPath(); let on = false;
            for (const p of h) {
              if (p.v === null) { on = false; continue; }
              const x = w - (state.time - p.t) / 10 * w, y = ht - 4 - (p.v - lo) / (hi - lo) * (ht - 8);
              if (on) g.lineTo(x, y); else g.moveTo(x, y); on = true;
            }
            g.stroke();
          });
        }

        function watch(list) {
          watching = list.split(",").map(x => x.trim()).filter(x => x).join(",");
          watchHist = new Map();
          if (live && live.readyState === 1) live.send("sources " + watching);
        }

        function draw() {
          drawWatch();
          if (state) {
            for (const c of document.querySelectorAll("#senders canvas")) tiltCanvas(c, c.dataset.pitch === "null" ? null : +c.dataset.pitch, c.dataset.roll === "null" ? null : +c.dataset.roll);
            for (const d of document.querySelectorAll(".mapping")) {
              const c = d.querySelector("canvas"), h = hist.get(d.dataset.index + " " + d.dataset.text) || [];
              const w = c.width = c.clientWidth * devicePixelRatio, ht = c.height;
              const g = c.getContext("2d"); g.clearRect(0, 0, w, ht);
              if (h.length < 2) continue;
              // raw and smoothed on their own scale (the span they covered), the value on 0..max
              let lo = Infinity, hi = -Infinity;
              for (const p of h) for (const v of [p.raw, p.smoothed]) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
              if (hi - lo < 1e-9) { hi += 0.5; lo -= 0.5; }
              const t1 = state.time, x = (t) => w - (t1 - t) / 10 * w;
              const line = (color, f) => {
                g.strokeStyle = color; g.lineWidth = 2 * devicePixelRatio; g.beginPath(); let on = false;
                for (const p of h) { const v = f(p); if (v === null) { on = false; continue; } const y = ht - 4 - v * (ht - 8); if (on) g.lineTo(x(p.t), y); else g.moveTo(x(p.t), y); on = true; }
                g.stroke();
              };
              line("#777", p => p.raw === null ? null : (p.raw - lo) / (hi - lo));
              line("#6ab0f3", p => p.smoothed === null ? null : (p.smoothed - lo) / (hi - lo));
              line("#f29d38", p => p.value < 0 ? null : p.value / p.max);
            }
          }
          requestAnimationFrame(draw);
        }

        function connect() {
          if (!token) { status("no token", "bad"); say("Open the control address listen printed: it ends in #TOKEN."); return; }
          let ws;
          try { ws = new WebSocket(`wss://${location.host}/api/live`, ["sensorwah-control", "sensorwah-token." + token]); }
          catch (e) { return poll(); }
          let opened = false, alive = null;
          ws.onopen = () => { opened = true; live = ws; status("live", "ok"); if (watching) ws.send("sources " + watching); alive = setInterval(() => ws.send("alive"), 15000); };
          ws.onmessage = (e) => apply(JSON.parse(e.data));
          ws.onclose = () => {
            clearInterval(alive);
            if (!opened) return poll();
            status("reconnecting", ""); setTimeout(connect, 1000);
          };
        }

        async function poll() {
          // no WebSocket (a certificate only accepted, on iOS): the state every 100 ms
          status("live (polling)", "ok");
          for (;;) {
            try { apply(await call("GET", "state" + (watching ? "?sources=" + encodeURIComponent(watching) : ""))); }
            catch (e) { status(e.message.includes("token") ? "wrong token" : "offline", "bad"); say(e.message); if (e.message.includes("token")) return; }
            await new Promise(r => setTimeout(r, 100));
          }
        }

        $("addbutton").addEventListener("click", async () => {
          const input = $("newmap");
          if (!input.value.trim()) return;
          try { apply(await call("POST", "mappings", { text: input.value })); say("mapping added"); input.value = ""; }
          catch (e) { say(e.message); }
        });
        $("watchlist").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); watch($("watchlist").value); } });
        $("watchlist").addEventListener("change", () => watch($("watchlist").value));
        $("newmap").addEventListener("keydown", (e) => { if (e.key === "Enter") $("addbutton").click(); });
        $("save").addEventListener("click", () => call("POST", "save").then(r => say("saved to " + r.saved)).catch(e => say(e.message)));
        $("teachstart").addEventListener("click", teachStart);
        $("teachname").addEventListener("keydown", (e) => { if (e.key === "Enter") teachStart(); });
        $("teachmark").addEventListener("click", () => teachCall("mark"));
        $("teachfinish").addEventListener("click", () => teachCall("finish"));
        $("teachcancel").addEventListener("click", () => teachCall("cancel"));
        $("playoutset").addEventListener("click", () => call("POST", "playout/" + encodeURIComponent($("playout").value.trim()))
          .then(r => say("playout: " + r.playout)).catch(e => say(e.message)));
        $("playout").addEventListener("keydown", (e) => { if (e.key === "Enter") $("playoutset").click(); });
        $("rezero").addEventListener("click", () => call("POST", "rezero").then(r => say("re-zero: " + r.rezero)).catch(e => say(e.message)));
        // keyboard: 1-9 switch scenes when no field has the focus
        document.addEventListener("keydown", (e) => {
          if (document.activeElement && document.activeElement.tagName === "INPUT") return;
          // while teaching: space, Page Down or an arrow (what page-turner pedals send) marks
          if (state && typeof state.teach === "string" && [" ", "PageDown", "ArrowRight", "ArrowDown"].includes(e.key)) {
            e.preventDefault(); teachCall("mark"); return;
          }
          const b = document.querySelector(`#scenes [data-scene="${e.key}"]`); if (b) b.click();
        });
        connect();
        requestAnimationFrame(draw);
        </script>
        </body>
        </html>
        """#
}
