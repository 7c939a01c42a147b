"""Debian's Chromium, headless, driven over the DevTools protocol (websocket-client): shared by
the browser tests' drivers (web-phone.py: a phone's browser as the sensor; control-page.py: the
control page)."""
import contextlib
import ctypes
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket


class DevTools:
    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=10, suppress_origin=True)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        my = self.next_id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")

    def click(self, x, y):
        """A real mouse click (a user gesture to the page)."""
        for t in ["mousePressed", "mouseReleased"]:
            self.call("Input.dispatchMouseEvent", type=t, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, path):
        import base64
        shot = self.call("Page.captureScreenshot", format="png")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


@contextlib.contextmanager
def chromium(binary=None, width=390, height=844):
    """A headless Chromium that accepts the local authority's certificates; yields its first
    page's DevTools (None if it did not start within 30 s)."""
    binary = binary or shutil.which("chromium") or "/usr/bin/chromium"
    port = free_port()
    profile = tempfile.mkdtemp(prefix="sw-chromium-")
    # the tests stop a driver with SIGTERM: unwind (so the finally below stops the browser)
    # instead of dying at once and leaving a headless Chromium running, still loading the
    # machine in the tests that follow; and the browser gets SIGTERM if this process dies any
    # other way (PR_SET_PDEATHSIG)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    def die_with_parent():
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # 1: PR_SET_PDEATHSIG

    proc = subprocess.Popen([binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--ignore-certificate-errors",
                             f"--remote-debugging-port={port}", f"--user-data-dir={profile}", "--no-first-run",
                             f"--window-size={width},{height}", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    try:
        deadline = time.time() + 30
        page_ws = None
        while time.time() < deadline and page_ws is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as r:
                    for t in json.loads(r.read()):
                        if t.get("type") == "page":
                            page_ws = t["webSocketDebuggerUrl"]
            except OSError:
                time.sleep(0.2)
        yield DevTools(page_ws) if page_ws else None
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
