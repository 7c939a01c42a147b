"""The gesture script: wrist tilt over time, and the scripted performances."""

import math
from bisect import bisect_left

from .common import DEG, TWO_PI


def rest(dur):
    return ("rest", dur)


def hold(dur):
    return ("hold", dur)


def sweep(dur, to_deg):
    return ("sweep", dur, to_deg)


def wah(dur, freq, amp_deg):
    return ("wah", dur, freq, amp_deg)


class Script:
    """Wrist tilt (rad) as a function of time, built from consecutive steps.

    rest/hold keep the current angle (rest is only used at 0 deg), sweep moves
    to a new angle with a minimum-jerk profile (zero velocity and
    acceleration at both ends), wah oscillates around the current angle with
    a 0.25 s raised-cosine fade in and out.
    """

    def __init__(self, steps, spikes=(), loop=False):
        self.segs = []
        t, ang = 0.0, 0.0
        for st in steps:
            kind, dur = st[0], float(st[1])
            t0, t1 = t, round(t + dur, 6)
            if kind in ("rest", "hold"):
                self.segs.append((t0, t1, kind, ang, ang, 0.0, 0.0))
            elif kind == "sweep":
                to = st[2] * DEG
                self.segs.append((t0, t1, kind, ang, to, 0.0, 0.0))
                ang = to
            elif kind == "wah":
                self.segs.append((t0, t1, kind, ang, ang, st[2], st[3] * DEG))
            else:
                raise ValueError(kind)
            t = t1
        self.duration = t
        self.starts = [s[0] for s in self.segs]
        self.spikes = list(spikes)      # (time s, (x values in G, one per row))
        self.loop = loop
        self.end_angle = ang

    def tilt(self, t):
        if self.loop:
            t = t % self.duration
        elif t >= self.duration:
            return self.end_angle
        if t < 0.0:
            return self.segs[0][3]
        i = bisect_left(self.starts, t)
        if i == len(self.starts) or self.starts[i] > t:
            i -= 1
        t0, t1, kind, a, b, f, amp = self.segs[i]
        if kind == "sweep":
            u = (t - t0) / (t1 - t0)
            return a + (b - a) * (u * u * u * (10.0 + u * (-15.0 + 6.0 * u)))
        if kind == "wah":
            u = t - t0
            span = t1 - t0
            fade = min(0.25, span / 4.0)
            if u < fade:
                env = 0.5 - 0.5 * math.cos(math.pi * u / fade)
            elif u > span - fade:
                env = 0.5 - 0.5 * math.cos(math.pi * (span - u) / fade)
            else:
                env = 1.0
            # a human wah is not a perfect sine: slow 8 % amplitude wobble
            env *= 1.0 + 0.08 * math.sin(TWO_PI * 0.4 * u)
            return a + amp * env * math.sin(TWO_PI * f * u)
        return a

    def describe(self):
        """[(t0, t1, text)] with neighbouring rest/hold merged."""
        out = []
        for t0, t1, kind, a, b, f, amp in self.segs:
            if kind in ("rest", "hold"):
                if abs(a) < 1e-9:
                    text = "rest (tilt 0°)"
                else:
                    text = "hold at %+.0f°" % (a / DEG)
            elif kind == "sweep":
                speed = "fast" if t1 - t0 < 0.5 else ("medium" if t1 - t0 < 1.5 else "slow")
                text = "%s sweep %+.0f° → %+.0f° (%.2f s)" % (speed, a / DEG, b / DEG, t1 - t0)
            else:
                text = "wah-wah %g Hz, ±%.0f° around %+.0f° (%d cycles)" % (
                    f, amp / DEG, a / DEG, round(f * (t1 - t0)))
            if out and out[-1][2] == text and kind in ("rest", "hold"):
                out[-1] = (out[-1][0], t1, text)
            else:
                out.append((t0, t1, text))
        return out


# The demo performance (phone demo and accelerometer-only file). It is kept
# short so that the 82-column 100 Hz file stays under 1.5 MB.
# Times in seconds from the first row; angles in degrees; +tilt = toe.
DEMO_STEPS = [
    rest(1.0),                                   # 0.00 - 1.00   (knock 1)
    sweep(2.0, +60), hold(0.3),                  # 1.00 - 3.30   slow rest -> toe
    sweep(2.5, -60), hold(0.3),                  # 3.30 - 6.10   slow toe -> heel (knock 2)
    sweep(0.30, +55), hold(0.4),                 # 6.10 - 6.80   fast heel -> toe
    sweep(0.30, -55), hold(0.4),                 # 6.80 - 7.50   fast toe -> heel
    sweep(0.35, 0),                              # 7.50 - 7.85   fast back to centre
    rest(0.9),                                   # 7.85 - 8.75   (knock 3, two samples)
    wah(3.2, 2.5, 30),                           # 8.75 - 11.95  rhythmic wah, 8 cycles
    rest(0.6),                                   # 11.95 - 12.55
]
DEMO_SPIKES = [
    (0.50, (3.625,)),                  # single-sample knock at rest
    (4.55, (3.875,)),                  # single-sample knock in the middle of a slow sweep
    (8.30, (-3.40625, 3.0625)),        # two-sample knock at rest
]

# A longer, more varied performance (60 s), looped for --big logs.
LONG_STEPS = [
    rest(4.0),
    sweep(3.0, +60), hold(1.0),
    sweep(3.5, -60), hold(1.0),
    sweep(2.5, 0),
    rest(3.0),                                   # (knock at 16.5)
    sweep(0.30, +55), hold(1.0),
    sweep(0.30, -55), hold(1.0),
    sweep(0.25, +50), hold(0.5),
    sweep(0.35, 0),
    rest(3.3),
    wah(5.0, 3.0, 25),                           # 25 - 30
    rest(3.0),                                   # (two-sample knock at 31.5)
    sweep(2.0, +30), wah(4.0, 2.0, 25), sweep(2.0, 0),   # 33 - 41 (knock at 40.0)
    rest(3.0),
    wah(4.0, 4.0, 15),                           # 44 - 48
    rest(2.0),
    sweep(3.0, -60), hold(1.0), sweep(0.30, +60), hold(1.0), sweep(2.7, 0),
    rest(2.0),                                   # 58 - 60
]
LONG_SPIKES = [
    (16.5, (3.625,)),
    (31.5, (-3.40625, 3.0625)),
    (40.0, (3.875,)),
]

WATCH_STEPS = [
    rest(2.0),
    sweep(3.0, +55), hold(1.0),
    sweep(3.5, -50), hold(1.0),
    sweep(2.5, 0),
    rest(2.0),                                   # (knock)
    sweep(2.0, +40),
    sweep(0.7, -30), hold(0.9),                  # medium-speed sweep
    sweep(0.7, +45), hold(1.0),
    sweep(3.0, -55), hold(1.0),
    sweep(3.0, 0),
    rest(2.7),
]
WATCH_SPIKES = [
    (14.0, (3.4765625,)),
]

QUIRK_STEPS = [
    rest(0.5),
    sweep(2.5, +50), hold(1.0),                  # 0.5 - 4.0 (logging pauses 4.0 - 7.0)
    sweep(1.0, -25), hold(1.5),                  # 4.0 - 6.5 happens during the gap
    hold(1.0),                                   # 6.5 - 7.5
    wah(2.0, 2.0, 25),                           # 7.5 - 9.5
    sweep(0.5, 0),                               # 9.5 - 10.0
]
