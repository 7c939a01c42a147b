"""The long benchmark log (--big): a looped performance, not committed."""

import os
import time

from .common import PHONE_START, PHONE_UPTIME, SEED, WATCH_START, WATCH_UPTIME
from .csvout import write_lines
from .gestures import LONG_SPIKES, LONG_STEPS, WATCH_SPIKES, WATCH_STEPS, Script
from .headers import PHONE_HEADER, WATCH_HEADER
from .phone import PhoneLog
from .timing import repeat_spikes
from .watch import WatchLog


def generate_big(path, minutes, watch):
    total = minutes * 60.0
    # the phone loops the 60 s performance; the watch (whose lever arm to the
    # elbow is long) loops its own 30 s sweep script
    steps, knocks = (WATCH_STEPS, WATCH_SPIKES) if watch else (LONG_STEPS, LONG_SPIKES)
    script = Script(steps, loop=True)
    spikes = repeat_spikes(knocks, script.duration, total)
    t_start = time.time()
    if watch:
        log = WatchLog(SEED + 12, script, 100.0, 50.0, total, WATCH_START, WATCH_UPTIME,
                       spikes=spikes)
        header = WATCH_HEADER
    else:
        log = PhoneLog(SEED + 11, script, 100.0, total, PHONE_START, PHONE_UPTIME,
                       spikes=spikes)
        header = PHONE_HEADER
    n = write_lines(path, header, (line for _, line in log.rows()))
    size = os.path.getsize(path)
    print("%s: %d rows, %.1f s of %s data, %.1f MB, written in %.1f s" % (
        path, n, log.times[-1] - log.times[0], "watch" if watch else "iPhone",
        size / 1e6, time.time() - t_start))
