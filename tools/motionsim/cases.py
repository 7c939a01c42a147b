"""The simulator's named cases. Each builds a trajectory and the sensors that sample it.

BROAD-like trials (after the BROAD benchmark's trial types: rest at start and end, then
rotation, translation, combined, tapping, vibration), everyday handling, a table-tennis watch,
and hard cases. Every case is deterministic: its random generator is seeded from its name.
"""
import zlib

import numpy as np

from .sim import G, Sensors, Timeline, qexp, qmul, random_unit, tilt_quat

CASES = {}


def case(name, rate, duration, tags=(), about=""):
    def deco(fn):
        CASES[name] = dict(name=name, rate=rate, duration=duration, tags=list(tags), about=about, build=fn)
        return fn
    return deco


def seed(name):
    return zlib.crc32(name.encode())


def scale_peak(w, peak):
    m = np.max(np.linalg.norm(w, axis=1))
    return w * (peak / m) if m > 0 else w


def tremor(tl, env, rms=0.03):
    tl.w += tl.bandnoise(3, 1.0, 8.0, rms) * env[:, None]


def horizontal(rng):
    a = rng.uniform(0, 2 * np.pi)
    return np.array([np.cos(a), np.sin(a), 0.0])


# ---------------------------------------------------------------- BROAD-like trials

REST = 8.0   # seconds of rest at start and end, as in BROAD's trials


def broad(kind, rate):
    name = f"broad-{kind}-{rate:g}hz"
    about = {
        "slow-rot": "slow rotation, up to about 2 rad/s",
        "fast-rot": "fast rotation, peaks of 20 rad/s",
        "slow-trans": "slow translation, 0.15 G, slow attitude drift",
        "fast-trans": "back-and-forth translation, 1 G at 1 Hz, 2 G at 2.5 Hz, 3 G at 4 Hz, attitude drifting",
        "combined": "fast rotation (12 rad/s) and 1 G translation together",
        "tapping": "taps of 3-8 G, 5-15 ms, on a slowly tilted device",
        "vibration": "25-40 Hz vibration, 0.5 G and 0.3 rad/s, slow tilts",
    }[kind]

    @case(name, rate, 60.0, tags=["broad"], about=about)
    def build(rng, kind=kind):
        d = 60.0
        tl = Timeline(d, rng)
        env = tl.envelope(REST, d - REST, ramp=1.0)
        if kind == "slow-rot":
            tl.w += scale_peak(tl.bandnoise(3, 0.05, 0.8, 1.0), 2.0) * env[:, None]
        elif kind == "fast-rot":
            tl.w += scale_peak(tl.bandnoise(3, 0.2, 3.0, 1.0) * env[:, None], 20.0)
            tl.a += tl.bandnoise(3, 0.3, 3.0, 0.1 * G) * env[:, None]
        elif kind == "slow-trans":
            tl.w += tl.bandnoise(3, 0.02, 0.3, 0.08) * env[:, None]
            tl.a += tl.bandnoise(3, 0.2, 1.5, 0.15 * G) * env[:, None] * np.array([1, 1, 0.5])
        elif kind == "fast-trans":
            tl.w += tl.bandnoise(3, 0.02, 0.3, 0.1) * env[:, None]
            t0 = REST + 1
            for amp, f, dur in ((1.0, 1.0, 12.0), (2.0, 2.5, 14.0), (3.0, 4.0, 10.0)):
                e = tl.envelope(t0, t0 + dur, ramp=1.0)
                tl.a += (amp * G * np.sin(2 * np.pi * f * (tl.t - t0)) * e)[:, None] * horizontal(rng)
                t0 += dur + 1.5
        elif kind == "combined":
            tl.w += scale_peak(tl.bandnoise(3, 0.2, 2.5, 1.0) * env[:, None], 12.0)
            tl.a += tl.bandnoise(3, 0.5, 3.0, 0.6 * G) * env[:, None]
        elif kind == "tapping":
            tl.w += tl.bandnoise(3, 0.02, 0.3, 0.1) * env[:, None]
            t = REST + 1
            while t < d - REST - 1:
                v = np.array([0, 0, 1.0]) + 0.4 * random_unit(rng)
                tl.pulse(t, rng.uniform(0.005, 0.015), rng.uniform(3, 8) * G * v / np.linalg.norm(v))
                tl.w += np.where(tl.envelope(t, t + 0.04, ramp=0.02) > 0, 1, 0)[:, None] * (0.5 * random_unit(rng))
                t += rng.uniform(0.5, 1.0)
        elif kind == "vibration":
            tl.w += tl.bandnoise(3, 0.02, 0.3, 0.1) * env[:, None]
            tl.a += tl.bandnoise(3, 25, 40, 0.5 * G) * env[:, None]
            tl.w += tl.bandnoise(3, 25, 40, 0.3) * env[:, None]
        q0 = tilt_quat(rng.uniform(-30, 30), rng.uniform(-30, 30), rng.uniform(0, 360))
        return tl, q0, Sensors(rate)


for _rate in (95, 32):
    for _kind in ("slow-rot", "fast-rot", "slow-trans", "fast-trans", "combined", "tapping", "vibration"):
        broad(_kind, _rate)


# ---------------------------------------------------------------- anchor check

@case("still-tilted-50hz", 50, 20.0, tags=["check"],
      about="still device at roll 35 deg, pitch -25 deg: every filter must match truth within 1 deg")
def still_tilted(rng):
    tl = Timeline(20.0, rng)
    return tl, tilt_quat(35, -25, 70), Sensors(50)


# ---------------------------------------------------------------- everyday

def handling(tl, rng, t0, t1, moves_per_s=0.4, max_angle=90.0):
    """Picking up, reading, turning to landscape, putting down: turns between poses."""
    t = t0
    while t < t1 - 2:
        dur = rng.uniform(0.5, 1.5)
        ang = np.radians(rng.uniform(20, max_angle)) * rng.choice([-1, 1])
        axis = rng.choice([0, 1, 2], p=[0.45, 0.35, 0.2])
        ax = np.zeros(3)
        ax[axis] = 1
        ax += 0.2 * random_unit(rng)
        tl.rotate(t, t + dur, ax, ang)
        tl.push(t, t + dur, random_unit(rng), rng.uniform(0.1, 0.5) * G)
        t += dur + rng.exponential(1.0 / moves_per_s)


@case("everyday-phone-30hz", 30, 90.0, tags=["everyday"],
      about="phone picked up, read, turned to landscape, tilted, put down; hand tremor")
def everyday_phone(rng):
    tl = Timeline(90.0, rng)
    env = tl.envelope(5, 85, ramp=0.5)
    handling(tl, rng, 6, 84)
    tremor(tl, env)
    tl.a += tl.bandnoise(3, 0.5, 5.0, 0.03 * G) * env[:, None]
    return tl, tilt_quat(0, 0, 30), Sensors(30)


@case("everyday-walk-16.8hz", 16.8, 90.0, tags=["everyday"],
      about="walking with the phone in hand in front (pitched 40 deg), 1.9 steps/s")
def everyday_walk(rng):
    d = 90.0
    tl = Timeline(d, rng)
    env = tl.envelope(5, d - 5, ramp=1.5)
    f = 1.9
    ph = 2 * np.pi * f * tl.t
    # attitude: pitch nod at the step rate, roll sway at half of it, slow hand drift
    tl.w[:, 0] += np.radians(4) * 2 * np.pi * f * np.cos(ph) * env
    tl.w[:, 1] += np.radians(3) * np.pi * f * np.cos(ph / 2 + 0.3) * env
    tl.w += tl.bandnoise(3, 0.05, 0.5, 0.12) * env[:, None]
    tremor(tl, env, 0.05)
    # body bounce: vertical 0.35 G at the step rate and its harmonic, lateral at half
    heading = horizontal(rng)
    side = np.array([-heading[1], heading[0], 0])
    vert = (0.35 * np.sin(ph) + 0.1 * np.sin(2 * ph + 1.0)) * G * env
    fore = 0.15 * np.sin(ph + 0.7) * G * env
    lat = 0.12 * np.sin(ph / 2) * G * env
    tl.a += vert[:, None] * np.array([0, 0, 1.0]) + fore[:, None] * heading + lat[:, None] * side
    tl.a += tl.bandnoise(3, 0.5, 6.0, 0.05 * G) * env[:, None]
    return tl, tilt_quat(5, 40, 0), Sensors(16.8)


def strokes(tl, rng, t0, t1, gap=(1.5, 2.5), rest_between=0.0):
    """Table-tennis-like forehand strokes: a fast turn about the forearm and a swing, then back."""
    t = t0
    n = 0
    while t < t1 - 1.5:
        dur = rng.uniform(0.15, 0.22)
        ang = np.radians(rng.uniform(70, 110))
        ax = np.array([1.0, 0.3, 0.2]) + 0.3 * random_unit(rng)
        tl.rotate(t, t + dur, ax, ang)
        tl.push(t - 0.05, t + dur + 0.05, horizontal(rng) + np.array([0, 0, 0.3]), rng.uniform(3, 5) * G)
        back = rng.uniform(0.5, 0.8)
        tl.rotate(t + dur + 0.1, t + dur + 0.1 + back, ax, -ang * rng.uniform(0.85, 1.0))
        tl.push(t + dur + 0.1, t + dur + 0.1 + back, horizontal(rng), rng.uniform(0.3, 0.8) * G)
        t += rng.uniform(*gap) + rest_between
        n += 1
    return n


@case("watch-tabletennis-28.6hz", 28.6, 90.0, tags=["watch"],
      about="watch on the wrist, forehand strokes (70-110 deg in 0.15-0.22 s, 3-5 G swing) every 2 s")
def watch_tt(rng):
    d = 90.0
    tl = Timeline(d, rng)
    env = tl.envelope(5, d - 5, ramp=0.5)
    strokes(tl, rng, 6, d - 6)
    tl.w += tl.bandnoise(3, 0.1, 1.0, 0.3) * env[:, None]
    tremor(tl, env, 0.05)
    return tl, tilt_quat(-70, 10, 0), Sensors(28.6, accel_range=16.0)


# ---------------------------------------------------------------- hard cases

@case("hard-gyro-saturated-28.6hz", 28.6, 90.0, tags=["hard"],
      about="watch strokes faster than the gyro's range: rotation rate clipped at 500 deg/s (8.7 rad/s)")
def gyro_saturated(rng):
    d = 90.0
    tl = Timeline(d, rng)
    env = tl.envelope(5, d - 5, ramp=0.5)
    strokes(tl, rng, 6, d - 6)
    tremor(tl, env, 0.05)
    return tl, tilt_quat(-70, 10, 0), Sensors(28.6, accel_range=16.0, gyro_range=np.radians(500))



def fast_rotation(name, rate, deg_per_sample, gyro_average=False):
    @case(name, rate, 60.0, tags=["hard"],
          about=f"bursts of fast rotation, peaks {deg_per_sample:g} deg between samples"
                + (", gyro samples = mean rate over the interval" if gyro_average else ""))
    def build(rng):
        d = 60.0
        tl = Timeline(d, rng)
        env = sum(tl.envelope(t0, t0 + 12, ramp=1.0) for t0 in (6, 22, 38))
        peak = np.radians(deg_per_sample) * rate
        tl.w += scale_peak(tl.bandnoise(3, 0.2, 2.0, 1.0) * env[:, None], peak)
        tl.a += tl.bandnoise(3, 0.5, 3.0, 0.2 * G) * env[:, None]
        return tl, tilt_quat(20, -10, 0), Sensors(rate, gyro_average=gyro_average)


fast_rotation("hard-fastrot-17hz", 17, 40)
fast_rotation("hard-fastrot-32hz", 32, 40)
fast_rotation("hard-fastrot-32hz-meangyro", 32, 40, gyro_average=True)


@case("hard-spikes-clip-50hz", 50, 60.0, tags=["hard"],
      about="6-10 G knocks of 10-30 ms every second, accelerometer clipped at 8 G, slow tilting")
def spikes(rng):
    d = 60.0
    tl = Timeline(d, rng)
    env = tl.envelope(5, d - 5)
    tl.w += scale_peak(tl.bandnoise(3, 0.05, 0.5, 1.0), 1.5) * env[:, None]
    t = 6.0
    while t < d - 6:
        tl.pulse(t, rng.uniform(0.01, 0.03), rng.uniform(6, 10) * G * random_unit(rng))
        t += rng.uniform(0.7, 1.3)
    return tl, tilt_quat(-15, 25, 0), Sensors(50, accel_range=8.0)


@case("hard-accel-late-30hz", 30, 60.0, tags=["hard"],
      about="each row's accelerometer sample taken and stamped one sample (33 ms) after its gyro sample")
def accel_late(rng):
    d = 60.0
    tl = Timeline(d, rng)
    env = tl.envelope(5, d - 5)
    handling(tl, rng, 6, d - 6, moves_per_s=0.8, max_angle=120)
    tremor(tl, env)
    return tl, tilt_quat(10, 30, 0), Sensors(30, accel_delay_samples=1)


@case("hard-dup-reorder-50hz", 50, 60.0, tags=["hard"],
      about="2% of rows written twice, 1% of adjacent rows swapped (timestamps go back)")
def dup_reorder(rng):
    d = 60.0
    tl = Timeline(d, rng)
    env = tl.envelope(5, d - 5)
    handling(tl, rng, 6, d - 6, moves_per_s=0.8, max_angle=120)
    tremor(tl, env)
    return tl, tilt_quat(-20, 15, 0), Sensors(50, duplicates=0.02, reorders=0.01)


@case("hard-still-strokes-28.6hz", 28.6, 90.0, tags=["hard"],
      about="watch strokes with 10 s of stillness between them, gyro bias 0.5 deg/s")
def still_strokes(rng):
    d = 90.0
    tl = Timeline(d, rng)
    strokes(tl, rng, 6, d - 6, gap=(1.0, 1.0), rest_between=10.0)
    return tl, tilt_quat(-60, 5, 0), Sensors(28.6, gyro_bias=np.radians([0.5, -0.4, 0.3]))


@case("hard-gyro-bias-50hz", 50, 90.0, tags=["hard"],
      about="gyro bias 0.5-2 deg/s per axis, drifting, continuous handling without rest")
def gyro_bias(rng):
    d = 90.0
    tl = Timeline(d, rng)
    env = tl.envelope(5, d - 5)
    handling(tl, rng, 6, d - 6, moves_per_s=1.0, max_angle=100)
    tl.w += tl.bandnoise(3, 0.05, 0.5, 0.15) * env[:, None]
    tremor(tl, env)
    bias = np.radians([1.5, -2.0, 0.8])[None, :] + np.radians(0.5) * np.sin(2 * np.pi * tl.t / 60)[:, None]
    return tl, tilt_quat(25, -20, 0), Sensors(50, gyro_bias=bias)


@case("hard-motion-rate-only-30hz", 30, 60.0, tags=["hard"],
      about="no raw gyro columns: only motionRotationRate (Core Motion's bias-corrected rate)")
def motion_rate_only(rng):
    d = 60.0
    tl = Timeline(d, rng)
    env = tl.envelope(5, d - 5)
    handling(tl, rng, 6, d - 6, moves_per_s=0.8, max_angle=120)
    tremor(tl, env)
    return tl, tilt_quat(-5, 35, 0), Sensors(30, raw_gyro=False)


def build_case(name):
    c = CASES[name]
    rng = np.random.default_rng(seed(name))
    tl, q0, sensors = c["build"](rng)
    return tl, np.asarray(q0, float).reshape(4), sensors, rng
