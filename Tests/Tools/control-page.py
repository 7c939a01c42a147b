#!/usr/bin/env python3
"""The control page in a real browser, for ControlPageTests: Debian's Chromium, headless, over
the DevTools protocol. It opens `/control#TOKEN` (laptop-sized), waits until the page is live,
watches mapping 1's sent value while a take is streamed, edits mapping 1 by typing into its
field and pressing Enter (real key events), clicks a scene's button (a real click), and takes a
laptop-sized and a phone-sized screenshot, checking that the main parts are on the screen.

Prints one JSON object per line on stdout: {"event": "...", ...}.

  control-page.py --url https://127.0.0.1:PORT/control#TOKEN [--watch SECONDS] [--edit TEXT]
                  [--scene N] [--shots DIR]
"""
import argparse
import json
import re
import sys
import time

from chromium_devtools import chromium


def out(**o):
    print(json.dumps(o), flush=True)


# what the page must show, and whether it fits the screen's width
LAYOUT = """(() => {
  const seen = (sel) => { const e = document.querySelector(sel); if (!e) return false;
    const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= innerWidth + 1; };
  const painted = [...document.querySelectorAll('canvas.plot')].some(c => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) return true; return false; });
  return { sender: seen('#senders .sender'), tilt: seen('#senders canvas.tilt'), mapping: seen('.mapping input'),
           plot: seen('.mapping canvas.plot'), painted, scenes: seen('#scenes button'), save: seen('#save'),
           add: seen('#newmap'), teach: seen('#teachname'), scrollsSideways: document.documentElement.scrollWidth > innerWidth + 1 };
})()"""


def settled_layout(dt, seconds=5):
    """LAYOUT once every part shows and the plot is drawn at the size the page has now (a
    resize clears a canvas until the page's next drawing), or as it is after `seconds`."""
    deadline = time.time() + seconds
    while True:
        # two animation frames: laid out and painted as the page is now
        dt.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        layout = dt.eval(LAYOUT)
        if all(v for k, v in layout.items() if k != "scrollsSideways") or time.time() > deadline:
            return layout
        time.sleep(0.05)


def type_text(dt, text):
    for ch in text:
        dt.call("Input.dispatchKeyEvent", type="keyDown", text=ch, key=ch)
        dt.call("Input.dispatchKeyEvent", type="keyUp", key=ch)


def press(dt, key, code, vk):
    dt.call("Input.dispatchKeyEvent", type="rawKeyDown", key=key, code=code, windowsVirtualKeyCode=vk, nativeVirtualKeyCode=vk)
    dt.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk, nativeVirtualKeyCode=vk)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--watch", type=float, default=2.0)
    ap.add_argument("--edit")
    ap.add_argument("--field", help="NAME=VALUE: typed into mapping 1's settings form (e.g. smooth=25)")
    ap.add_argument("--sources", help="typed into the Watch field (e.g. 'tilt.x, accel.y')")
    ap.add_argument("--scene", type=int)
    ap.add_argument("--teach", help="typed into Teach; Start, a space key (mark), Drop")
    ap.add_argument("--shots")
    ap.add_argument("--chromium")
    args = ap.parse_args()

    with chromium(args.chromium, 1280, 800) as dt:
        if dt is None:
            out(event="error", reason="chromium did not start")
            return 1
        dt.call("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
        dt.call("Page.enable")
        dt.call("Runtime.enable")
        dt.call("Page.navigate", url=args.url)
        for _ in range(150):
            if dt.eval("document.readyState") == "complete" and dt.eval("document.getElementById('state').textContent") == "live":
                break
            time.sleep(0.1)
        out(event="loaded", secure=dt.eval("window.isSecureContext"), state=dt.eval("document.getElementById('state').textContent"),
            title=dt.eval("document.title"))
        # the sent value of mapping 1 as the page shows it, while the take streams
        values, t0 = [], time.time()
        while time.time() - t0 < args.watch:
            values.append(dt.eval("(document.querySelector('.mapping .value') || {}).textContent"))
            time.sleep(0.05)
        out(event="watched", values=values, senders=dt.eval("[...document.querySelectorAll('#senders .name')].map(e => e.textContent)"),
            stats=dt.eval("[...document.querySelectorAll('#senders .stats')].map(e => e.textContent)"))
        if args.sources:
            rect = dt.eval("(() => { const r = document.getElementById('watchlist').getBoundingClientRect(); return [r.x + 20, r.y + r.height / 2]; })()")
            dt.click(rect[0], rect[1])
            type_text(dt, args.sources)
            press(dt, "Enter", "Enter", 13)
            # until the plot is drawn and the legend shows a value beside each name (or an error)
            names = [n.strip() for n in args.sources.split(",") if n.strip()]
            for _ in range(100):
                painted = dt.eval("""(() => { const c = document.getElementById('watchplot'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) return true; return false; })()""")
                legend = dt.eval("document.getElementById('watchlegend').textContent") or ""
                error = dt.eval("document.getElementById('watcherror').textContent") or ""
                if error or (painted and all(re.search(re.escape(n) + r" -?[0-9]+\.[0-9]{3}", legend) for n in names)):
                    break
                time.sleep(0.1)
            out(event="watch", legend=legend, error=error, painted=painted)
            dt.eval("document.activeElement.blur()")
        if args.edit:
            rect = dt.eval("(() => { const r = document.querySelector('.mapping input').getBoundingClientRect(); return [r.x + 20, r.y + r.height / 2]; })()")
            dt.click(rect[0], rect[1])
            dt.eval("document.querySelector('.mapping input').select()")
            type_text(dt, args.edit)
            press(dt, "Enter", "Enter", 13)
            for _ in range(50):
                if dt.eval("document.querySelector('.mapping input').dataset.text") == args.edit:
                    break
                time.sleep(0.1)
            time.sleep(0.3)   # a duration: what was accepted must stay (the next live state must not undo it)
            out(event="edited", text=dt.eval("document.querySelector('.mapping input').value"),
                error=dt.eval("document.querySelector('.mapping .error').textContent"),
                message=dt.eval("document.getElementById('message').textContent"))
        if args.field:
            name, value = args.field.split("=", 1)
            rect = dt.eval("(() => { const r = document.querySelector('.mapping details.fields summary').getBoundingClientRect(); return [r.x + 10, r.y + r.height / 2]; })()")
            dt.click(rect[0], rect[1])
            for _ in range(50):   # until the opened settings show the field
                if dt.eval(f"(document.querySelector('.mapping [data-f=\"{name}\"]') || {{getBoundingClientRect: () => ({{height: 0}})}}).getBoundingClientRect().height > 0"):
                    break
                time.sleep(0.05)
            rect = dt.eval(f"(() => {{ const r = document.querySelector('.mapping [data-f=\"{name}\"]').getBoundingClientRect(); return [r.x + 10, r.y + r.height / 2]; }})()")
            dt.click(rect[0], rect[1])
            dt.eval(f"document.querySelector('.mapping [data-f=\"{name}\"]').select()")
            type_text(dt, value)
            press(dt, "Tab", "Tab", 9)
            for _ in range(50):
                if f"{name}={value}" in (dt.eval("document.querySelector('.mapping input').dataset.text") or ""):
                    break
                time.sleep(0.1)
            time.sleep(0.3)   # a duration: what was accepted must stay (the next live state must not undo it)
            out(event="field", text=dt.eval("document.querySelector('.mapping input').dataset.text"),
                error=dt.eval("document.querySelector('.mapping .error').textContent"))
        if args.teach:
            rect = dt.eval("(() => { const r = document.getElementById('teachname').getBoundingClientRect(); return [r.x + 20, r.y + r.height / 2]; })()")
            dt.click(rect[0], rect[1])
            type_text(dt, args.teach)
            press(dt, "Enter", "Enter", 13)
            for _ in range(50):
                if dt.eval("!document.getElementById('teachmark').disabled"):
                    break
                time.sleep(0.1)
            started = dt.eval("document.getElementById('message').textContent")
            dt.eval("document.activeElement.blur()")
            time.sleep(0.3)   # a margin kept from before: the page's teach state settling, which nothing here reads
            press(dt, " ", "Space", 32)
            for _ in range(30):
                if "marked" in (dt.eval("document.getElementById('message').textContent") or ""):
                    break
                time.sleep(0.1)
            marked = dt.eval("document.getElementById('message').textContent")
            rect = dt.eval("(() => { const r = document.getElementById('teachcancel').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
            dt.click(rect[0], rect[1])
            for _ in range(30):
                if dt.eval("!document.getElementById('teachstart').disabled"):
                    break
                time.sleep(0.1)
            out(event="teach", started=started, marked=marked, dropped=dt.eval("document.getElementById('message').textContent"),
                taught=dt.eval("document.getElementById('taught').textContent"),
                startEnabled=dt.eval("!document.getElementById('teachstart').disabled"))
        if args.scene:
            rect = dt.eval(f"(() => {{ const b = document.querySelector('#scenes [data-scene=\"{args.scene}\"]'); if (!b) return null; const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
            if rect:
                dt.click(rect[0], rect[1])
            for _ in range(50):
                if dt.eval("(document.querySelector('#scenes button.on') || {}).textContent") is not None and \
                   dt.eval(f"!!document.querySelector('#scenes [data-scene=\"{args.scene}\"].on')"):
                    break
                time.sleep(0.1)
            out(event="scene", on=dt.eval("(document.querySelector('#scenes button.on') || {}).textContent"),
                message=dt.eval("document.getElementById('message').textContent"))
        out(event="layout", size="laptop", **settled_layout(dt))
        if args.shots:
            dt.screenshot(f"{args.shots}/control-laptop.png")
        dt.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True)
        out(event="layout", size="phone", **settled_layout(dt))
        if args.shots:
            dt.screenshot(f"{args.shots}/control-phone.png")
        out(event="done")
        return 0


if __name__ == "__main__":
    sys.exit(main())
