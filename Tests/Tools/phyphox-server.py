#!/usr/bin/env python3
"""A small stand-in for phyphox's remote access, for the tests: /config and /get with the
threshold syntax (buf=full, buf=T|timebuf, timebuf=T). The "Acceleration with g" experiment:
accX, accY, accZ (m/s^2) and acc_time (s) at 100 Hz. Each /get adds --grow samples to the
buffers (deterministic, independent of wall time), up to --last. --first samples exist from
the start (a phone that comes back with its experiment still running).

Usage: phyphox-server.py [--port P] [--first N] [--last N] [--grow N]; prints "port P", then
"get N" at each /get (N: the samples there now), so a test knows when a poller has read them all
(a /get after one that found --last samples: the poller asks again only once it has read the answer).
"""
import argparse, json, math, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlsplit, unquote

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, default=0)
ap.add_argument("--first", type=int, default=0)
ap.add_argument("--last", type=int, default=150)
ap.add_argument("--grow", type=int, default=10)
args = ap.parse_args()
count = args.first


def sample(k):
    t = round(k * 0.01, 6)
    return {"acc_time": t, "accX": round(math.sin(k / 12) * 9.80665, 6),
            "accY": round(math.cos(k / 30) * 2.0, 6), "accZ": 9.80665}


CONFIG = {"crc32": "0", "title": "Acceleration with g", "category": "Raw Sensors",
          "buffers": [{"name": n, "size": 0} for n in ("accX", "accY", "accZ", "acc_time")],
          "inputs": [{"source": "accelerometer",
                      "outputs": [{"x": "accX"}, {"y": "accY"}, {"z": "accZ"}, {"t": "acc_time"}]}]}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        global count
        u = urlsplit(self.path)
        if u.path == "/config":
            return self.reply(CONFIG)
        if u.path != "/get":
            self.send_error(404)
            return
        count = min(count + args.grow, args.last)
        sys.stdout.write("get %d\n" % count); sys.stdout.flush()
        data = [sample(k) for k in range(count)]
        out = {}
        for part in u.query.split("&"):
            if "=" not in part:
                continue
            name, value = part.split("=", 1)
            name, value = unquote(name), unquote(value)
            if value == "full":
                rows = data
            elif "|" in value:
                threshold, by = value.split("|", 1)
                rows = [d for d in data if d[by] > float(threshold)]
            else:
                rows = [d for d in data if d[name] > float(value)]
            out[name] = {"size": 0, "updateMode": "partial", "buffer": [d[name] for d in rows]}
        self.reply({"buffer": out, "status": {"session": "test", "measuring": True, "timedRun": False, "countDown": 0}})


HTTPServer.allow_reuse_address = True
server = HTTPServer(("127.0.0.1", args.port), Handler)
sys.stdout.write("port %d\n" % server.server_address[1]); sys.stdout.flush()
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
