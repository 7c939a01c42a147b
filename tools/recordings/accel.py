"""The 5-column accelerometer-only log (accel-only-30hz.csv)."""

import random

from .common import CLOCK
from .physics import Sensors, Wrist
from .timing import row_times, spike_rows


class AccelOnlyLog:
    def __init__(self, seed, script, rate, duration, start_epoch, uptime0):
        self.rng = rng = random.Random(seed)
        self.script = script
        self.wrist = Wrist(rng, script, pivot=(0.0, 0.03), pitch0=-0.07, yaw0=0.62)
        self.sens = Sensors(rng, self.wrist)
        self.times = row_times(rng, rate, duration)
        self.spikes = spike_rows(self.times, [(ts, v[:1]) for ts, v in script.spikes])
        self.start_epoch = start_epoch
        self.uptime0 = uptime0

    def rows(self):
        rng = self.rng
        e0, u0 = self.start_epoch, self.uptime0
        for i, t in enumerate(self.times):
            wall = e0 + t + 0.0009 + abs(rng.gauss(0.0, 0.0007))
            yield t, "%s,%.6f,%s" % (CLOCK.iso(wall), u0 + t,
                                     self.sens.accel_str(t, self.spikes.get(i)))
