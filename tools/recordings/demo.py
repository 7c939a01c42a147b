"""Writes every demo file in Recordings/ (the four logs and README.md)."""

import os

from .accel import AccelOnlyLog
from .common import (ACCEL_START, ACCEL_UPTIME, PHONE_START, PHONE_UPTIME, QUIRK_START,
                     QUIRK_UPTIME, SEED, WATCH_START, WATCH_UPTIME)
from .csvout import write_lines
from .gestures import DEMO_SPIKES, DEMO_STEPS, WATCH_SPIKES, WATCH_STEPS, Script
from .headers import ACCEL_ONLY_HEADER, PHONE_HEADER, WATCH_HEADER
from .phone import PhoneLog
from .quirks import make_quirks
from .readme import render_readme
from .watch import WatchLog


def file_size(path):
    return os.path.getsize(path)


def generate_all(outdir):
    os.makedirs(outdir, exist_ok=True)
    info = {}

    # 1. phone demo
    main = Script(DEMO_STEPS, DEMO_SPIKES)
    phone = PhoneLog(SEED + 1, main, 100.0, main.duration, PHONE_START, PHONE_UPTIME)
    p = os.path.join(outdir, "wrist-wah-phone.csv")
    n = write_lines(p, PHONE_HEADER, (line for _, line in phone.rows()))
    info["phone"] = (phone, n, file_size(p), p)

    # 2. watch
    wscript = Script(WATCH_STEPS, WATCH_SPIKES)
    watch = WatchLog(SEED + 2, wscript, 50.0, 30.0, wscript.duration, WATCH_START, WATCH_UPTIME)
    p = os.path.join(outdir, "watch-sweeps.csv")
    n = write_lines(p, WATCH_HEADER, (line for _, line in watch.rows()))
    info["watch"] = (watch, n, file_size(p), p)

    # 3. accelerometer only, 30 Hz, same performance as the phone demo
    acc = AccelOnlyLog(SEED + 3, Script(DEMO_STEPS, DEMO_SPIKES), 30.0, main.duration,
                       ACCEL_START, ACCEL_UPTIME)
    p = os.path.join(outdir, "accel-only-30hz.csv")
    n = write_lines(p, ACCEL_ONLY_HEADER, (line for _, line in acc.rows()))
    info["accel"] = (acc, n, file_size(p), p)

    # 4. quirks, CRLF
    qlog, qrows = make_quirks(SEED + 4, QUIRK_START, QUIRK_UPTIME)
    p = os.path.join(outdir, "phone-quirks.csv")
    n = write_lines(p, PHONE_HEADER, qrows, eol="\r\n")
    info["quirks"] = (qlog, n, file_size(p), p)

    readme = os.path.join(outdir, "README.md")
    with open(readme, "w", encoding="utf-8", newline="\n") as f:
        f.write(render_readme(info))
    return info
