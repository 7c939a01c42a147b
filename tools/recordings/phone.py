"""The 82-column iPhone SensorLog log (wrist-wah-phone.csv, --big)."""

import math
import random

from .common import CLOCK, f32, fmt3_f32
from .physics import Sensors, Wrist
from .timing import row_times, spike_rows


class PhoneLog:
    """Rows of an 82-column iPhone SensorLog file."""

    def __init__(self, seed, script, rate, duration, start_epoch, uptime0,
                 device_id="SensorWah-iPhone", battery=0.83, spikes=None):
        self.rng = rng = random.Random(seed)
        self.script = script
        self.wrist = Wrist(rng, script, pivot=(0.0, 0.03), pitch0=-0.07, yaw0=0.62)
        self.sens = Sensors(rng, self.wrist)
        self.times = row_times(rng, rate, duration)
        self.spikes = spike_rows(self.times, script.spikes if spikes is None else spikes)
        self.start_epoch = start_epoch
        self.uptime0 = uptime0
        e0, u0 = start_epoch, uptime0
        self.loc = ",".join([
            "%.6f" % (e0 - 41.318205), "50.94127183523318", "6.958493911442826",
            "54.21318", "-1", "-1", "-1", "-1", "3.842117", "35", "-9999"])
        self.activity = ",".join([
            "%.6f" % (u0 - 312.481516), "stationary", "2", CLOCK.iso(e0 - 312.4815)])
        self.pedometer = ",".join([
            CLOCK.iso(e0 - 7643.219), "2841", "0.794212", "0", "0", "2015.37", "2", "1",
            CLOCK.iso(e0 - 318.904)])
        self.ip = ",".join(["%.6f" % (e0 - 40.927113), "192.168.178.57", "null", device_id,
                            "%.6f" % (e0 - 35.211408), "5"])
        self.battery0 = battery
        self.battery_t = e0 - 120.402931
        self.alt_rel = 0.01213
        self.alt_p = 100.8734

    def rows(self, acc_override=None):
        """Yield (t, fields-as-one-string) for each row; acc_override maps
        row index -> accelerometer time to use instead of the row time."""
        rng = self.rng
        s = self.sens
        e0, u0 = self.start_epoch, self.uptime0
        iso = CLOCK.iso
        head_t = -1.0
        head = ""
        alt_t = -1.0
        alt = ""
        bat_level = self.battery0
        bat_t = self.battery_t
        next_bat = 240.0
        bat = "%.6f,1,%.2f,0" % (bat_t, bat_level)
        spikes = self.spikes
        for i, t in enumerate(self.times):
            ta = t if acc_override is None else acc_override.get(i, t)
            tg = t - 0.009931 + rng.gauss(0.0, 2e-5)
            tm = t - 0.022152 + rng.gauss(0.0, 2e-5)
            tmo = t - 0.002483 + rng.gauss(0.0, 2e-5)
            spike = spikes.get(i)
            if t - head_t >= 0.2:             # heading updates about 5 Hz
                head_t = t
                hx, hy, hz, th, mh = s.heading(t)
                head = "%.6f,%s,%.16g,%.16g,%.16g" % (
                    e0 + t - 0.0062, fmt3_f32(hx, hy, hz), f32(th), f32(mh),
                    f32(14.7 + 1.3 * math.sin(0.05 * t)))
            if t - alt_t >= 1.0:              # altimeter about 1 Hz
                alt_t = t
                self.alt_rel += rng.gauss(0.0, 0.004)
                self.alt_p += rng.gauss(0.0, 0.00004)
                alt = "%.6f,0,%.7g,%.7g" % (u0 + t - 0.31, self.alt_rel, self.alt_p)
            if t >= next_bat:                 # battery drains 1 % per 4 minutes
                next_bat += 240.0
                bat_level -= 0.01
                bat = "%.6f,1,%.2f,0" % (e0 + t - 0.5, bat_level)
            wall = e0 + t + 0.0011 + abs(rng.gauss(0.0, 0.0008))
            line = "%s,%d,%s,%s,%.6f,%s,%.6f,%s,%.6f,%s,%.6f,%s,%s,%s,%s,%s,%s" % (
                iso(wall), i + 1, self.loc, head,
                u0 + ta, s.accel_str(ta, spike),
                u0 + tg, s.gyro_str(tg),
                u0 + tm, s.mag_str(tm),
                u0 + tmo, s.motion_str(tmo, "XArbitraryCorrectedZVertical", True, spike),
                self.activity, self.pedometer, alt, self.ip, bat)
            yield t, line
