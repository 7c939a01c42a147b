"""Real labelled gesture sets by other people (../shared/dev-data, ../shared/field-recordings)
for tools/gesture-score --sets: read each set's own layout, write it as a SensorLog-layout CSV
into a temporary folder (never into the repository), run `sensorwah export --list-gestures` on
it, and score the product's flicks one-to-one against the labelled movements (the column
`sensorwah flick`), beside a plain |a| threshold baseline and the Python reference rule
(`AdaptiveFlick`: a fixed 1.5 G floor or half the player's recent strokes on | |a| - 1 G |),
whose player scale the default flick took up. `--diagnose` explains the product's misses with a
Python port of its flick (`ProductFlick`).

Sets (each take: accelerometer in G with Core Motion's sign, gyro in rad/s, times in s from 0):
  B1   boxing, phone in the punching hand, 100 Hz, one person, per-sample labels: a punch is a
       labelled run; a note matches it within the run widened by 0.5 s each side (never past
       halfway to the next run); its time (for latency) the run's largest | |a| - 1 G |
  B2   forearm IMU, 10 air gestures x 10 takes x 4 people (raw counts: 16384 = 1 G, the
       accelerometer clips at 2 G per axis; gyro 131 counts per deg/s, clips at 250 deg/s):
       every person's 100 takes joined into one stream (a 2 s still bridge between takes,
       the gravity direction turned smoothly across it, gyro consistent); one label per take
       spanning its movement (where the smoothed rotation rate passes 20 % of the take's peak)
  B3   boxing-glove IMU, 25 Hz, 13 people: planned punch count per session, counts compared
  FR   the Apple Watch forehand take (800 Hz, accelerometer only; its 7 largest impacts are the
       labels) and negatives: SensorLog iPhone walking excerpt, HyperIMU logs
  A1   negatives: phones carried by walking people swinging the arm, AR pointing, texting, and
       running with the phone in hand (reported apart: running is not among the movements that
       must stay silent)
"""
import csv
import glob
import math
import os
import re
import subprocess
import tempfile

import numpy as np

G = 9.80665
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
DEV = os.path.join(SHARED, "dev-data")
FIELD = os.path.join(SHARED, "field-recordings")

HEADER_A = ["accelerometerTimestamp_sinceReboot(s)", "accelerometerAccelerationX(G)",
            "accelerometerAccelerationY(G)", "accelerometerAccelerationZ(G)"]
HEADER_G = ["gyroTimestamp_sinceReboot(s)", "gyroRotationX(rad/s)", "gyroRotationY(rad/s)", "gyroRotationZ(rad/s)"]


class Take:
    """One stream: t (s, from 0), acc (N x 3, G, Core Motion sign, gravity included) or None,
    gyro (N x 3 rad/s on the same times) or None. labels: list of (time, lo, hi): a note at
    lo..hi matches it (one note per label, the nearest to time first); None for a take scored by
    count (expect) or a negative (expect 0)."""

    def __init__(self, set, person, name, t, acc, gyro, labels=None, expect=None, group="", split="test", tags=()):
        self.set, self.person, self.name = set, person, name
        self.t = np.asarray(t, float)
        self.acc = None if acc is None else np.asarray(acc, float)
        self.gyro = None if gyro is None else np.asarray(gyro, float)
        self.labels, self.expect, self.group, self.split = labels, expect, group, split
        self.tags = set_of(tags)

    @property
    def negative(self):
        return self.labels is None and self.expect == 0

    @property
    def duration(self):
        return float(self.t[-1] - self.t[0]) if len(self.t) else 0.0

    def __repr__(self):
        return "Take(%s/%s/%s, %d rows, %.1f s)" % (self.set, self.person, self.name, len(self.t), self.duration)


def set_of(x):
    return set(x) if not isinstance(x, str) else {x}


def peak_window(c, tol=0.5):
    return (c, c - tol, c + tol)


def clean_time(t, *arrays):
    """Drops rows whose time is not later than the previous kept row's."""
    keep = np.ones(len(t), bool)
    last = -np.inf
    for i, x in enumerate(t):
        if not np.isfinite(x) or x <= last:
            keep[i] = False
        else:
            last = x
    return (t[keep],) + tuple(None if a is None else a[keep] for a in arrays)


def deviation_accel_only(acc):
    """What the motion stage hands the gesture detector without a gyro: | |a| - 1 G |."""
    return np.abs(np.linalg.norm(acc, axis=1) - 1.0)


# ---------------------------------------------------------------- B1: boxing, phone in hand

B1_TEACH = ("fast", "slow")   # the single-class takes; the two mixed takes (all_left/right) are the test


def load_b1():
    d = os.path.join(DEV, "B1_boxing_phone_inhand_kharchenko")
    takes = []
    for path in sorted(glob.glob(os.path.join(d, "acc_gyr_experiment_*.csv"))):
        name = os.path.basename(path)[len("acc_gyr_experiment_"):-4]
        with open(path, newline="") as f:
            r = csv.reader(f)
            h = next(r)
            rows = list(r)
        ix = {k: h.index(k) for k in h}
        num = np.array([[float(row[ix[k]]) for k in ["seconds_elapsed", "accX", "accY", "accZ", "gyrX", "gyrY", "gyrZ"]]
                        for row in rows])
        lab = np.array([row[ix["label"]] != "NoActivity" for row in rows])
        t, num, lab = clean_time(num[:, 0], num, lab)
        t0 = t[0]
        t = t - t0
        acc = -num[:, 1:4] / G          # Android sign (+1 G up) -> Core Motion (-1 G up)
        gyro = num[:, 4:7]
        dev = deviation_accel_only(acc)
        runs = []
        i = 0
        n = len(lab)
        while i < n:
            if lab[i]:
                j = i
                while j + 1 < n and lab[j + 1]:
                    j += 1
                runs.append((i, j))
                i = j + 1
            else:
                i += 1
        # a punch: its labelled run widened by 0.5 s each side, but never past halfway to the
        # next run; its time the run's largest | |a| - 1 G |
        labels = []
        for r, (i, j) in enumerate(runs):
            k = i + int(np.argmax(dev[i:j + 1]))
            lo, hi = t[i] - 0.5, t[j] + 0.5
            if r > 0:
                lo = max(lo, (t[runs[r - 1][1]] + t[i]) / 2)
            if r + 1 < len(runs):
                hi = min(hi, (t[j] + t[runs[r + 1][0]]) / 2)
            labels.append((float(t[k]), float(lo), float(hi)))
        split = "teach" if name.endswith(B1_TEACH) else "test"
        takes.append(Take("B1", "kharchenko", name, t, acc, gyro, labels=labels, group=name.split("_")[0],
                          split=split))
    return takes


# ---------------------------------------------------------------- B2: forearm air gestures

B2_TEACH = ("subject_35", "subject_36")
B2_ACC_SCALE = 16384.0                 # counts per G (at rest |a| = 16.4k counts)
B2_GYRO_SCALE = 131.0 * 180 / math.pi  # counts per rad/s: 131 per deg/s (checked against the
                                       # accelerometer's turning: 125 per deg/s fitted)
B2_BRIDGE = 2.0                        # s of stillness between two joined takes


def _b2_take(path):
    d = np.genfromtxt(path, delimiter=",", skip_header=1, usecols=range(10))
    d = d[np.all(np.isfinite(d), axis=1)]
    # serial-framing glitches: all-zero rows, values beyond int16
    d = d[np.any(d[:, 0:3] != 0, axis=1) & np.all(np.abs(d[:, 0:6]) <= 32768, axis=1)]
    t = d[:, 9] / 1000.0
    if len(t) > 1 and t[1] - t[0] > 0.1:   # a stale first row from an earlier take
        d, t = d[1:], t[1:]
    t, d = clean_time(t, d)
    acc = -d[:, 0:3] / B2_ACC_SCALE        # MPU sign (+1 G up) -> Core Motion
    gyro = d[:, 3:6] / B2_GYRO_SCALE
    return t - t[0], acc, gyro


def slerp_bridge(a0, a1, dur, rate=100.0):
    """A still device turned smoothly from reading a0 to reading a1 over dur s (min-jerk, with
    a quarter of dur held at each end), with the gyro that turns it (du/dt = u x w, so w = du/dt x u)."""
    n = max(2, int(round(dur * rate)))
    tt = np.arange(1, n + 1) / rate
    u0, u1 = a0 / np.linalg.norm(a0), a1 / np.linalg.norm(a1)
    m0, m1 = np.linalg.norm(a0), np.linalg.norm(a1)
    ang = math.acos(max(-1.0, min(1.0, float(np.dot(u0, u1)))))
    s = np.clip((tt / dur - 0.25) / 0.5, 0, 1)
    ph = s ** 3 * (10 + s * (-15 + 6 * s))
    dph = np.where((s > 0) & (s < 1), 30 * s ** 2 * (1 - s) ** 2 / (0.5 * dur), 0.0)
    if ang < 1e-6:
        u = np.repeat(u0[None, :], n, 0)
        du = np.zeros((n, 3))
    else:
        so = math.sin(ang)
        u = (np.sin((1 - ph) * ang)[:, None] * u0 + np.sin(ph * ang)[:, None] * u1) / so
        du = ((-ang * np.cos((1 - ph) * ang))[:, None] * u0 + (ang * np.cos(ph * ang))[:, None] * u1) / so * dph[:, None]
    w = np.cross(du, u)
    mag = m0 + (m1 - m0) * ph
    return tt, u * mag[:, None], w


def _b2_movement(t, acc, gyro):
    """The take's movement: where the rotation rate (80 ms average) passes 20 % of its peak."""
    dt = np.median(np.diff(t))
    k = max(1, int(round(0.08 / dt)))
    r = np.convolve(np.linalg.norm(gyro, axis=1), np.ones(k) / k, "same")
    on = np.nonzero(r >= 0.2 * r.max())[0]
    lo, hi = t[on[0]], t[on[-1]]
    return float(t[int(np.argmax(r))]), float(lo), float(hi)


def load_b2(tol=0.5):
    d = os.path.join(DEV, "B2_gyronics_forearm_gestures")
    takes = []
    for sub in sorted(glob.glob(os.path.join(d, "subject_*"))):
        person = os.path.basename(sub)
        T, A, W, labels = [], [], [], []
        now = 0.0
        prev = None
        for gdir in sorted(glob.glob(os.path.join(sub, "*"))):
            if not os.path.isdir(gdir):
                continue
            gesture = os.path.basename(gdir)
            for k in range(10):
                t, acc, gyro = _b2_take(os.path.join(gdir, "%d.csv" % k))
                if prev is not None:
                    tb, ab, wb = slerp_bridge(prev, acc[0], B2_BRIDGE)
                    T.append(now + tb); A.append(ab); W.append(wb)
                    now += B2_BRIDGE
                c, lo, hi = _b2_movement(t, acc, gyro)
                labels.append((now + c, now + lo - tol, now + hi + tol, gesture))
                T.append(now + t); A.append(acc); W.append(gyro)
                now += t[-1]
                prev = acc[-1]
        t = np.concatenate(T)
        t, acc, gyro = clean_time(t, np.concatenate(A), np.concatenate(W))
        takes.append(Take("B2", person, person, t, acc, gyro, labels=[x[:3] for x in labels],
                          split="teach" if person in B2_TEACH else "test"))
        takes[-1].label_groups = [x[3] for x in labels]
    return takes


# ---------------------------------------------------------------- B3: boxing gloves, 25 Hz, counts

B3_TEACH = ("Aaron", "Adam", "David", "Egor", "Eric", "Flora")


def _metawear(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        next(r)
        rows = [row for row in r if len(row) >= 6]
    d = np.array([[float(row[0]), float(row[3]), float(row[4]), float(row[5])] for row in rows])
    return d[:, 0] / 1000.0, d[:, 1:4]


def load_b3():
    d = os.path.join(DEV, "B3_punchbuddy_glove_punches")
    takes = []
    with open(os.path.join(d, "sessions.csv"), newline="") as f:
        for s in csv.DictReader(f):
            ta, a = _metawear(os.path.join(d, s["session_dir"], s["acc_file"]))
            tg, w = _metawear(os.path.join(d, s["session_dir"], s["gyro_file"]))
            ta, a = clean_time(ta, a)
            tg, w = clean_time(tg, w)
            w = np.column_stack([np.interp(ta, tg, w[:, i]) for i in range(3)]) * math.pi / 180
            acc = -a   # MetaWear: +1 G up
            t0 = ta[0]
            name = "%s %s %s%s" % (s["class"], s["planned_count"], s["person"],
                                   (" combo " + s["combo_partner"]) if s["combo_partner"] else "")
            takes.append(Take("B3", s["person"], name, ta - t0, acc, w, expect=int(s["planned_count"]),
                              group=s["class"], split="teach" if s["person"] in B3_TEACH else "test"))
    return takes


# ---------------------------------------------------------------- field recordings, A1 negatives

def _headerless(path):
    rows = []
    with open(path) as f:
        for line in f:
            p = line.strip().split(",")
            if len(p) >= 4:
                try:
                    rows.append([float(x) for x in p[:4]])
                except ValueError:
                    pass
    d = np.array(rows)
    return d[:, 0], d[:, 1:4]


def _hyperimu(path):
    """HyperIMU: @ lines, optional header; accelerometer first (m/s^2, Android sign)."""
    rows, header = [], None
    with open(path) as f:
        for line in f:
            line = line.strip().rstrip("#")
            if not line or line.startswith("@"):
                continue
            p = line.split(",")
            try:
                rows.append([float(x) for x in p])
            except ValueError:
                header = p
    d = np.array(rows)
    return header, d


def load_field():
    takes = []
    t, a = _headerless(os.path.join(FIELD, "applewatch-tennis-forehand-7-shots-accel-800hz-headerless.csv"))
    t, a = clean_time(t, a)
    t = t - t[0]
    dev = deviation_accel_only(a)
    chosen = []
    for i in np.argsort(-dev):
        if all(abs(t[i] - c) >= 1.0 for c in chosen):
            chosen.append(t[i])
            if len(chosen) == 7:
                break
    takes.append(Take("FR", "applewatch", "tennis-forehand-7", t, a, None,
                      labels=[peak_window(x) for x in sorted(chosen)], split="test", tags=["accel-only"]))
    # SensorLog iPhone walking excerpt: its own columns (accelerometer and gyro)
    path = os.path.join(FIELD, "sensorlog-iphone-82col-waterways-excerpt.csv")
    from .compare import read_log
    cols, n = read_log(path)
    ta = cols["ta"]
    acc = np.column_stack([cols["ax"], cols["ay"], cols["az"]])
    gyro = np.column_stack([cols["gx"], cols["gy"], cols["gz"]])
    ok = np.isfinite(ta) & np.all(np.isfinite(acc), 1)
    ta, acc, gyro = ta[ok], acc[ok], gyro[ok]
    if not np.isfinite(gyro).all():
        gyro = None
    ta, acc, gyro = clean_time(ta, acc, gyro)
    takes.append(Take("FR", "sensorlog", "iphone-walking-excerpt", ta - ta[0], acc, gyro, expect=0, tags=["walking"]))
    # HyperIMU logs: accelerometer (+ gyro) in m/s^2, Android sign
    for fn, tag in [("hyperimu-2017-y-impulse.csv", "table-push"), ("hyperimu-2017-with-timestamp.csv", "hand-spin"),
                    ("hyperimu-2014-filetest.csv", "still")]:
        header, d = _hyperimu(os.path.join(FIELD, fn))
        if header and "timestamp" in header[0].lower():
            t = d[:, 0] / 1000.0
            vals = d[:, 1:]
            names = header[1:]
        else:
            t = None
            vals = d
            names = None
        # which triple is the accelerometer
        ai = 0
        if names:
            for i in range(0, len(names) - 2, 3):
                if "acc" in names[i].lower():
                    ai = i
                    break
        acc = -vals[:, ai:ai + 3] / G
        gyro = None
        if names:
            for i in range(0, len(names) - 2, 3):
                if "gyro" in names[i].lower():
                    gyro = vals[:, i:i + 3]
                    break
        if t is None:
            t = np.arange(len(acc)) * 0.1
        t, acc, gyro = clean_time(t, acc, gyro)
        takes.append(Take("FR", "hyperimu", fn[:-4], t - t[0], acc, gyro, expect=0, tags=[tag]))
    return takes


A1_TEACH_PEOPLE = ("Jakob", "Thibaud")   # by person: Guillaume's three trials are the test


def load_a1():
    d = os.path.join(DEV, "A1_tyrex_smartphone_qualisys")
    takes = []
    for trial in sorted(os.listdir(d)):
        p = os.path.join(d, trial)
        if not os.path.isdir(p):
            continue
        a = np.genfromtxt(os.path.join(p, "accelerometer.csv"), delimiter=",", skip_header=1)
        if "iPhone" in trial:
            g = np.genfromtxt(os.path.join(p, "gyroscope.csv"), delimiter=",", skip_header=1)
            acc = a[:, 1:4]                       # already G, iOS sign
        else:
            g = np.genfromtxt(os.path.join(p, "gyroscope_uncalibrated.csv"), delimiter=",", skip_header=1)
            g = np.column_stack([g[:, 0], g[:, 1:4] - g[:, 4:7]])
            acc = -a[:, 1:4] / G
        ta, acc = clean_time(a[:, 0], acc)
        tg, w = clean_time(g[:, 0], g[:, 1:4])
        w = np.column_stack([np.interp(ta, tg, w[:, i]) for i in range(3)])
        motion = trial.split("_")[-1]
        tags = {"Swinging": "walking", "RunningHand": "running", "AR": "still", "Texting": "still"}[motion]
        takes.append(Take("A1", trial.split("_")[0], trial, ta - ta[0], acc, w, expect=0, group=motion,
                          split="teach" if trial.split("_")[0] in A1_TEACH_PEOPLE else "test", tags=[tags]))
    return takes


def load_sim(folder):
    """tools/gesture-sim's labelled takes (written with --layout sensorlog): strokes at 17-800 Hz
    and the negatives (walking, wrist turns, putting the phone down, tilts, strumming)."""
    import json
    from .compare import read_log
    takes = []
    for m in json.load(open(os.path.join(folder, "manifest.json"))):
        cols, n = read_log(os.path.join(folder, m["path"]))
        t = cols["ta"]
        acc = np.column_stack([cols["ax"], cols["ay"], cols["az"]])
        gyro = np.column_stack([cols["gx"], cols["gy"], cols["gz"]])
        if not np.isfinite(gyro).all():
            gyro = None
        t, acc, gyro = clean_time(t, acc, gyro)
        neg = m["kind"] == "negatives"
        takes.append(Take("SIM", m["kind"], m["take"], t - t[0], acc, gyro,
                          labels=None if neg else [peak_window(x) for x in m["labels"]], expect=0 if neg else None,
                          group=m["kind"], split="test", tags=["sim", "%dHz" % m["rate"]] + (["walking"] if neg else [])))
    return takes


LOADERS = {"B1": load_b1, "B2": load_b2, "B3": load_b3, "FR": load_field, "A1": load_a1}


def load(sets):
    out = []
    for s in sets:
        out += LOADERS[s]()
    return out


# ---------------------------------------------------------------- the product: SensorLog CSV, sensorwah export

def write_sensorlog(take, path, gyro=True):
    """SensorLog-layout CSV (the header names compare.read_log uses), accelerometer in G with
    Core Motion's sign, gyro in rad/s; gyro=False leaves the gyro columns out."""
    base = 1000.0   # seconds since reboot
    use_gyro = gyro and take.gyro is not None
    cols = []
    header = []
    if take.acc is not None:
        header += HEADER_A
        cols += [base + take.t, take.acc[:, 0], take.acc[:, 1], take.acc[:, 2]]
    if use_gyro:
        header += HEADER_G
        cols += [base + take.t, take.gyro[:, 0], take.gyro[:, 1], take.gyro[:, 2]]
    data = np.column_stack(cols)
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        np.savetxt(f, data, fmt="%.6f", delimiter=",")


def find_binary(explicit=None):
    if explicit:
        return explicit
    found = [os.path.join(ROOT, d, "release", "sensorwah") for d in [".build-static", ".build"]]
    found += [os.path.join(ROOT, ".build", "debug", "sensorwah")]
    found = [p for p in found if os.path.exists(p)]
    if not found:
        raise SystemExit("gesture-score: no sensorwah binary (tools/setup builds .build-static/release/sensorwah)")
    return max(found, key=os.path.getmtime)


def run_binary(binary, take, gyro=True, extra=(), workdir=None, gesture="flick"):
    """Times (s since the take's first sample) of the gestures `sensorwah export --list-gestures` lists."""
    own = workdir is None
    wd = workdir or tempfile.mkdtemp(prefix="gesturesets-")
    path = os.path.join(wd, "take.csv")
    try:
        write_sensorlog(take, path, gyro=gyro)
        r = subprocess.run([binary, "export", path, "--list-gestures"] + list(extra), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("sensorwah export failed on %s: %s" % (take, r.stderr))
        out = []
        for line in r.stdout.splitlines()[1:]:
            tt, g, s = line.split(",")
            if g == gesture:
                out.append(float(tt))
        return np.array(out)
    finally:
        if os.path.exists(path):
            os.remove(path)
        if own:
            os.rmdir(wd)


# ---------------------------------------------------------------- scoring

def match(labels, notes):
    """One-to-one: each label (in time order) takes the nearest unused note within its window."""
    notes = sorted(notes)
    used = [False] * len(notes)
    lat = []
    missed = []
    for c, lo, hi in sorted(labels):
        best = None
        for j, x in enumerate(notes):
            if used[j] or x < lo or x > hi:
                continue
            if best is None or abs(x - c) < abs(notes[best] - c):
                best = j
        if best is None:
            missed.append(c)
        else:
            used[best] = True
            lat.append(notes[best] - c)
    false = [x for j, x in enumerate(notes) if not used[j]]
    return len(lat), len(false), len(missed), lat, missed, false


def score(take, notes):
    """(hits, false, missed, latencies) for a labelled take; by count for expect=N."""
    if take.labels is not None:
        h, fa, mi, lat, _, _ = match(take.labels, notes)
        return h, fa, mi, lat
    n, N = len(notes), take.expect
    return min(n, N), max(0, n - N), max(0, N - n), []


def prf(h, fa, mi):
    p = h / (h + fa) if h + fa else (1.0 if mi == 0 else 0.0)
    r = h / (h + mi) if h + mi else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


# ---------------------------------------------------------------- detectors (Python)

def baseline(t, dev, threshold, refractory):
    """The plain rule: a note on each reading where | |a| - 1 G | reaches the threshold, then
    nothing for `refractory` s."""
    out = []
    last = -np.inf
    for i in np.nonzero(dev >= threshold)[0]:
        if t[i] - last >= refractory:
            out.append(t[i])
            last = t[i]
    return np.array(out)


class ProductFlick:
    """A line-by-line Python port of GestureDetector's flick (Gestures.swift, GestureSettings:
    the fixed rule by default, adaptive=True for flickAdaptive=1; the sweep of rotation-only
    streams left out), used to say why a stroke was missed; the scores come from the binary.
    accel() takes the stage's deviation and the reading (G), gyro() the rotation speed (rad/s),
    in time order (gyro first on a shared time). gyro() takes the rotation rate's vector too when
    it is known (w, rad/s): the return rule (flickReturnTime) needs the turn's direction, and is
    not modelled without it."""

    FIXED = dict(flickThreshold=10.0, flickRelease=2.0, flickRefractory=0.3, flickAccelThreshold=3.0,
                 flickAccelStartFraction=2.0 / 3.0, flickAccelMagnitude=0.0, flickAccelMinDuration=0.04,
                 flickAccelTimeConstant=0.02, flickGravityTimeConstant=0.0, flickPlayerScale=0.0,
                 flickPlayerMemory=20.0, flickAccelReleaseFraction=0.5, flickAccelGap=0.1, flickRearmFraction=0.0,
                 flickRearmTime=0.9, flickAccelPeakFraction=0.5, flickAccelSpentByRotation=1.0, flickSpentTime=0.0,
                 flickReturnTime=0.0, flickReturnAccel=0.8)
    ADAPTIVE = dict(FIXED, flickRefractory=0.4, flickAccelThreshold=1.5, flickAccelStartFraction=0.5,
                    flickAccelMagnitude=0.35, flickAccelMinDuration=0.05, flickAccelTimeConstant=0.04,
                    flickGravityTimeConstant=1.5, flickPlayerScale=0.5, flickAccelGap=0.15, flickRearmFraction=0.3,
                    flickAccelPeakFraction=0.7, flickAccelSpentByRotation=0.0, flickSpentTime=0.5,
                    flickReturnTime=1.0)

    def __init__(self, adaptive=False, **kw):
        s = dict(self.ADAPTIVE if adaptive else self.FIXED)
        s.update(kw)
        self.s = type("S", (), s)
        self.inStroke = self.strokeFired = False
        self.strokePeak = 0.0
        self.lastFlick = -math.inf
        self.level = self.magnitude = self.player = 0.0
        self.gravity = None
        self.last = math.nan
        self.inMove = self.moveFired = self.moveNoted = False
        self.threshold = self.peak = self.peakMagnitude = self.first = self.lastAbove = self.quiet = 0.0
        self.refractoryAtStart = False
        self.peakTime = 0.0
        self.strokeTurn = np.zeros(3)
        self.recentTurn = np.zeros(3)
        self.noteTurn = np.zeros(3)
        self.lastGyro = math.nan
        self.strokeAccel = self.lastDeviation = 0.0
        self.fired = []       # (time, source, strength)
        self.moves = []       # every accelerometer movement: dict(start, peak_time, peak, threshold, magnitude, above, fired, refractory)

    def _remember_turn(self, moved):
        v = self.strokeTurn if self.inStroke else self.recentTurn
        n = float(np.linalg.norm(v))
        ok = moved and (self.inStroke or n >= self.s.flickRelease / 2) and n > 1e-9
        self.noteTurn = v / n if ok else np.zeros(3)

    def gyro(self, speed, time, w=None):
        s = self.s
        w = np.zeros(3) if w is None else np.asarray(w, float)
        dt = 0.0 if math.isnan(self.lastGyro) else max(0.0, min(time - self.lastGyro, 0.1))
        self.lastGyro = time
        self.recentTurn = self.recentTurn + (w - self.recentTurn) * (1.0 - math.exp(-dt / 0.1) if dt > 0 else 1.0)
        if not self.inStroke:
            if speed < s.flickRelease:
                return
            self.inStroke = True
            self.strokeFired = time - self.lastFlick < s.flickRefractory or (
                self.inMove and self.moveFired and (s.flickSpentTime <= 0 or time - self.lastFlick < s.flickSpentTime))
            self.strokePeak = speed
            self.strokeAccel = self.lastDeviation
            self.strokeTurn = w.copy()
            return
        self.strokeTurn = self.strokeTurn + w
        n = float(np.linalg.norm(self.strokeTurn))
        if (not self.strokeFired and time - self.lastFlick < s.flickReturnTime and n > 1e-9
                and float(self.noteTurn @ self.strokeTurn) < -0.5 * n):
            self.strokeFired = True   # the last note's movement turning back
        if not self.strokeFired:
            self.strokePeak = max(self.strokePeak, speed)
            if self.strokePeak >= s.flickThreshold and speed < self.strokePeak:
                self.strokeFired = True
                noted = time - self.lastFlick >= s.flickRefractory
                if self.inMove:
                    self.moveFired = True
                    self.moveNoted = self.moveNoted or noted
                if noted:
                    self.lastFlick = time
                    self._remember_turn(self.strokeAccel >= s.flickReturnAccel)
                    self.fired.append((time, "gyro", self.strokePeak))
        if speed < s.flickRelease:
            self.inStroke = False

    def accel(self, deviation, reading, time):
        s = self.s
        self.lastDeviation = deviation
        if self.inStroke:
            self.strokeAccel = max(self.strokeAccel, deviation)
        dt = 0.0 if math.isnan(self.last) else max(0.0, min(time - self.last, 0.1))
        user = magnitude = deviation
        if reading is not None and np.all(np.isfinite(reading)):
            a = np.asarray(reading, float)
            magnitude = abs(float(np.linalg.norm(a)) - 1.0)
            if s.flickGravityTimeConstant > 0:
                if math.isnan(self.last) or self.gravity is None or np.linalg.norm(self.gravity) < 1e-9:
                    self.gravity = a.copy()
                elif dt > 0:
                    self.gravity += (a - self.gravity) * (1.0 - math.exp(-dt / s.flickGravityTimeConstant))
                g = float(np.linalg.norm(self.gravity))
                user = float(np.linalg.norm(a - self.gravity / g)) if g > 1e-9 else magnitude
        if math.isnan(self.last):
            self.level, self.magnitude = user, magnitude
        else:
            k = 1.0 - math.exp(-dt / s.flickAccelTimeConstant) if dt > 0 else 0.0
            self.level += (user - self.level) * k
            self.magnitude += (magnitude - self.magnitude) * k
        self.last = time
        if dt > 0:
            self.player *= math.exp(-dt / s.flickPlayerMemory)
        L = self.level
        if not self.inMove:
            T = max(s.flickAccelThreshold, s.flickPlayerScale * self.player)
            if L < s.flickAccelStartFraction * T:
                return
            self.inMove = True
            self.threshold = T
            self.refractoryAtStart = time - self.lastFlick < s.flickRefractory
            self.moveFired = self.refractoryAtStart or (s.flickAccelSpentByRotation >= 0.5 and self.inStroke
                                                        and self.strokeFired)
            self.moveNoted = False
            self.peak, self.peakTime, self.peakMagnitude = L, time, self.magnitude
            self.first = self.lastAbove = time
            self.quiet = 0.0
            return
        start = s.flickAccelStartFraction * self.threshold
        if L >= start:
            self.lastAbove = time
        if L > self.peak:
            self.peak, self.peakTime = L, time
        self.peakMagnitude = max(self.peakMagnitude, self.magnitude)
        if (not self.moveFired and self.peak >= self.threshold and self.peakMagnitude >= s.flickAccelMagnitude
                and self.lastAbove - self.first >= s.flickAccelMinDuration and L <= self.peak * s.flickAccelPeakFraction):
            self.moveFired = self.moveNoted = True
            if self.inStroke:
                self.strokeFired = True
            self.lastFlick = time
            self._remember_turn(True)
            self.fired.append((time, "accel", self.peak * 3))
        ended = False
        if L < s.flickAccelReleaseFraction * self.threshold:
            self.quiet += dt
            ended = self.quiet >= s.flickAccelGap
        else:
            self.quiet = 0.0
        if (s.flickRearmFraction > 0 and self.moveFired and L <= s.flickRearmFraction * self.peak
                and time - self.lastFlick >= s.flickRearmTime):
            ended = True
        if ended:
            self.inMove = False
            self.moves.append(dict(start=self.first, peak_time=self.peakTime, peak=self.peak, threshold=self.threshold,
                                   magnitude=self.peakMagnitude, above=self.lastAbove - self.first,
                                   fired=self.moveNoted, refractory=self.refractoryAtStart))
            if self.moveNoted:
                self.player += (1.0 if self.peak > self.player else 0.4) * (self.peak - self.player)


def product_level(t, dev, acc=None, gravity_tau=1.5, tau=0.04):
    """The flick's level over a take: the reading minus its slow average (without readings, the
    deviation), through the 40 ms low-pass."""
    if acc is None or not np.all(np.isfinite(acc)):
        return level(t, dev, tau)
    g = np.column_stack([level(t, acc[:, i], gravity_tau) for i in range(3)])
    g /= np.maximum(np.linalg.norm(g, axis=1), 1e-9)[:, None]
    return level(t, np.linalg.norm(acc - g, axis=1), tau)


def run_product(t, dev, acc=None, speed=None, adaptive=False):
    """The port over one take: dev = the deviation the stage hands over, acc = the readings
    (N x 3, G) or None, speed = |gyro| or None."""
    d = ProductFlick(adaptive=adaptive)
    for i in range(len(t)):
        if speed is not None:
            d.gyro(speed[i], t[i])
        d.accel(dev[i], None if acc is None else acc[i], t[i])
    return d


# ---------------------------------------------------------------- the proposed rule

RULE_NAMES = ["TAU_L", "TAU_N_UP", "TAU_N_DOWN", "TAU_P", "A_LO", "K_N", "K_P", "W_UP", "W_DOWN", "F_START",
              "FRAC", "D_MIN", "GAP", "REFR", "REARM", "REARM_T", "MAXWAIT"]


def adaptive_flick(t, dev, p):
    """The proposed accelerometer flick, one reading at a time (causal, O(1) state, no
    allocation per reading in Swift: every variable below is a scalar of the detector).
    t: times (s), dev: the deviation the motion stage hands over (G), p: the constants in
    RULE_NAMES order. Returns the note times. Written with scalars only so that the same
    function can be compiled for fast tuning."""
    TAU_L, TAU_N_UP, TAU_N_DOWN, TAU_P, A_LO, K_N, K_P = p[0], p[1], p[2], p[3], p[4], p[5], p[6]
    W_UP, W_DOWN, F_START, FRAC, D_MIN, GAP, REFR, REARM, REARM_T = p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]
    MAXWAIT = p[16]
    n = len(t)
    notes = np.zeros(n)
    nn = 0
    L = 0.0          # the level: deviation low-passed over TAU_L
    N = 0.0          # the background: L tracked slowly up, quickly down, outside movements
    P = 0.0          # the player's stroke scale: recent fired peaks, decaying over TAU_P
    inMove = False
    Tm = 0.0         # the threshold frozen when the movement started
    peak = 0.0
    peakT = 0.0      # when the level peaked
    first = 0.0
    lastAbove = 0.0
    quiet = 0.0
    fired = False
    lastFire = -1e9
    tprev = t[0]
    for i in range(n):
        dt = t[i] - tprev
        if dt < 0.0:
            dt = 0.0
        if dt > 0.1:
            dt = 0.1
        tprev = t[i]
        d = dev[i]
        if i == 0:
            L = d
        else:
            L += (d - L) * (1.0 - math.exp(-dt / TAU_L))
        if not inMove:
            tau = TAU_N_UP if L > N else TAU_N_DOWN
            N += (L - N) * (1.0 - math.exp(-dt / tau))
        P *= math.exp(-dt / TAU_P)
        T = A_LO
        if K_N * N > T:
            T = K_N * N
        if K_P * P > T:
            T = K_P * P
        if not inMove:
            if L >= F_START * T:
                inMove = True
                Tm = T
                peak = L
                peakT = t[i]
                first = t[i]
                lastAbove = t[i]
                quiet = 0.0
                fired = t[i] - lastFire < REFR
        else:
            if L >= F_START * Tm:
                lastAbove = t[i]
            if L > peak:
                peak = L
                peakT = t[i]
            if (not fired) and peak >= Tm and lastAbove - first >= D_MIN and (L <= FRAC * peak or t[i] - peakT >= MAXWAIT):
                fired = True
                notes[nn] = t[i]
                nn += 1
                lastFire = t[i]
                if peak > P:
                    P += W_UP * (peak - P)
                else:
                    P += W_DOWN * (peak - P)
            if L < F_START * Tm:
                quiet += dt
                if quiet >= GAP:
                    inMove = False
            else:
                quiet = 0.0
            if fired and L <= REARM * peak and t[i] - lastFire >= REARM_T:
                inMove = False   # a valley after the note: the next rise is a new movement
    return notes[:nn]


def run_export(binary, take, gyro=True, workdir=None):
    """The motion stage's view of the take, through the binary: (t, accel (G), gravity (unit,
    the fused estimate), gyro (rad/s) or None) per frame, t in s since the take's first sample."""
    own = workdir is None
    wd = workdir or tempfile.mkdtemp(prefix="gesturesets-")
    path = os.path.join(wd, "take.csv")
    try:
        write_sensorlog(take, path, gyro=gyro)
        use_gyro = gyro and take.gyro is not None
        src = "accel.x,accel.y,accel.z,tilt.x,tilt.y,tilt.z" + (",gyro.x,gyro.y,gyro.z" if use_gyro else "")
        r = subprocess.run([binary, "export", path, "--sources", src], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("sensorwah export failed on %s: %s" % (take, r.stderr))
        rows = []
        for line in r.stdout.splitlines()[1:]:
            rows.append([float(x) if x not in ("", "nan") else math.nan for x in line.split(",")])
        d = np.array(rows, float)
        return d[:, 0], d[:, 1:4], d[:, 4:7], (d[:, 7:10] if use_gyro else None)
    finally:
        if os.path.exists(path):
            os.remove(path)
        if own:
            os.rmdir(wd)


def stage_deviation(acc, gravity, gyro_seen):
    """MotionStage.accelStep: with a gyro |a - fused gravity|, without | |a| - 1 G |."""
    if gyro_seen:
        dev = np.linalg.norm(acc - gravity, axis=1)
        bad = ~np.isfinite(dev)
        dev[bad] = np.abs(np.linalg.norm(acc[bad], axis=1) - 1.0)
        return dev
    return deviation_accel_only(acc)


# ---------------------------------------------------------------- the run: binary + Python detectors, cached

MODES = ("gyro", "accel")   # as recorded (accelerometer + gyro), accelerometer only (gyro columns dropped)


def binary_view(binary, take, mode, cache=None, settings=()):
    """What the binary makes of a take in a mode: its flick times, and the motion stage's
    deviation, readings and rotation speed per frame (t, dev, acc, speed or None). Cached per
    binary build."""
    gyro = mode == "gyro"
    key = None
    if cache:
        os.makedirs(cache, exist_ok=True)
        stamp = "%d-%d" % (os.path.getmtime(binary), os.path.getsize(binary))
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", "%s-%s-%s%s" % (take.set, take.name, mode, "".join("-" + x for x in settings)))
        key = os.path.join(cache, "%s-%s-v2.npz" % (safe, stamp))
        if os.path.exists(key):
            z = np.load(key)
            return z["flicks"], z["t"], z["dev"], z["acc"], (z["speed"] if z["speed"].size else None)
    wd = tempfile.mkdtemp(prefix="gesturesets-")
    try:
        flicks = run_binary(binary, take, gyro=gyro, workdir=wd,
                            extra=[a for x in settings for a in ("--gesture-setting", x)])
        t, acc, grav, w = run_export(binary, take, gyro=gyro, workdir=wd)
    finally:
        os.rmdir(wd)
    dev = stage_deviation(acc, grav, w is not None)
    speed = None if w is None else np.linalg.norm(w, axis=1)
    if key:
        np.savez(key, flicks=flicks, t=t, dev=dev, acc=acc, speed=np.zeros(0) if speed is None else speed)
    return flicks, t, dev, acc, speed


# The proposed defaults (RULE_NAMES order), chosen by a coordinate search on the teach split
# (B1 single-class takes, B2 subjects 35 and 36, B3 Aaron/Adam/David/Egor/Eric/Flora, A1 Jakob and
# Thibaud as negatives) with the simulator's takes and the forehand take as checks; K_N = 0: the
# background term is off (it cost gentle strokes as much as it saved walking notes).
RULE_DEFAULTS = [0.04, 2.0, 0.05, 20.0, 1.5, 0.0, 0.5, 1.0, 0.4, 0.5, 0.7, 0.05, 0.15, 0.4, 0.3, 0.9, 0.15]
CAL_STROKES = 4       # a calibration: the player's first strokes
CAL_FRACTION = 0.5    # the floor becomes this fraction of their median level peak (never above A_LO)


def rule_params(**changes):
    p = list(RULE_DEFAULTS)
    for k, v in changes.items():
        p[RULE_NAMES.index(k)] = float(v)
    return p


def level(t, dev, tau):
    """The rule's level: the deviation through the exact first-order low-pass (as the detector)."""
    out = np.empty(len(dev))
    L = dev[0] if len(dev) else 0.0
    tp = t[0] if len(t) else 0.0
    for i in range(len(dev)):
        dt = min(max(t[i] - tp, 0.0), 0.1)
        tp = t[i]
        if i:
            L += (dev[i] - L) * (1.0 - math.exp(-dt / tau))
        out[i] = L
    return out


def calibrated_floor(t, dev, labels, p):
    """The floor a calibration would set: CAL_FRACTION x the median level peak of the first
    CAL_STROKES labelled movements (the strokes the player makes when asked), at most A_LO.
    Returns (floor, the time after which the take is scored)."""
    first = sorted(labels)[:CAL_STROKES]
    L = level(t, dev, p[0])
    peaks = [L[(t >= lo) & (t <= hi)].max() for c, lo, hi in first]
    return min(p[4], CAL_FRACTION * float(np.median(peaks))), first[-1][2]


# ---------------------------------------------------------------- diagnosis of the product's flick

def miss_reasons(take_t, dev, acc, speed, labels, notes, adaptive=False):
    """Why the product's flick missed each label it missed (the Python port's view):
    returns {reason: count}."""
    d = run_product(take_t, dev, acc, speed, adaptive=adaptive)
    h, fa, mi, lat, missed, false = match(labels, notes)
    out = {}
    by_c = {c: (lo, hi) for c, lo, hi in labels}
    for c in missed:
        lo, hi = by_c[c]
        moves = [mv for mv in d.moves if lo <= mv["peak_time"] <= hi]
        before = [mv for mv in d.moves if mv["start"] < lo and mv["peak_time"] >= lo - 0.5]
        if not moves and not before:
            r = "no movement (level under its start, %.2f G)" % (d.s.flickAccelStartFraction * d.s.flickAccelThreshold)
        elif any(mv["refractory"] for mv in moves):
            r = "within %.1f s of the previous note" % d.s.flickRefractory
        elif moves and all(mv["peak"] < mv["threshold"] for mv in moves):
            r = "level under the threshold (%s)" % ", ".join(
                "%.2f < %.2f G" % (mv["peak"], mv["threshold"]) for mv in moves[:2])
        elif moves and all(mv["magnitude"] < d.s.flickAccelMagnitude for mv in moves):
            r = "| |a| - 1 G | under %.2f G (a turn)" % d.s.flickAccelMagnitude
        elif before or any(mv["fired"] for mv in moves):
            r = "merged with the previous movement"
        else:
            r = "other"
        out[r] = out.get(r, 0) + 1
    return out


# ---------------------------------------------------------------- the report

SET_TITLES = {"B1": "B1 boxing, phone in the punching hand (100 Hz, 1 person)",
              "B2": "B2 forearm air gestures (about 175 Hz, 4 people, 100 takes each joined)",
              "B3": "B3 boxing gloves (25 Hz, 13 people, counts per session)",
              "FR": "FR field recordings (Apple Watch forehands; negatives)",
              "A1": "A1 negatives: phones carried by walking / running people, AR, texting",
              "SIM": "SIM tools/gesture-sim takes (17-800 Hz; negatives: walking, turns, table, tilts, strumming)"}


def tune_baseline(rows):
    """The plain rule's threshold and refractory, tuned on the teach split: the mean over the
    labelled sets of each set's F1 (B3 by counts)."""
    best = None
    for th in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0]:
        for rf in [0.25, 0.4, 0.6, 0.8, 1.0]:
            agg = {}
            for r in rows:
                if r["split"] != "teach" or r["take"].negative:
                    continue
                notes = baseline(r["take"].t, r["raw"], th, rf)
                h, fa, mi, _ = score(r["take"], notes)
                a = agg.setdefault(r["take"].set, [0, 0, 0])
                a[0] += h; a[1] += fa; a[2] += mi
            f = np.mean([prf(*a)[2] for a in agg.values()]) if agg else 0.0
            if best is None or f > best[0]:
                best = (f, th, rf)
    return best


def fmt(h, fa, mi):
    p, r, f = prf(h, fa, mi)
    return "%3d/%3d/%3d P%.2f R%.2f F1 %.2f" % (h, fa, mi, p, r, f)


def fmt_neg(fa, minutes):
    return "%3d notes (%4.1f/min)         " % (fa, fa / max(minutes, 1e-9))


def run_sets(sets, binary, modes=MODES, cache=None, sim_dir=None, params=None, diagnose=False, quiet=False, out=print,
             settings=()):
    params = params or RULE_DEFAULTS
    takes = []
    for s in sets:
        takes += load_sim(sim_dir) if s == "SIM" else LOADERS[s]()
    rows = []
    for tk in takes:
        if tk.acc is None:
            continue
        for mode in modes:
            if mode == "gyro" and tk.gyro is None:
                continue
            if tk.set == "SIM" and mode == "accel" and tk.gyro is not None:
                continue   # the simulator writes an accelerometer-only take of its own
            flicks, t, dev, acc, speed = binary_view(binary, tk, mode, cache=cache, settings=settings)
            raw = deviation_accel_only(tk.acc)
            rows.append(dict(take=tk, mode=mode, split=tk.split, flicks=flicks, t=t, dev=dev, acc=acc, speed=speed, raw=raw))
    bf, bth, brf = tune_baseline(rows)
    out("baseline: | |a| - 1 G | >= %.2f G, then nothing for %.2f s (tuned on the teach split: mean F1 %.3f)" % (bth, brf, bf))
    out("sensorwah flick: the binary's flick, %s" % ("".join("--gesture-setting " + x + " " for x in settings)
                                                    if settings else "default settings"))
    out("rule: %s" % ", ".join("%s=%g" % kv for kv in zip(RULE_NAMES, params)))
    out("rule+cal: the same, floor = min(A_LO, %.1f x median level peak of the first %d labelled movements), scored after them"
        % (CAL_FRACTION, CAL_STROKES))
    out("columns: hits/false/missed P R F1 (labels one-to-one, a note within the movement's window; B3: counts)\n")
    agg = {}
    for mode in modes:
        for s in sets:
            rs = [r for r in rows if r["take"].set == s and r["mode"] == mode]
            if not rs:
                continue
            out("== %s, %s" % (SET_TITLES.get(s, s), "accelerometer + gyro" if mode == "gyro" else "accelerometer only"))
            out("%-34s %-5s %5s | %-29s | %-29s | %-29s | %s" % ("take", "split", "n", "sensorwah flick", "baseline", "rule", "rule+cal"))
            for r in rs:
                tk = r["take"]
                t, dev = r["t"], r["dev"]
                rule = run_adaptive(t, dev, r["speed"], params)
                base = baseline(tk.t, r["raw"], bth, brf)
                res = {"current": score(tk, r["flicks"]), "baseline": score(tk, base), "rule": score(tk, rule)}
                cal = ""
                if tk.labels is not None and len(tk.labels) > CAL_STROKES:
                    floor, after = calibrated_floor(t, dev, tk.labels, params)
                    q = list(params)
                    q[4] = floor
                    notes = run_adaptive(t, dev, r["speed"], q)
                    later = Take(tk.set, tk.person, tk.name, tk.t, None, None,
                                 labels=[x for x in tk.labels if x[0] > after])
                    res["rule+cal"] = score(later, notes[notes > after])
                    cal = fmt(*res["rule+cal"][:3]) + " (floor %.2f)" % floor
                minutes = tk.duration / 60
                if tk.negative:
                    line = "%-34s %-5s %5s | %s | %s | %s |" % (tk.name[:34], tk.split, "neg", fmt_neg(res["current"][1], minutes),
                                                              fmt_neg(res["baseline"][1], minutes), fmt_neg(res["rule"][1], minutes))
                else:
                    n = len(tk.labels) if tk.labels is not None else tk.expect
                    line = "%-34s %-5s %5d | %s | %s | %s | %s" % (tk.name[:34], tk.split, n, fmt(*res["current"][:3]),
                                                                 fmt(*res["baseline"][:3]), fmt(*res["rule"][:3]), cal)
                if not quiet:
                    out(line)
                if diagnose and tk.labels is not None and not quiet:
                    for name, L, th in [("| |a| - 1 G |, 20 ms", level(t, deviation_accel_only(r["acc"]), 0.02), 3.0),
                                        ("the reading against its 1.5 s average, 40 ms", product_level(t, dev, r["acc"]), 1.5)]:
                        pk = np.array([L[(t >= lo) & (t <= hi)].max() for c, lo, hi in tk.labels])
                        out("    movement peaks (%s, G): min %.2f p10 %.2f p50 %.2f p90 %.2f max %.2f; under %.1f G: %d of %d"
                            % (name, pk.min(), np.percentile(pk, 10), np.median(pk), np.percentile(pk, 90), pk.max(), th,
                               (pk < th).sum(), len(pk)))
                    if r["speed"] is not None:
                        gp = np.array([r["speed"][(t >= lo) & (t <= hi)].max() for c, lo, hi in tk.labels])
                        out("    rotation peaks (rad/s): p10 %.1f p50 %.1f p90 %.1f; at/over 10 rad/s: %d" % (
                            np.percentile(gp, 10), np.median(gp), np.percentile(gp, 90), (gp >= 10).sum()))
                    why = miss_reasons(t, dev, r["acc"], r["speed"], tk.labels, r["flicks"],
                                       adaptive="flickadaptive=1" in [x.lower().replace(" ", "") for x in settings])
                    if why:
                        out("    sensorwah flick missed: " + "; ".join("%d %s" % (v, k) for k, v in sorted(why.items(), key=lambda kv: -kv[1])))
                kind = "neg:" + ("running" if "running" in tk.tags else "walk/still/other") if tk.negative else "pos"
                for key in [(s, mode, kind, tk.split, "set"), (s, mode, kind, "all", "set"), (s, mode, kind, tk.person, "person")]:
                    a = agg.setdefault(key, {})
                    for k, v in res.items():
                        x = a.setdefault(k, [0, 0, 0, []])
                        x[0] += v[0]; x[1] += v[1]; x[2] += v[2]; x[3] += list(v[3])
                    a.setdefault("minutes", [0.0])[0] += minutes
            for key in sorted(k for k in agg if k[0] == s and k[1] == mode):
                a = agg[key]
                label = "%s %s" % ("person" if key[4] == "person" else "split", key[3])
                if key[2].startswith("neg"):
                    m = a["minutes"][0]
                    out("%-34s %-5s %5s | %s | %s | %s |" % (("  " + key[2] + " " + label)[:34], "", "", fmt_neg(a["current"][1], m),
                                                          fmt_neg(a["baseline"][1], m), fmt_neg(a["rule"][1], m)))
                else:
                    lat = a["rule"][3]
                    out("%-34s %-5s %5s | %s | %s | %s | %s%s" % (("  " + label)[:34], "", "", fmt(*a["current"][:3]), fmt(*a["baseline"][:3]),
                                                               fmt(*a["rule"][:3]), fmt(*a["rule+cal"][:3]) if "rule+cal" in a else "",
                                                               "  rule latency median %+.0f ms (p10 %+.0f, p90 %+.0f) after the label" % (
                                                                   1000 * np.median(lat), 1000 * np.percentile(lat, 10), 1000 * np.percentile(lat, 90)) if lat else ""))
            out("")
    return agg, (bth, brf)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="gesture-score --sets", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="B1,B2,B3,FR,A1", help="comma-separated: B1,B2,B3,FR,A1,SIM")
    ap.add_argument("--modes", default="gyro,accel", help="gyro (as recorded), accel (gyro columns dropped)")
    ap.add_argument("--binary")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "gesturesets-cache"),
                    help="where the binary's answers are kept per build (none: no cache)")
    ap.add_argument("--sim", help="a tools/gesture-sim output folder written with --layout sensorlog (for SIM)")
    ap.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE", help="try another rule constant")
    ap.add_argument("--diagnose", action="store_true", help="per take: movement peaks against the default's thresholds, why the sensorwah flick missed")
    ap.add_argument("--quiet", action="store_true", help="summaries only")
    ap.add_argument("--gesture-setting", action="append", default=[], metavar="NAME=VALUE",
                    help="run the binary with this gesture setting (repeatable), e.g. flickAdaptive=1")
    a = ap.parse_args(argv)
    sets = [s.strip() for s in a.sets.split(",") if s.strip()]
    if "SIM" in sets and not a.sim:
        ap.error("SIM needs --sim DIR (tools/gesture-sim DIR --layout sensorlog)")
    for s in sets:
        if s not in LOADERS and s != "SIM":
            ap.error("unknown set %s" % s)
    params = rule_params(**dict(kv.split("=", 1) for kv in a.rule))
    binary = find_binary(a.binary)
    print("binary: %s (built %s)" % (binary, __import__("time").strftime("%Y-%m-%d %H:%M", __import__("time").localtime(os.path.getmtime(binary)))))
    run_sets(sets, binary, modes=[m for m in a.modes.split(",") if m], cache=None if a.cache == "none" else a.cache,
             sim_dir=a.sim, params=params, diagnose=a.diagnose, quiet=a.quiet, settings=a.gesture_setting)


class AdaptiveFlick:
    """The proposed flick, as it would run in GestureDetector: the accelerometer rule of
    adaptive_flick (same constants, same arithmetic) beside the current gyro rule (a run of
    rotation over flickRelease whose rate peaked over flickThreshold fires once), sharing one
    note per movement: a note from either marks the other's movement in progress as spent, and
    no note comes within REFR of the last. (Unlike today's detector, a movement or rotation that
    starts while the other's is spent is not spent by that alone: at 25 Hz a boxer's glove never
    turns slower than 2 rad/s between punches, and every later punch was lost.) accel() and gyro() take one reading each, in time
    order (gyro first when they share a time, as MotionStage does)."""

    def __init__(self, p=None, flickThreshold=10.0, flickRelease=2.0, gyro_hold=None):
        p = list(RULE_DEFAULTS if p is None else p)
        (self.TAU_L, self.TAU_N_UP, self.TAU_N_DOWN, self.TAU_P, self.A_LO, self.K_N, self.K_P, self.W_UP, self.W_DOWN,
         self.F_START, self.FRAC, self.D_MIN, self.GAP, self.REFR, self.REARM, self.REARM_T, self.MAXWAIT) = p
        self.flickThreshold, self.flickRelease = flickThreshold, flickRelease
        self.GYRO_HOLD = gyro_hold if gyro_hold is not None else self.REFR
        self.L = self.N = self.P = 0.0
        self.tprev = math.nan
        self.inMove = False
        self.Tm = self.peak = self.peakT = self.first = self.lastAbove = self.quiet = 0.0
        self.moveFired = False
        self.lastFire = -math.inf
        self.inStroke = self.strokeFired = False
        self.strokePeak = 0.0
        self.notes = []

    def _note(self, t, source):
        self.lastFire = t
        self.notes.append((t, source))

    def gyro(self, speed, t):
        if not self.inStroke:
            if speed < self.flickRelease:
                return
            self.inStroke = True
            self.strokePeak = speed
            self.strokeFired = t - self.lastFire < self.REFR
            return
        if not self.strokeFired:
            if speed > self.strokePeak:
                self.strokePeak = speed
            if self.strokePeak >= self.flickThreshold and speed < self.strokePeak:
                self.strokeFired = True
                if self.inMove:
                    self.moveFired = True
                if t - self.lastFire >= self.GYRO_HOLD:
                    self._note(t, "gyro")
        if speed < self.flickRelease:
            self.inStroke = False

    def accel(self, d, t):
        if math.isnan(self.tprev):
            dt = 0.0
            self.L = d
        else:
            dt = min(max(t - self.tprev, 0.0), 0.1)
            self.L += (d - self.L) * (1.0 - math.exp(-dt / self.TAU_L))
        self.tprev = t
        L = self.L
        if not self.inMove:
            tau = self.TAU_N_UP if L > self.N else self.TAU_N_DOWN
            self.N += (L - self.N) * (1.0 - math.exp(-dt / tau)) if dt > 0 else 0.0
        self.P *= math.exp(-dt / self.TAU_P)
        T = max(self.A_LO, self.K_N * self.N, self.K_P * self.P)
        if not self.inMove:
            if L >= self.F_START * T:
                self.inMove = True
                self.Tm = T
                self.peak = L
                self.peakT = t
                self.first = self.lastAbove = t
                self.quiet = 0.0
                self.moveFired = t - self.lastFire < self.REFR
            return
        if L >= self.F_START * self.Tm:
            self.lastAbove = t
        if L > self.peak:
            self.peak = L
            self.peakT = t
        if (not self.moveFired) and self.peak >= self.Tm and self.lastAbove - self.first >= self.D_MIN and (
                L <= self.FRAC * self.peak or t - self.peakT >= self.MAXWAIT):
            self.moveFired = True
            if self.inStroke:
                self.strokeFired = True
            self._note(t, "accel")
            w = self.W_UP if self.peak > self.P else self.W_DOWN
            self.P += w * (self.peak - self.P)
        if L < self.F_START * self.Tm:
            self.quiet += dt
            if self.quiet >= self.GAP:
                self.inMove = False
        else:
            self.quiet = 0.0
        if self.moveFired and L <= self.REARM * self.peak and t - self.lastFire >= self.REARM_T:
            self.inMove = False


def run_adaptive(t, dev, speed=None, p=None, gyro_hold=None):
    """The proposed flick over a take (speed None: no gyro). Returns the note times."""
    d = AdaptiveFlick(p, gyro_hold=gyro_hold)
    for i in range(len(t)):
        if speed is not None:
            d.gyro(speed[i], t[i])
        d.accel(dev[i], t[i])
    return np.array([x[0] for x in d.notes])
