#!/usr/bin/env python3
"""A phone's browser for WebCLITests: Debian's Chromium, headless, driven over the DevTools
protocol (websocket-client). It opens the page `sensorwah listen --web` serves, taps Start with
a real (synthesised) mouse click, and feeds the page's motion sensors through Chromium's
virtual sensors (Emulation.setSensorOverrideEnabled / setSensorOverrideReadings: Chromium
derives `devicemotion` from the accelerometer, linear-acceleration and gyroscope readings).

Prints one JSON object per line on stdout: {"event": "...", ...}.

  web-phone.py --url https://127.0.0.1:PORT/ --sweep SECONDS [--name NAME] [--deny]
               [--no-websocket] [--screenshot FILE] [--hold SECONDS]

--sweep: the accelerometer's x goes from +4.9 to -4.9 m/s^2 (the device tilting one way to the
other: SensorWah's accel.x from -0.5 to +0.5 G) over SECONDS at 50 readings a second, with y and
z holding the rest of gravity (a phone held facing the player); the gyroscope reads the turn.
--deny: the page is refused the sensors (permission denied) and says so.
--no-websocket: the page's WebSocket constructor is made to fail, so it falls back to POST.
"""
import argparse
import json
import math
import sys
import time

from chromium_devtools import chromium


def out(**o):
    print(json.dumps(o), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--sweep", type=float, default=4.0)
    ap.add_argument("--hold", type=float, default=0.0, help="seconds of readings at rest after the sweep")
    ap.add_argument("--name", default="")
    ap.add_argument("--deny", action="store_true")
    ap.add_argument("--no-websocket", action="store_true")
    ap.add_argument("--screenshot")
    ap.add_argument("--chromium")
    args = ap.parse_args()

    with chromium(args.chromium) as dt:
        if dt is None:
            out(event="error", reason="chromium did not start")
            return 1
        origin = args.url.rstrip("/")
        dt.call("Browser.grantPermissions" if not args.deny else "Browser.resetPermissions",
                **({"permissions": ["sensors"], "origin": origin} if not args.deny else {}))
        if args.deny:
            dt.call("Browser.setPermission", permission={"name": "accelerometer"}, setting="denied", origin=origin)
            dt.call("Browser.setPermission", permission={"name": "gyroscope"}, setting="denied", origin=origin)
        for kind in ["accelerometer", "linear-acceleration", "gyroscope"]:
            dt.call("Emulation.setSensorOverrideEnabled", enabled=True, type=kind)
        dt.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True)
        dt.call("Page.enable")
        dt.call("Runtime.enable")
        if args.no_websocket:
            dt.call("Page.addScriptToEvaluateOnNewDocument",
                    source="window.WebSocket = function () { throw new Error('no WebSocket here'); };")
        dt.call("Page.navigate", url=args.url)
        for _ in range(100):
            if dt.eval("document.readyState") == "complete" and dt.eval("!!document.getElementById('start')"):
                break
            time.sleep(0.1)
        else:
            out(event="error", reason="the page did not load")
            return 1
        out(event="loaded", secure=dt.eval("window.isSecureContext"), title=dt.eval("document.title"))
        if args.name:
            dt.eval(f"(() => {{ const n = document.getElementById('name'); n.value = {json.dumps(args.name)}; n.dispatchEvent(new Event('change')); }})()")

        def reading(ax, ay, az, gx=0.0, gy=0.0, gz=0.0):
            dt.call("Emulation.setSensorOverrideReadings", type="accelerometer", reading={"xyz": {"x": ax, "y": ay, "z": az}})
            dt.call("Emulation.setSensorOverrideReadings", type="linear-acceleration", reading={"xyz": {"x": 0.0, "y": 0.0, "z": 0.0}})
            dt.call("Emulation.setSensorOverrideReadings", type="gyroscope", reading={"xyz": {"x": gx, "y": gy, "z": gz}})

        g = 9.80665
        reading(4.9, g * 0.6, g * 0.6)
        # a real click on Start (a user gesture, as iOS asks for the permission)
        rect = dt.eval("(() => { const r = document.getElementById('start').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        dt.click(rect[0], rect[1])
        out(event="started")
        t0 = time.time()
        steps = max(1, int(args.sweep * 50))
        for i in range(steps + 1):
            u = i / steps
            x = 4.9 - 9.8 * u
            rest = math.sqrt(max(g * g - x * x, 0.0))
            reading(x, rest * 0.7071, rest * 0.7071, 0.0, 9.8 / args.sweep / g, 0.0)
            target = t0 + (i + 1) / 50
            time.sleep(max(0.0, target - time.time()))
        for i in range(int(args.hold * 50)):
            reading(-4.9, g * 0.6, g * 0.6)
            time.sleep(0.02)
        time.sleep(0.5)   # a margin: the page's last readings on their way out, which the page does not count
        state = dt.eval("document.getElementById('state').textContent")
        problem = dt.eval("document.getElementById('problem').textContent")
        rate = dt.eval("document.getElementById('rate').textContent")
        wake = dt.eval("document.getElementById('wake').textContent")
        out(event="page", state=state, problem=problem, rate=rate, wake=wake,
            dot=dt.eval("document.getElementById('dot').style.left"))
        if args.screenshot:
            dt.screenshot(args.screenshot)
            out(event="screenshot", path=args.screenshot)
        out(event="done", seconds=round(time.time() - t0, 3))
        return 0


if __name__ == "__main__":
    sys.exit(main())
