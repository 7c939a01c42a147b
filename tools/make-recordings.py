#!/usr/bin/env python3
"""Generate synthetic SensorLog-style demo recordings for SensorWah.

The logs imitate what the SensorLog app writes (CSV, `name(unit)` header,
`null` tokens, ISO-8601 loggingTime, `*_sinceReboot(s)` timestamps) for a
device worn on the wrist while the performer plays a "wah" with the forearm.
The motion is simulated from a gesture script with a small physical model
(gravity, rotation rate, centripetal/tangential acceleration, tremor, sensor
noise and bias), so every column group agrees with every other one.

Usage:
  tools/make-recordings.py                  regenerate every file in Recordings/
  tools/make-recordings.py --outdir DIR     the same, written into DIR
  tools/make-recordings.py --big OUT.csv --minutes N [--watch]
                                            a long 100 Hz log for benchmarks
                                            (not meant to be committed)

Standard library only. Output is deterministic: the same command writes the
same bytes on the same platform.
"""

import argparse
import math
import os
import random
import struct
import sys
import time
from bisect import bisect_left
from datetime import datetime, timedelta, timezone

SEED = 4711
G0 = 9.80665                  # m/s^2 per G
DEG = math.pi / 180.0
TZ_HOURS = 1                  # loggingTime offset: +01:00
TWO_PI = 2.0 * math.pi

# ---------------------------------------------------------------------------
# Headers
# ---------------------------------------------------------------------------

# Column names as the SensorLog app writes them on an iPhone (82 columns).
PHONE_HEADER = (
    "loggingTime(txt),loggingSample(N),locationTimestamp_since1970(s),"
    "locationLatitude(WGS84),locationLongitude(WGS84),locationAltitude(m),"
    "locationSpeed(m/s),locationSpeedAccuracy(m/s),locationCourse(°),"
    "locationCourseAccuracy(°),locationVerticalAccuracy(m),"
    "locationHorizontalAccuracy(m),locationFloor(Z),"
    "locationHeadingTimestamp_since1970(s),locationHeadingX(µT),"
    "locationHeadingY(µT),locationHeadingZ(µT),locationTrueHeading(°),"
    "locationMagneticHeading(°),locationHeadingAccuracy(°),"
    "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
    "accelerometerAccelerationY(G),accelerometerAccelerationZ(G),"
    "gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),gyroRotationY(rad/s),"
    "gyroRotationZ(rad/s),magnetometerTimestamp_sinceReboot(s),"
    "magnetometerX(µT),magnetometerY(µT),magnetometerZ(µT),"
    "motionTimestamp_sinceReboot(s),motionYaw(rad),motionRoll(rad),"
    "motionPitch(rad),motionRotationRateX(rad/s),motionRotationRateY(rad/s),"
    "motionRotationRateZ(rad/s),motionUserAccelerationX(G),"
    "motionUserAccelerationY(G),motionUserAccelerationZ(G),"
    "motionAttitudeReferenceFrame(txt),motionQuaternionX(R),"
    "motionQuaternionY(R),motionQuaternionZ(R),motionQuaternionW(R),"
    "motionGravityX(G),motionGravityY(G),motionGravityZ(G),"
    "motionMagneticFieldX(µT),motionMagneticFieldY(µT),"
    "motionMagneticFieldZ(µT),motionHeading(°),"
    "motionMagneticFieldCalibrationAccuracy(Z),"
    "activityTimestamp_sinceReboot(s),activity(txt),"
    "activityActivityConfidence(Z),activityActivityStartDate(txt),"
    "pedometerStartDate(txt),pedometerNumberofSteps(N),"
    "pedometerAverageActivePace(s/m),pedometerCurrentPace(s/m),"
    "pedometerCurrentCadence(steps/s),pedometerDistance(m),"
    "pedometerFloorAscended(N),pedometerFloorDescended(N),"
    "pedometerEndDate(txt),altimeterTimestamp_sinceReboot(s),"
    "altimeterReset(bool),altimeterRelativeAltitude(m),altimeterPressure(kPa),"
    "IP_Timestamp_since1970(s),IP_en0(txt),IP_pdp_ip0(txt),deviceID(txt),"
    "deviceOrientationTimeStamp_since1970(s),deviceOrientation(Z),"
    "batteryTimeStamp_since1970(s),batteryState(R),batteryLevel(Z),label(N)"
)

# A plausible Apple Watch header: no loggingSample, no raw gyro, no raw
# magnetometer, no heading/IP/device columns; battery state tagged (N).
WATCH_HEADER = (
    "loggingTime(txt),locationTimestamp_since1970(s),"
    "locationLatitude(WGS84),locationLongitude(WGS84),locationAltitude(m),"
    "locationSpeed(m/s),locationCourse(°),locationVerticalAccuracy(m),"
    "locationHorizontalAccuracy(m),"
    "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
    "accelerometerAccelerationY(G),accelerometerAccelerationZ(G),"
    "motionTimestamp_sinceReboot(s),motionYaw(rad),motionRoll(rad),"
    "motionPitch(rad),motionRotationRateX(rad/s),motionRotationRateY(rad/s),"
    "motionRotationRateZ(rad/s),motionUserAccelerationX(G),"
    "motionUserAccelerationY(G),motionUserAccelerationZ(G),"
    "motionAttitudeReferenceFrame(txt),motionQuaternionX(R),"
    "motionQuaternionY(R),motionQuaternionZ(R),motionQuaternionW(R),"
    "motionGravityX(G),motionGravityY(G),motionGravityZ(G),"
    "motionMagneticFieldX(µT),motionMagneticFieldY(µT),"
    "motionMagneticFieldZ(µT),motionHeading(°),"
    "motionMagneticFieldCalibrationAccuracy(Z),"
    "activityTimestamp_sinceReboot(s),activity(txt),"
    "activityActivityConfidence(Z),activityActivityStartDate(txt),"
    "pedometerStartDate(txt),pedometerNumberofSteps(N),pedometerDistance(m),"
    "pedometerFloorAscended(N),pedometerFloorDescended(N),"
    "pedometerEndDate(txt),altimeterTimestamp_sinceReboot(s),"
    "altimeterReset(bool),altimeterRelativeAltitude(m),altimeterPressure(kPa),"
    "batteryTimeStamp_since1970(s),batteryState(N),batteryLevel(Z),label(N)"
)

ACCEL_ONLY_HEADER = (
    "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),"
    "accelerometerAccelerationX(G),accelerometerAccelerationY(G),"
    "accelerometerAccelerationZ(G)"
)

PHONE_COLS = PHONE_HEADER.split(",")
WATCH_COLS = WATCH_HEADER.split(",")
assert len(PHONE_COLS) == 82, len(PHONE_COLS)

# ---------------------------------------------------------------------------
# Number and time formatting
# ---------------------------------------------------------------------------

_F1 = struct.Struct("<f")
_F3 = struct.Struct("<3f")


def f32(x):
    """Round a double to the nearest float32 value."""
    return _F1.unpack(_F1.pack(x))[0]


def fmt3_f32(a, b, c):
    """Three float32 values printed like the app (%.16g of the double)."""
    return "%.16g,%.16g,%.16g" % _F3.unpack(_F3.pack(a, b, c))


ACC_LSB = 1.0 / 65536.0       # iPhone accelerometer values are multiples of 2^-16 G


def qacc(x):
    return round(x * 65536.0) * ACC_LSB


class WallClock:
    """ISO-8601 local time with milliseconds and a fixed UTC offset."""

    def __init__(self, hours=TZ_HOURS):
        self.off_ms = hours * 3600000
        sign = "+" if hours >= 0 else "-"
        self.suffix = "%s%02d:00" % (sign, abs(hours))
        self.dates = {}

    def iso(self, epoch):
        ms = int(math.floor(epoch * 1000.0)) + self.off_ms
        day, msd = divmod(ms, 86400000)
        date = self.dates.get(day)
        if date is None:
            date = (datetime(1970, 1, 1) + timedelta(days=day)).strftime("%Y-%m-%d")
            self.dates[day] = date
        h, rem = divmod(msd, 3600000)
        m, rem = divmod(rem, 60000)
        s, mss = divmod(rem, 1000)
        return "%sT%02d:%02d:%02d.%03d%s" % (date, h, m, s, mss, self.suffix)


CLOCK = WallClock()


def epoch_of(y, mo, d, h, mi, s, ms):
    tz = timezone(timedelta(hours=TZ_HOURS))
    return datetime(y, mo, d, h, mi, s, ms * 1000, tzinfo=tz).timestamp()


# ---------------------------------------------------------------------------
# Gesture scripts
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# Physical model of the wrist and the sensors
# ---------------------------------------------------------------------------

class Wrist:
    """Attitude of the device and the acceleration it feels.

    Device frame as in Core Motion. Attitude: R = Rz(yaw) Rx(pitch) Ry(roll)
    (device to world, world Z up). The performance tilt is the roll, a
    rotation about the device Y axis, so gravity moves between Z and X:
        gravity = (cos(pitch) sin(roll), -sin(pitch), -cos(pitch) cos(roll))
    The device sits at `pivot` = (px, pz) metres from the rotation axis,
    which adds tangential and centripetal acceleration during fast moves.
    """

    def __init__(self, rng, script, pivot, pitch0, yaw0):
        self.script = script
        self.px, self.pz = pivot
        self.pitch0, self.yaw0 = pitch0, yaw0

        def osc(amp, f):
            return (amp, TWO_PI * f, rng.uniform(0.0, TWO_PI))

        # physiological tremor (8-12 Hz) and slow postural sway
        self.r_osc = [osc(0.0005, 8.7), osc(0.0004, 10.9), osc(0.012, 0.13), osc(0.006, 0.41)]
        self.p_osc = [osc(0.0004, 9.3), osc(0.015, 0.11), osc(0.008, 0.37)]
        self.y_osc = [osc(0.0003, 9.9), osc(0.03, 0.05), osc(0.012, 0.19)]
        # small translation of the whole arm (m/s^2)
        self.a_osc = [[osc(0.05, 0.7), osc(0.035, 1.9)] for _ in range(3)]
        # slowly wandering attitude-estimate error of the sensor fusion (rad)
        self.e_osc = [osc(0.0015, 0.07) for _ in range(3)]

    def angles(self, t):
        (a1, w1, p1), (a2, w2, p2), (a3, w3, p3), (a4, w4, p4) = self.r_osc
        tilt = self.script.tilt(t)
        roll = (tilt + a1 * math.sin(w1 * t + p1) + a2 * math.sin(w2 * t + p2)
                + a3 * math.sin(w3 * t + p3) + a4 * math.sin(w4 * t + p4))
        (b1, v1, q1), (b2, v2, q2), (b3, v3, q3) = self.p_osc
        # rolling the forearm lifts the hand a little: slight pitch coupling
        pitch = (self.pitch0 + 0.04 * tilt + b1 * math.sin(v1 * t + q1)
                 + b2 * math.sin(v2 * t + q2) + b3 * math.sin(v3 * t + q3))
        (c1, u1, r1), (c2, u2, r2), (c3, u3, r3) = self.y_osc
        yaw = (self.yaw0 + c1 * math.sin(u1 * t + r1) + c2 * math.sin(u2 * t + r2)
               + c3 * math.sin(u3 * t + r3))
        return roll, pitch, yaw, tilt

    def state(self, t):
        """True attitude, body rotation rate (rad/s) and user acceleration
        (G, Core Motion sign: raw accelerometer = gravity + user)."""
        h = 5e-4
        r0, p0, y0, k0 = self.angles(t - h)
        r1, p1, y1, k1 = self.angles(t)
        r2, p2, y2, k2 = self.angles(t + h)
        dr = (r2 - r0) / (2 * h)
        dp = (p2 - p0) / (2 * h)
        dy = (y2 - y0) / (2 * h)
        # the lever-arm accelerations come from the gesture itself; tremor
        # is a rotation of the hand/wrist, not of the whole forearm
        dk = (k2 - k0) / (2 * h)
        ddk = (k2 - 2.0 * k1 + k0) / (h * h)
        sr, cr = math.sin(r1), math.cos(r1)
        sp, cp = math.sin(p1), math.cos(p1)
        wx = cr * dp - sr * cp * dy
        wy = dr + sp * dy
        wz = sr * dp + cr * cp * dy
        ax_, ay_, az_ = self.a_osc
        (e1, f1, g1), (e2, f2, g2) = ax_
        arm_x = e1 * math.sin(f1 * t + g1) + e2 * math.sin(f2 * t + g2)
        (e1, f1, g1), (e2, f2, g2) = ay_
        arm_y = e1 * math.sin(f1 * t + g1) + e2 * math.sin(f2 * t + g2) + 0.003 * ddk
        (e1, f1, g1), (e2, f2, g2) = az_
        arm_z = e1 * math.sin(f1 * t + g1) + e2 * math.sin(f2 * t + g2)
        w2 = dk * dk
        kin_x = ddk * self.pz - w2 * self.px + arm_x
        kin_z = -ddk * self.px - w2 * self.pz + arm_z
        # an accelerometer reports minus the specific force; Core Motion's
        # userAcceleration therefore has the opposite sign of the kinematic one
        ux, uy, uz = -kin_x / G0, -arm_y / G0, -kin_z / G0
        return r1, p1, y1, wx, wy, wz, ux, uy, uz

    def estimate_error(self, t):
        (a1, w1, p1), (a2, w2, p2), (a3, w3, p3) = self.e_osc
        return a1 * math.sin(w1 * t + p1), a2 * math.sin(w2 * t + p2), a3 * math.sin(w3 * t + p3)


def gravity(roll, pitch):
    sr, cr = math.sin(roll), math.cos(roll)
    sp, cp = math.sin(pitch), math.cos(pitch)
    return cp * sr, -sp, -cp * cr


def world_to_device(v, roll, pitch, yaw):
    """R^T v for R = Rz(yaw) Rx(pitch) Ry(roll)."""
    x, y, z = v
    sy, cy = math.sin(yaw), math.cos(yaw)
    x, y = cy * x + sy * y, -sy * x + cy * y
    sp, cp = math.sin(pitch), math.cos(pitch)
    y, z = cp * y + sp * z, -sp * y + cp * z
    sr, cr = math.sin(roll), math.cos(roll)
    x, z = cr * x - sr * z, sr * x + cr * z
    return x, y, z


def quaternion(roll, pitch, yaw):
    """(x, y, z, w) of qz(yaw) * qx(pitch) * qy(roll)."""
    sz, cz = math.sin(yaw / 2), math.cos(yaw / 2)
    sx, cx = math.sin(pitch / 2), math.cos(pitch / 2)
    sy, cy = math.sin(roll / 2), math.cos(roll / 2)
    return (cz * sx * cy - sz * cx * sy,
            cz * cx * sy + sz * sx * cy,
            cz * sx * sy + sz * cx * cy,
            cz * cx * cy - sz * sx * sy)


# Earth field, central Europe (about 49 uT, inclination 66 deg), in the
# arbitrary-X world frame.
B_WORLD = (19.9 * math.cos(1.1), 19.9 * math.sin(1.1), -44.8)


class Sensors:
    """Noisy sensor readings from a Wrist."""

    def __init__(self, rng, wrist, acc_noise=0.0065, acc_bias=(0.0031, -0.0042, 0.0057),
                 gyro_noise=0.009, gyro_bias=(0.0042, -0.0061, 0.0023),
                 hard_iron=(-23.41, 41.87, -112.6)):
        self.rng = rng
        self.w = wrist
        self.acc_noise, self.acc_bias = acc_noise, acc_bias
        self.gyro_noise, self.gyro_bias = gyro_noise, gyro_bias
        self.hard_iron = hard_iron

    def accel(self, t):
        """(x, y, z) raw accelerometer in G (not yet quantised)."""
        r, p, y, wx, wy, wz, ux, uy, uz = self.w.state(t)
        gx, gy, gz = gravity(r, p)
        g = self.rng.gauss
        n = self.acc_noise
        bx, by, bz = self.acc_bias
        return (gx + ux + bx + g(0.0, n), gy + uy + by + g(0.0, n), gz + uz + bz + g(0.0, n))

    def accel_str(self, t, spike=None):
        x, y, z = self.accel(t)
        if spike is not None:
            x = spike
        return "%.16g,%.16g,%.16g" % (qacc(x), qacc(y), qacc(z))

    def gyro_str(self, t):
        r, p, y, wx, wy, wz, ux, uy, uz = self.w.state(t)
        g = self.rng.gauss
        n = self.gyro_noise
        bx, by, bz = self.gyro_bias
        return fmt3_f32(wx + bx + g(0.0, n), wy + by + g(0.0, n), wz + bz + g(0.0, n))

    def mag_str(self, t):
        r, p, y, _ = self.w.angles(t)
        bx, by, bz = world_to_device(B_WORLD, r, p, y)
        hx, hy, hz = self.hard_iron
        g = self.rng.gauss
        return fmt3_f32(bx + hx + g(0.0, 0.35), by + hy + g(0.0, 0.35), bz + hz + g(0.0, 0.35))

    def heading(self, t):
        """(calibrated field x, y, z, true heading, magnetic heading) for locationHeading*."""
        r, p, y, _ = self.w.angles(t)
        bx, by, bz = world_to_device(B_WORLD, r, p, y)
        g = self.rng.gauss
        mag_heading = (212.4 - y / DEG + g(0.0, 0.3)) % 360.0
        return (bx + g(0.0, 0.25), by + g(0.0, 0.25), bz + g(0.0, 0.25),
                (mag_heading + 3.1) % 360.0, mag_heading)

    def motion_str(self, t, frame, with_field, spike=None):
        """The 22 motion fields after motionTimestamp (yaw ... calibration)."""
        r, p, y, wx, wy, wz, ux, uy, uz = self.w.state(t)
        er, ep, ey = self.w.estimate_error(t)
        gx, gy, gz = gravity(r, p)
        re, pe, ye = r + er, p + ep, y + ey
        ye = (ye + math.pi) % TWO_PI - math.pi
        gex, gey, gez = gravity(re, pe)
        g = self.rng.gauss
        # user acceleration = measured acceleration - estimated gravity
        uax = gx + ux - gex + g(0.0, 0.0055)
        uay = gy + uy - gey + g(0.0, 0.0055)
        uaz = gz + uz - gez + g(0.0, 0.0055)
        if spike is not None:
            uax = spike - gex
        qx, qy, qz, qw = quaternion(re, pe, ye)
        if with_field:
            bx, by, bz = world_to_device(B_WORLD, r, p, y)
            field = fmt3_f32(bx + g(0.0, 0.2), by + g(0.0, 0.2), bz + g(0.0, 0.2)) + ",-1,2"
        else:
            field = "0,0,0,-1,-1"
        return "%.16g,%.16g,%.16g,%s,%s,%s,%.16g,%.16g,%.16g,%.16g,%s,%s" % (
            ye, re, pe,
            fmt3_f32(wx + g(0.0, 0.003), wy + g(0.0, 0.003), wz + g(0.0, 0.003)),
            fmt3_f32(uax, uay, uaz),
            frame, qx, qy, qz, qw,
            fmt3_f32(gex, gey, gez),
            field)


# ---------------------------------------------------------------------------
# Row timing
# ---------------------------------------------------------------------------

def row_times(rng, rate, duration):
    """Jittered sample times in [0, duration): period 1/rate, about 1.5 % jitter."""
    period = 1.0 / rate
    out = []
    t = 0.0
    lo, hi = 0.95 * period, 1.05 * period
    while t < duration - 1e-9:
        out.append(t)
        d = period + rng.gauss(0.0, 0.015 * period)
        t += min(hi, max(lo, d))
    return out


def spike_rows(times, spikes):
    """Map (time, values) to {row index: x value}: the first row at/after time."""
    out = {}
    for ts, values in spikes:
        i = bisect_left(times, ts)
        for k, v in enumerate(values):
            out[i + k] = v
    return out


def repeat_spikes(spikes, period, total):
    """Spike list repeated for a looped script."""
    out = []
    k = 0
    while k * period < total:
        out.extend((ts + k * period, v) for ts, v in spikes if ts + k * period < total)
        k += 1
    return out


# ---------------------------------------------------------------------------
# iPhone 82-column log
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# Apple Watch log (sample-and-hold motion group)
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# Accelerometer-only log (5 columns)
# ---------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------

def write_lines(path, header, lines, eol="\n"):
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(header + eol)
        buf = []
        for line in lines:
            buf.append(line)
            if len(buf) >= 2000:
                f.write(eol.join(buf) + eol)
                n += len(buf)
                buf = []
        if buf:
            f.write(eol.join(buf) + eol)
            n += len(buf)
    return n


# --- the quirks file -------------------------------------------------------

QUIRKS = {
    "warmup_rows": (1, 2, 3),          # gyro* and motion* groups are `null`
    "gap_after_row": None,             # set by make_quirks: last row before the 3 s gap
    "extra_field_rows": (120, 121, 450),
    "missing_field_rows": (180, 520, 640),
    "empty_alt_rows": tuple(range(200, 211)),
    "empty_acc_row": 300,
    "null_acc_row": 301,
    "backwards_acc_row": 500,
    "dup_time_row": 601,
}

PED_START = PHONE_COLS.index("pedometerStartDate(txt)")
PED_END = PHONE_COLS.index("pedometerEndDate(txt)")
ALT_START = PHONE_COLS.index("altimeterTimestamp_sinceReboot(s)")
BAT_STATE = PHONE_COLS.index("batteryState(R)")
GYRO_START = PHONE_COLS.index("gyroTimestamp_sinceReboot(s)")
GYRO_END = PHONE_COLS.index("gyroRotationZ(rad/s)")
MOTION_START = PHONE_COLS.index("motionTimestamp_sinceReboot(s)")
MOTION_END = PHONE_COLS.index("motionMagneticFieldCalibrationAccuracy(Z)")
ACC_TS = PHONE_COLS.index("accelerometerTimestamp_sinceReboot(s)")


def make_quirks(seed, start_epoch, uptime0):
    q = QUIRKS
    script = Script(QUIRK_STEPS)
    log = PhoneLog(seed, script, 100.0, script.duration, start_epoch, uptime0,
                   battery=0.41, spikes=[])
    # drop the rows logged while the app was paused (t in [4.0, 7.0))
    gap_t0, gap_t1 = 4.0, 7.0
    keep = [t for t in log.times if t < gap_t0 or t >= gap_t1]
    log.times = keep
    q["gap_after_row"] = len([t for t in keep if t < gap_t0])
    # one accelerometer sample arrives with an older timestamp
    b = q["backwards_acc_row"] - 1                    # 0-based
    acc_override = {b: log.times[b - 1] - 0.0043}
    rows = []
    prev_time = None
    for i, (t, line) in enumerate(log.rows(acc_override)):
        n = i + 1                                       # 1-based data row
        f = line.split(",")
        assert len(f) == 82
        f[PED_START:PED_END + 1] = ["null"] * (PED_END - PED_START + 1)
        if n in q["warmup_rows"]:
            f[GYRO_START:GYRO_END + 1] = ["null"] * 4
            f[MOTION_START:MOTION_END + 1] = ["null"] * (MOTION_END - MOTION_START + 1)
        if n in q["empty_alt_rows"]:
            f[ALT_START:ALT_START + 4] = [""] * 4
        if n == q["empty_acc_row"]:
            f[ACC_TS + 1:ACC_TS + 4] = ["", "", ""]
        if n == q["null_acc_row"]:
            f[ACC_TS + 1:ACC_TS + 4] = ["null", "null", "null"]
        if n == q["dup_time_row"]:
            f[0] = prev_time
        prev_time = f[0]
        if n in q["missing_field_rows"]:
            del f[BAT_STATE]                            # batteryState value missing
        if n in q["extra_field_rows"]:
            f.insert(PED_END + 1, "null")               # one null too many after pedometer
        rows.append(",".join(f))
    return log, rows


# ---------------------------------------------------------------------------
# Recordings/ and its README
# ---------------------------------------------------------------------------

PHONE_START = epoch_of(2025, 1, 23, 20, 14, 5, 317)
WATCH_START = epoch_of(2025, 1, 23, 20, 31, 48, 902)
ACCEL_START = epoch_of(2025, 1, 23, 20, 22, 37, 640)
QUIRK_START = epoch_of(2025, 1, 23, 19, 58, 12, 45)
PHONE_UPTIME = 81234.123456
WATCH_UPTIME = 53871.402318
ACCEL_UPTIME = 81746.450912
QUIRK_UPTIME = 80280.861207


def fmt_range(t0, t1):
    return "%.2f–%.2f" % (t0, t1)


def read_x(path, spike_idx=()):
    """[(t, accelerometerAccelerationX)] read back from a written file,
    without knock rows and rows whose X is empty or null."""
    out = []
    with open(path, encoding="utf-8", newline="") as f:
        head = f.readline().rstrip("\r\n").split(",")
        names = [c.split("(")[0] for c in head]
        its = names.index("accelerometerTimestamp_sinceReboot")
        ix = names.index("accelerometerAccelerationX")
        t0 = None
        for i, line in enumerate(f):
            fields = line.rstrip("\r\n").split(",")
            if t0 is None:
                t0 = float(fields[its])
            if i in spike_idx or fields[ix] in ("", "null"):
                continue
            out.append((float(fields[its]) - t0, float(fields[ix])))
    return out


def gesture_table(script, samples):
    if samples is None:
        lines = ["| t (s) | gesture |", "|---|---|"]
        lines += ["| %s | %s |" % (fmt_range(t0, t1), text) for t0, t1, text in script.describe()]
        return "\n".join(lines)
    lines = ["| t (s) | gesture | rows | X min (G) | X max (G) |", "|---|---|---|---|---|"]
    for t0, t1, text in script.describe():
        xs = [x for t, x in samples if t0 <= t < t1]
        if xs:
            lines.append("| %s | %s | %d | %+.3f | %+.3f |" % (
                fmt_range(t0, t1), text, len(xs), min(xs), max(xs)))
        else:
            lines.append("| %s | %s | 0 | | |" % (fmt_range(t0, t1), text))
    return "\n".join(lines)


def max_abs_acc(path, spike_idx):
    """Largest |accelerometer component| outside the knock rows."""
    m = 0.0
    with open(path, encoding="utf-8", newline="") as f:
        names = [c.split("(")[0] for c in f.readline().rstrip("\r\n").split(",")]
        ix = names.index("accelerometerAccelerationX")
        for i, line in enumerate(f):
            if i in spike_idx:
                continue
            fields = line.rstrip("\r\n").split(",")
            for v in fields[ix:ix + 3]:
                if v not in ("", "null"):
                    m = max(m, abs(float(v)))
    return m


def spike_table(log, spikes_by_row, uptime0):
    lines = ["| data row | accelerometerTimestamp_sinceReboot | t (s) | accelerometerAccelerationX (G) |",
             "|---|---|---|---|"]
    for i in sorted(spikes_by_row):
        t = log.times[i]
        lines.append("| %d | %.6f | %.3f | %.16g |" % (i + 1, uptime0 + t, t, qacc(spikes_by_row[i])))
    return "\n".join(lines)


def file_size(path):
    return os.path.getsize(path)


def human(n):
    return "%.0f kB" % (n / 1000.0) if n < 1e6 else "%.2f MB" % (n / 1e6)


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


def render_readme(info):
    phone, pn, psize, ppath = info["phone"]
    watch, wn, wsize, wpath = info["watch"]
    acc, an, asize, apath = info["accel"]
    qlog, qn, qsize, qpath = info["quirks"]
    q = QUIRKS

    def dur(log):
        return log.times[-1] - log.times[0]

    gap_i = q["gap_after_row"]                  # 1-based row before the gap
    gap = qlog.times[gap_i] - qlog.times[gap_i - 1]
    b = q["backwards_acc_row"]
    back_prev = qlog.uptime0 + qlog.times[b - 2]
    back_ts = back_prev - 0.0043
    qn_total = len(qlog.times)
    n_extra = len(q["extra_field_rows"])
    n_missing = len(q["missing_field_rows"])

    return README_TEMPLATE.format(
        phone_rows=pn, phone_size=human(psize), phone_dur="%.2f" % dur(phone),
        watch_rows=wn, watch_size=human(wsize), watch_dur="%.2f" % dur(watch),
        watch_repeats=watch.repeats, watch_cols=len(WATCH_COLS),
        acc_rows=an, acc_size=human(asize), acc_dur="%.2f" % dur(acc),
        q_rows=qn, q_size=human(qsize), q_dur="%.2f" % dur(qlog),
        phone_uptime="%.6f" % PHONE_UPTIME, watch_uptime="%.6f" % WATCH_UPTIME,
        acc_uptime="%.6f" % ACCEL_UPTIME, q_uptime="%.6f" % QUIRK_UPTIME,
        main_gestures=gesture_table(phone.script, read_x(ppath, phone.spikes)),
        phone_max="%.2f" % max_abs_acc(ppath, phone.spikes),
        acc_max="%.2f" % max_abs_acc(apath, acc.spikes),
        watch_max="%.2f" % max_abs_acc(wpath, watch.spikes),
        long_gestures=gesture_table(Script(LONG_STEPS), None),
        long_spikes=", ".join("%.2f s (%s)" % (t, " then ".join("%g G" % v for v in vals))
                              for t, vals in LONG_SPIKES),
        long_dur="%.0f" % Script(LONG_STEPS).duration,
        demo_dur="%.2f" % phone.script.duration,
        phone_spikes=spike_table(phone, phone.spikes, PHONE_UPTIME),
        acc_spikes=spike_table(acc, acc.spikes, ACCEL_UPTIME),
        watch_gestures=gesture_table(watch.script, read_x(wpath, watch.spikes)),
        acc_gestures=gesture_table(acc.script, read_x(apath, acc.spikes)),
        watch_spikes=spike_table(watch, watch.spikes, WATCH_UPTIME),
        quirk_gestures=gesture_table(qlog.script, read_x(qpath)),
        q_warm=", ".join(map(str, q["warmup_rows"])),
        q_gap_row=gap_i, q_gap_next=gap_i + 1, q_gap="%.6f" % gap,
        q_gap_t0="%.6f" % (qlog.uptime0 + qlog.times[gap_i - 1]),
        q_gap_t1="%.6f" % (qlog.uptime0 + qlog.times[gap_i]),
        q_extra=", ".join(map(str, q["extra_field_rows"])), q_n_extra=n_extra,
        q_missing=", ".join(map(str, q["missing_field_rows"])), q_n_missing=n_missing,
        q_n_ok=qn_total - n_extra - n_missing,
        q_alt="%d–%d" % (q["empty_alt_rows"][0], q["empty_alt_rows"][-1]),
        q_n_alt=len(q["empty_alt_rows"]),
        q_empty_acc=q["empty_acc_row"], q_null_acc=q["null_acc_row"],
        q_back=b, q_back_prev=b - 1, q_back_ts="%.6f" % back_ts, q_back_prev_ts="%.6f" % back_prev,
        q_dup=q["dup_time_row"], q_dup_prev=q["dup_time_row"] - 1,
        q_ped0=PED_START, q_ped1=PED_END,
    )


README_TEMPLATE = """\
# Recordings

Synthetic demo logs in the SensorLog app's CSV format, made for SensorWah by
`tools/make-recordings.py`. No real device recorded them. A small physical
model of a forearm and its sensors (gravity, rotation rate, lever-arm
acceleration, tremor, arm sway, sensor noise and bias, attitude-estimate
error) follows a scripted wah performance. As a result the raw accelerometer,
gyroscope and magnetometer columns and the fused `motion*` columns agree with
each other the way real ones do.

Field recordings made by other people with real apps are **not** kept here.
They live outside the repository (in `../shared/field-recordings/` when that
folder exists) and must not be copied in.

The generator also writes this README, including every number in it. To
change it, edit `tools/make-recordings.py` and run the generator again.

## Files

| file | device / header | columns | rate | rows | duration | size | gestures | quirks |
|---|---|---|---|---|---|---|---|---|
| `wrist-wah-phone.csv` | iPhone, SensorLog 82-column header | 82 | 100 Hz | {phone_rows} | {phone_dur} s | {phone_size} | rest, slow sweeps, fast sweeps, 2.5 Hz wah-wah, 3 knocks | none (clean, LF); `IP_pdp_ip0` is `null` |
| `watch-sweeps.csv` | Apple Watch style header | {watch_cols} | rows 50 Hz, motion 30 Hz | {watch_rows} | {watch_dur} s | {watch_size} | slow and medium sweeps, 1 knock | motion group is sample-and-hold: {watch_repeats} of {watch_rows} rows repeat the previous motion sample; location columns are `null` |
| `accel-only-30hz.csv` | accelerometer only, 5 columns | 5 | 30 Hz | {acc_rows} | {acc_dur} s | {acc_size} | the same performance as `wrist-wah-phone.csv` | none |
| `phone-quirks.csv` | iPhone, 82-column header | 82 (some rows have 81 or 83) | 100 Hz | {q_rows} | {q_dur} s | {q_size} | slow sweep, hold, 2 Hz wah-wah | CRLF, wrong field counts, `null`/empty fields, 3 s gap, backwards timestamp, repeated loggingTime |

Rows are counted without the header, so "data row 1" is line 2 of the file.
Below, "t" means seconds since the first row's `accelerometerTimestamp_sinceReboot`,
so the first row of every file is at t = 0. The gesture tables give the
`accelerometerAccelerationX` range measured in each time range, with the knock
rows left out; the time ranges are half-open (t0 ≤ t < t1).

The demo performance is short ({demo_dur} s) so that the 82-column 100 Hz file stays
under 1.5 MB. An 82-column row takes about 1.2 kB, so a minute at 100 Hz would
be about 7 MB. A longer {long_dur}-second performance is available through
`--big` (see below).

## Axis convention (all files)

The performance tilt is a rotation about the device's **Y** axis, which is
Core Motion's *roll*. Gravity therefore moves between **Z** and **X**, and the
tilt shows mainly on `accelerometerAccelerationX`:

| position | tilt | accelerometerAccelerationX | accelerometerAccelerationZ |
|---|---|---|---|
| heel (fully back) | −60° | about −0.86 G | about −0.5 G |
| rest / centre | 0° | about 0 G (within ±0.04) | about −1 G |
| toe (fully forward) | +60° | about +0.87 G | about −0.5 G |

So the default mapping "accelerometer X → CC 11, channel 1" follows the wrist.
At rest X sits in the middle, and heel and toe reach about ±0.85 G.
`accelerometerAccelerationY` stays between about 0 and +0.14 G, because the
forearm is pitched a few degrees and the pitch changes slightly with the
tilt. The same rotation shows up in these columns:

- `gyroRotationY` and `motionRotationRateY` (rad/s, positive toward the toe);
- `motionRoll`, which equals the tilt in radians;
- `motionGravityX/Y/Z` = (cos p · sin r, −sin p, −cos p · cos r) for roll r and pitch p;
- `motionQuaternion` = q_z(yaw) · q_x(pitch) · q_y(roll), with either sign;
- `motionUserAcceleration` = raw acceleration − gravity.

Raw accelerometer values are multiples of 2^-16 G, as on an iPhone. The other
sensor values are float32 numbers printed with 16 significant digits, as the
app prints them. A few very small values therefore appear in exponent form,
for example `-3.0517578125e-05`.

How the devices are worn:

- **Phone:** strapped to the back of the forearm, screen up, with its long (Y)
  axis along the forearm. The performer rolls the forearm, and the phone's +X
  edge going down is "toe".
- **Watch:** its X axis lies along the forearm. The same mathematical gesture
  is therefore raising and lowering the hand from the elbow, and the hand
  going down is "toe".

**Lever-arm acceleration is real and it is in the data.** The phone sits
3 cm from the forearm's roll axis. A fast sweep adds up to about ±0.4 G of
tangential acceleration on X and about +0.5 G of centripetal acceleration on
Z, so X briefly reads up to about ±1.2 G. In a wah-wah the tangential term is
in phase with the tilt and enlarges the X swing by about 1 + (2πf)²·0.03 m / g:
×1.75 at 2.5 Hz, ×2.1 at 3 Hz, ×2.9 at 4 Hz. So a ±30° wah at 2.5 Hz swings X
by about ±0.95 G. The watch is 0.22 m from the elbow, and its medium-speed
sweeps add about 0.25 G on X and 0.3 G on Z. `motionGravityX` shows the pure
tilt without these terms.

## wrist-wah-phone.csv (the demo default)

An iPhone log: 82 columns, 100 Hz with about 1.5 % jitter in the period.
`*_sinceReboot` starts at {phone_uptime} and loggingTime at
2025-01-23T20:14:05.318+01:00. The magnetometer and `motion*` groups are fresh
in every row. `locationHeading*` updates at 5 Hz and `altimeter*` at 1 Hz.

{main_gestures}

The knocks affect one axis only: `accelerometerAccelerationX`, and
`motionUserAccelerationX` in the same rows. The gyroscope does not see them.

{phone_spikes}

Outside these rows, no accelerometer component exceeds {phone_max} G.

## watch-sweeps.csv

An Apple-Watch-style log with {watch_cols} columns. It differs from the phone format as
follows:

- there is no `loggingSample` column, no raw `gyroRotation*` and no raw
  `magnetometer*`; rotation rate comes only from `motionRotationRate*`;
- the battery state column is `batteryState(N)`;
- all location columns are `null`;
- `motionAttitudeReferenceFrame` is `XArbitraryZVertical`, the magnetic field
  is `0,0,0` and its calibration accuracy is `-1`.

Rows come at 50 Hz and the accelerometer is fresh in every row. The motion
group is sample-and-hold at 30 Hz: {watch_repeats} of {watch_rows} rows repeat the previous row's
motion fields exactly, `motionTimestamp_sinceReboot` included.
`*_sinceReboot` starts at {watch_uptime}.

{watch_gestures}

The knock is in the raw accelerometer only; the motion group does not see it.

{watch_spikes}

Outside this row, no accelerometer component exceeds {watch_max} G.

## accel-only-30hz.csv

The 5-column accelerometer-only variant
(`loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),accelerometerAccelerationY(G),accelerometerAccelerationZ(G)`)
at 30 Hz. It uses the **same gesture script** as `wrist-wah-phone.csv`: the same
time ranges, with independent noise. A mapper should therefore draw the same
CC curve at 30 Hz and at 100 Hz. The two-sample knock becomes a single sample
here. `*_sinceReboot` starts at {acc_uptime}.

{acc_gestures}

{acc_spikes}

Outside these rows, no accelerometer component exceeds {acc_max} G.

## phone-quirks.csv

A short iPhone log (82-column header) that collects the real-world problems a
parser must survive. **Every line ends in CRLF**, the header included.
`*_sinceReboot` starts at {q_uptime}. Of the {q_rows} data rows, {q_n_ok} have 82
fields, {q_n_extra} have 83 and {q_n_missing} have 81. In the rows with 81 or 83 fields,
columns 0–67 (everything up to `pedometerEndDate`, including all motion
columns) are still in place; only the tail after them is shifted.

| data rows | quirk |
|---|---|
| all | the pedometer columns (indices {q_ped0}–{q_ped1}) are `null` |
| {q_warm} | `gyroTimestamp`…`gyroRotationZ` and every `motion*` column (`motionTimestamp` … `motionMagneticFieldCalibrationAccuracy`) are `null`, because motion has not started yet; the accelerometer is valid |
| {q_extra} | **83 fields**: an extra `null` field right after `pedometerEndDate` |
| {q_missing} | **81 fields**: the `batteryState` value is missing, so the row ends `…,batteryTimeStamp,batteryLevel,label` |
| {q_alt} | the four `altimeter*` fields are empty (`,,,,`), {q_n_alt} rows |
| {q_empty_acc} | `accelerometerAccelerationX/Y/Z` are empty; the timestamp is present |
| {q_null_acc} | `accelerometerAccelerationX/Y/Z` are `null`; the timestamp is present |
| {q_gap_row} → {q_gap_next} | **gap**: every timestamp jumps by about 3 s (accelerometer {q_gap_t0} → {q_gap_t1}, Δ = {q_gap} s); the wrist moved during the gap (+50° before, −25° after) |
| {q_back} | **backwards accelerometer timestamp**: {q_back_ts}, which is 4.3 ms earlier than data row {q_back_prev} ({q_back_prev_ts}). Its values are measured at that time. All other timestamps and loggingTime stay in order, and the next row continues normally |
| {q_dup} | `loggingTime` is the same as in data row {q_dup_prev} (the sensor timestamps differ) |

Gestures, in script time; there are no rows for 4.00 ≤ t < 7.00:

{quirk_gestures}

## How they were made

    python3 tools/make-recordings.py

This rewrites every file in this folder. The output is the same, byte for
byte, on every run: the seed is fixed and no third-party packages are used.
On another platform a different math library could change the last printed
digit of some values; nothing else depends on the machine.

Long logs for benchmarks (not committed):

    python3 tools/make-recordings.py --big /tmp/big.csv --minutes 10
    python3 tools/make-recordings.py --big /tmp/big-watch.csv --minutes 10 --watch

The first command writes the iPhone format: 82 columns at 100 Hz. It loops a
{long_dur}-second performance with knocks at {long_spikes} in every loop.
Ten minutes is about 60,000 rows and 70 MB, and takes a few seconds to write.
`--minutes 1` gives exactly one pass of the longer performance:

{long_gestures}

The `--watch` variant uses the watch header with rows at 100 Hz and the motion
group at 50 Hz. It loops the `watch-sweeps.csv` script (about 42 MB for 10
minutes). The generator prints the row count and size of each file it writes.
"""


# ---------------------------------------------------------------------------
# Benchmark file
# ---------------------------------------------------------------------------

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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--outdir", help="where to write the demo files (default: Recordings/ next to tools/)")
    ap.add_argument("--big", metavar="OUT.csv", help="write one long benchmark log instead")
    ap.add_argument("--minutes", type=float, default=10.0, help="length of the --big log (default 10)")
    ap.add_argument("--watch", action="store_true", help="--big log with the watch header")
    args = ap.parse_args(argv)
    if args.big:
        if args.minutes <= 0:
            ap.error("--minutes must be positive")
        generate_big(args.big, args.minutes, args.watch)
        return 0
    if args.watch:
        ap.error("--watch only applies to --big")
    outdir = args.outdir or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                         "Recordings")
    info = generate_all(outdir)
    for key, name in (("phone", "wrist-wah-phone.csv"), ("watch", "watch-sweeps.csv"),
                      ("accel", "accel-only-30hz.csv"), ("quirks", "phone-quirks.csv")):
        log, n, size, _ = info[key]
        print("%-22s %6d rows  %7.2f s  %s" % (name, n, log.times[-1] - log.times[0], human(size)))
    print("README.md written to %s" % outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
