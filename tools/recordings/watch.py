"""The Apple Watch log with a sample-and-hold motion group
(watch-sweeps.csv, --big --watch)."""

import random
from bisect import bisect_left

from .common import CLOCK
from .physics import Sensors, Wrist
from .timing import row_times, spike_rows


class WatchLog:
    def __init__(self, seed, script, rate, motion_rate, duration, start_epoch, uptime0,
                 spikes=None):
        self.rng = rng = random.Random(seed)
        self.script = script
        # the watch sits on the forearm 0.22 m from the elbow: the gesture is
        # raising/lowering the hand, a rotation about the watch's Y axis
        self.wrist = Wrist(rng, script, pivot=(0.22, 0.03), pitch0=0.05, yaw0=-1.31)
        self.sens = Sensors(rng, self.wrist, acc_noise=0.008, acc_bias=(-0.0044, 0.0021, 0.0036))
        self.times = row_times(rng, rate, duration)
        # motion samples run on their own clock, a little ahead of the rows
        self.mtimes = row_times(rng, motion_rate, duration + 0.1)
        self.mtimes = [m - 0.012 for m in self.mtimes]
        self.spikes = spike_rows(self.times, script.spikes if spikes is None else spikes)
        self.start_epoch = start_epoch
        self.uptime0 = uptime0
        e0, u0 = start_epoch, uptime0
        self.loc = "null,null,null,null,null,null,null,null"
        self.activity = ",".join([
            "%.6f" % (u0 - 508.119304), "stationary", "2", CLOCK.iso(e0 - 508.1193)])
        self.pedometer = ",".join([
            CLOCK.iso(e0 - 7702.871), "2719", "1934.6", "2", "1", CLOCK.iso(e0 - 402.338)])
        self.battery = "%.6f,1,0.67,0" % (e0 - 301.77214)
        self.repeats = 0

    def rows(self):
        rng = self.rng
        s = self.sens
        e0, u0 = self.start_epoch, self.uptime0
        iso = CLOCK.iso
        mt = self.mtimes
        mi = -1
        motion = ""
        alt_t = -1.0
        alt = ""
        rel, pres = -0.00731, 100.8688
        spikes = self.spikes
        self.repeats = 0
        for i, t in enumerate(self.times):
            # latest motion sample delivered before this row
            k = bisect_left(mt, t - 0.001) - 1
            if k < 0:
                k = 0
            if k != mi:
                mi = k
                tmo = mt[k]
                motion = "%.6f,%s" % (u0 + tmo, s.motion_str(tmo, "XArbitraryZVertical", False))
            else:
                self.repeats += 1
            if t - alt_t >= 1.0:
                alt_t = t
                rel += rng.gauss(0.0, 0.004)
                pres += rng.gauss(0.0, 0.00004)
                alt = "%.6f,0,%.7g,%.7g" % (u0 + t - 0.47, rel, pres)
            wall = e0 + t + 0.0019 + abs(rng.gauss(0.0, 0.0012))
            line = "%s,%s,%.6f,%s,%s,%s,%s,%s,%s" % (
                iso(wall), self.loc, u0 + t, s.accel_str(t, spikes.get(i)),
                motion, self.activity, self.pedometer, alt, self.battery)
            yield t, line
