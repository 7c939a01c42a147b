"""Teach by example on real labelled recordings by other people (../shared/dev-data), scored
one-to-one per class, beside a plain 1-nearest-neighbour baseline and a Python prototype of the
proposed recogniser (tools/motionsim/teachproto.py). Used by tools/teach-score.

Nothing here is copied into the repository: each take is converted, in a temporary folder, into
a SensorLog-layout CSV (accelerometer in G with Core Motion's sign, gyro in rad/s; the headers
tools/motionsim/compare.py's read_log expects) and a marks file in the layout `sensorwah teach`
reads (`START END NAME` for a labelled stretch, `SECONDS NAME` for a mark); the real binary then
teaches a gestures file from the teach split (`sensorwah teach MODEL TAKE --marks MARKS`) and
lists what fires on the test split (`sensorwah export TAKE --gestures MODEL --list-gestures`:
rows `time,gesture:NAME,strength`).

Sets
  B1  boxing, phone held in the punching hand (Sensor Logger, 100.5 Hz, one person). Classes
      jab/uppercut/hook x left/right hand (6). A punch = one contiguous run of non-NoActivity
      rows (its labelled stretch); its time = the run's largest rotation speed. Teach: the 12
      single-class takes (fast and slow); test: the two mixed takes (all_left, all_right).
      Units: m/s^2 with Android's sign (+1 g up) -> G with Core Motion's sign (-acc / 9.80665);
      gyro rad/s as is. The file all_right's hand column says left: the file name is used.
  B2  forearm IMU (Gyronics GRWD), 10 air gestures x 10 takes x 4 people, one gesture per file.
      Raw counts: accelerometer 16384 per G (int16: clips at +-2 G per axis), gyro 131 per
      deg/s (MPU +-250 deg/s range; fitted here against the accelerometer's turning: 134.7),
      sign +1 G up -> Core Motion. Rows arrive in bursts (~175 rows/s); times from the device's
      ms counter. A take's movement (its labelled stretch) = where the rotation speed, averaged
      over 80 ms, is at or above 20 % of the take's peak; its time = that peak. Per person:
      teach from takes 0-4, test on takes 5-9, the takes of a split joined into one stream with
      a 2 s still bridge between two takes (the gravity direction turned smoothly across it,
      the gyro consistent with that turn), the test takes in a shuffled (seeded) order.
      Class sets: all10 (the ten at once), or a four-class set taught with the other six classes'
      test takes left in the test stream as distractors (any firing on them is a false alarm).
  B1mixed  B1's two mixed takes alone, each cut between its two halves of punches: taught from
      one half of each, recognised in the other, both ways round (a player teaching from one
      take and playing the next).
  --alone  any set with one model per class, taught from that class's movements alone and
      recognised among the other classes' movements, which are then distractors.

Scoring (per take, per class, pooled): each labelled movement has a window, its stretch widened
by 0.5 s each side but never past halfway to the neighbouring movement; one-to-one, each movement
in time order takes the nearest unused firing (any class) inside its window (nearest to the
movement's time); a firing left over is a false alarm, a second firing for one movement too.
Per class c: TP = movements of c matched by a firing of c; FP = firings of c unmatched or matched
to another class's movement (or a distractor); FN = movements of c unmatched or matched by
another class. Detection F1 counts any class; "right class" = matched movements whose firing is
of their class / matched movements (distractors excluded).
"""
import csv
import glob
import math
import os
import re
import subprocess
import tempfile

import numpy as np

from .gesturesets import clean_time, slerp_bridge

G = 9.80665
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
DEV = os.path.join(SHARED, "dev-data")
# the newer of what set-up ships and the last `swift build -c release` (a change being tried)
BINARIES = [os.path.join(ROOT, b, "release", "sensorwah") for b in [".build-static", ".build"]]
BINARY = max([b for b in BINARIES if os.path.exists(b)] or BINARIES[:1], key=lambda b: os.path.getmtime(b) if os.path.exists(b) else 0)

HEADER = ["accelerometerTimestamp_sinceReboot(s)", "accelerometerAccelerationX(G)",
          "accelerometerAccelerationY(G)", "accelerometerAccelerationZ(G)",
          "gyroTimestamp_sinceReboot(s)", "gyroRotationX(rad/s)", "gyroRotationY(rad/s)", "gyroRotationZ(rad/s)"]

B2_ACC_SCALE = 16384.0                   # counts per G
B2_GYRO_SCALE = 131.0 * 180 / math.pi    # counts per rad/s
B2_CLASSES = ["circle_cclk", "circle_clk", "p_shape", "s_shape", "swipe_down", "swipe_left", "swipe_right",
              "swipe_up", "twist_right", "v_shape"]
B2_SUBJECTS = ["subject_35", "subject_36", "subject_40", "subject_43"]
B2_SETS = {
    "all10": B2_CLASSES,
    "swipes": ["swipe_down", "swipe_left", "swipe_right", "swipe_up"],
    "shapes": ["circle_cclk", "circle_clk", "p_shape", "s_shape"],
    "mixed": ["circle_clk", "swipe_left", "twist_right", "v_shape"],
}
B1_CLASSES = ["jab_left", "uppercut_left", "hook_left", "jab_right", "uppercut_right", "hook_right"]


class Move:
    """A labelled movement: time (s: its peak), stretch lo..hi (s), class name; win: the window
    a firing must fall in (set by windows()); distractor: a movement of a class not taught."""

    def __init__(self, time, lo, hi, cls, distractor=False):
        self.time, self.lo, self.hi, self.cls, self.distractor = float(time), float(lo), float(hi), cls, distractor
        self.win = (self.lo - 0.5, self.hi + 0.5)

    def shifted(self, dt):
        m = Move(self.time + dt, self.lo + dt, self.hi + dt, self.cls, self.distractor)
        return m

    def __repr__(self):
        return "Move(%s %.2f [%.2f-%.2f])" % (self.cls, self.time, self.lo, self.hi)


class Take:
    """One stream: t (s, from 0), acc (N x 3, G, Core Motion's sign, gravity included), gyro
    (N x 3, rad/s, same rows), moves (labelled movements)."""

    def __init__(self, name, t, acc, gyro, moves):
        self.name, self.t, self.acc, self.gyro, self.moves = name, np.asarray(t, float), np.asarray(acc, float), \
            np.asarray(gyro, float), list(moves)

    @property
    def duration(self):
        return float(self.t[-1] - self.t[0])

    def __repr__(self):
        return "Take(%s, %d rows, %.1f s, %d moves)" % (self.name, len(self.t), self.duration, len(self.moves))


def windows(moves, tol=0.5):
    """Each movement's window: its stretch +-tol, never past halfway to its neighbours' stretches."""
    ms = sorted(moves, key=lambda m: m.lo)
    for i, m in enumerate(ms):
        lo, hi = m.lo - tol, m.hi + tol
        if i > 0:
            lo = max(lo, (ms[i - 1].hi + m.lo) / 2)
        if i + 1 < len(ms):
            hi = min(hi, (m.hi + ms[i + 1].lo) / 2)
        m.win = (lo, hi)
    return ms


# ---------------------------------------------------------------- B1

def load_b1():
    """{take name: Take}; names like jab_left_fast, all_left."""
    d = os.path.join(DEV, "B1_boxing_phone_inhand_kharchenko")
    out = {}
    for path in sorted(glob.glob(os.path.join(d, "acc_gyr_experiment_*.csv"))):
        name = os.path.basename(path)[len("acc_gyr_experiment_"):-4]
        hand = "left" if "left" in name else "right"
        with open(path, newline="") as f:
            r = csv.reader(f)
            h = next(r)
            rows = list(r)
        ix = {k: h.index(k) for k in h}
        num = np.array([[float(row[ix[k]]) for k in ["seconds_elapsed", "accX", "accY", "accZ", "gyrX", "gyrY", "gyrZ"]]
                        for row in rows])
        lab = np.array([row[ix["label"]] for row in rows])
        t, num, lab = clean_time(num[:, 0], num, lab)
        t = t - t[0]
        acc = -num[:, 1:4] / G
        gyro = num[:, 4:7]
        speed = np.linalg.norm(gyro, axis=1)
        moves = []
        i, n = 0, len(lab)
        while i < n:
            if lab[i] != "NoActivity":
                j = i
                while j + 1 < n and lab[j + 1] == lab[i]:
                    j += 1
                k = i + int(np.argmax(speed[i:j + 1]))
                moves.append(Move(t[k], t[i], t[j], "%s_%s" % (lab[i], hand)))
                i = j + 1
            else:
                i += 1
        out[name] = Take("B1/" + name, t, acc, gyro, windows(moves))
    return out


def b1_split(takes, per_take=None):
    """(teach takes, test takes): the single-class takes teach (each keeping its first
    `per_take` movements' labels when given), the mixed takes test."""
    teach, test = [], []
    for name, tk in sorted(takes.items()):
        if name.startswith("all_"):
            test.append(tk)
        else:
            if per_take:
                tk = Take(tk.name, tk.t, tk.acc, tk.gyro, tk.moves[:per_take])
            teach.append(tk)
    return teach, test


def b1_mixed(takes, fold):
    """(teach takes, test takes) within B1's mixed takes alone, the way a player teaches from one
    take and plays the next: each mixed take cut between its two halves of punches (halfway
    between the last of the first half and the first of the second); fold 0 teaches from the
    first halves and recognises the second, fold 1 the other way round."""
    teach, test = [], []
    for name in ["all_left", "all_right"]:
        tk = takes[name]
        h = len(tk.moves) // 2
        mid = (tk.moves[h - 1].hi + tk.moves[h].lo) / 2
        first, second = cut(tk, 0.0, mid, tk.name + "/first"), cut(tk, mid, tk.t[-1], tk.name + "/second")
        teach.append(first if fold == 0 else second)
        test.append(second if fold == 0 else first)
    return teach, test


# ---------------------------------------------------------------- B2

def _b2_file(path):
    d = np.genfromtxt(path, delimiter=",", skip_header=1, usecols=range(10))
    d = d[np.all(np.isfinite(d), axis=1)]
    d = d[np.any(d[:, 0:3] != 0, axis=1) & np.all(np.abs(d[:, 0:6]) <= 32768, axis=1)]
    t = d[:, 9] / 1000.0
    if len(t) > 1 and t[1] - t[0] > 0.1:   # a stale first row from an earlier take
        d, t = d[1:], t[1:]
    t, d = clean_time(t, d)
    return t - t[0], -d[:, 0:3] / B2_ACC_SCALE, d[:, 3:6] / B2_GYRO_SCALE


def b2_movement(t, gyro):
    """(peak time, lo, hi): where the rotation speed (80 ms average) is >= 20 % of its peak."""
    dt = np.median(np.diff(t))
    k = max(1, int(round(0.08 / dt)))
    r = np.convolve(np.linalg.norm(gyro, axis=1), np.ones(k) / k, "same")
    on = np.nonzero(r >= 0.2 * r.max())[0]
    return float(t[int(np.argmax(r))]), float(t[on[0]]), float(t[on[-1]])


_B2_CACHE = {}


def load_b2(subject):
    """{(class, take number): Take} of one person (each take one movement)."""
    if subject in _B2_CACHE:
        return _B2_CACHE[subject]
    out = {}
    for c in B2_CLASSES:
        for k in range(10):
            t, acc, gyro = _b2_file(os.path.join(DEV, "B2_gyronics_forearm_gestures", subject, c, "%d.csv" % k))
            p, lo, hi = b2_movement(t, gyro)
            out[(c, k)] = Take("B2/%s/%s/%d" % (subject, c, k), t, acc, gyro, [Move(p, lo, hi, c)])
    _B2_CACHE[subject] = out
    return out


def join(takes, name, gap=2.0):
    """One stream of several takes, a still bridge of `gap` s between two."""
    T, A, W, moves = [], [], [], []
    now = 0.0
    prev = None
    for tk in takes:
        if prev is not None:
            tb, ab, wb = slerp_bridge(prev, tk.acc[0], gap)
            T.append(now + tb); A.append(ab); W.append(wb)
            now += gap
        T.append(now + tk.t); A.append(tk.acc); W.append(tk.gyro)
        moves += [m.shifted(now) for m in tk.moves]
        now += tk.t[-1]
        prev = tk.acc[-1]
    t, acc, gyro = clean_time(np.concatenate(T), np.concatenate(A), np.concatenate(W))
    return Take(name, t, acc, gyro, windows(moves))


def b2_split(subject, classes, distractors=True, seed=1):
    """(teach stream, test stream) of one person: takes 0-4 of `classes` in class order, takes
    5-9 shuffled; with distractors, the other classes' takes 5-9 are in the test stream too."""
    d = load_b2(subject)
    teach = [d[(c, k)] for c in classes for k in range(5)]
    test = [d[(c, k)] for c in classes for k in range(5, 10)]
    if distractors:
        for c in B2_CLASSES:
            if c not in classes:
                for k in range(5, 10):
                    tk = d[(c, k)]
                    test.append(Take(tk.name, tk.t, tk.acc, tk.gyro,
                                     [Move(m.time, m.lo, m.hi, m.cls, distractor=True) for m in tk.moves]))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(test))
    return (join(teach, "B2/%s/teach" % subject), join([test[i] for i in order], "B2/%s/test" % subject))


# ---------------------------------------------------------------- the product's files

def write_sensorlog(take, path):
    base = 1000.0
    data = np.column_stack([base + take.t, take.acc, base + take.t, take.gyro])
    with open(path, "w") as f:
        f.write(",".join(HEADER) + "\n")
        np.savetxt(f, data, fmt="%.6f", delimiter=",")


def write_marks(take, path, how="stretch"):
    """The take's labelled movements in the layout `sensorwah teach --marks` reads: a stretch
    `START END NAME`, or a mark `SECONDS NAME` at the movement's time (its peak)."""
    with open(path, "w") as f:
        for m in take.moves:
            if m.distractor:
                continue
            if how == "stretch":
                f.write("%.3f %.3f %s\n" % (max(0.0, m.lo), m.hi, m.cls))
            else:
                f.write("%.3f %s\n" % (m.time, m.cls))


def run(args, retries=3):
    """Runs the binary; retries after a minute when it is being replaced (a rebuild)."""
    import time
    for i in range(retries):
        try:
            r = subprocess.run(args, capture_output=True, text=True)
        except OSError:
            time.sleep(60)
            continue
        if r.returncode >= 0 or i + 1 == retries:
            return r
        time.sleep(60)
    raise RuntimeError("cannot run %s" % args[0])


def sw_teach(binary, model, takes, workdir, how="stretch"):
    """Teaches `model` from each take's labelled movements with the binary; returns its report lines."""
    report = []
    for i, tk in enumerate(takes):
        csvp = os.path.join(workdir, "teach%d.csv" % i)
        mp = os.path.join(workdir, "teach%d-marks.txt" % i)
        write_sensorlog(tk, csvp)
        write_marks(tk, mp, how)
        r = run([binary, "teach", model, csvp, "--marks", mp, "-q"])
        if r.returncode != 0:
            raise RuntimeError("sensorwah teach failed on %s: %s" % (tk, r.stderr))
        report.append(r.stdout)
        os.remove(csvp)
    return report


def sw_fire(binary, model, take, workdir):
    """[(time, class, strength)] of the taught gestures firing on the take."""
    csvp = os.path.join(workdir, "test.csv")
    write_sensorlog(take, csvp)
    r = run([binary, "export", csvp, "--gestures", model, "--list-gestures", "-q"])
    os.remove(csvp)
    if r.returncode != 0:
        raise RuntimeError("sensorwah export failed on %s: %s" % (take, r.stderr))
    out = []
    for line in r.stdout.splitlines()[1:]:
        tt, g, s = line.split(",")
        if g.startswith("gesture:"):
            out.append((float(tt), g[len("gesture:"):], float(s)))
    return out


# ---------------------------------------------------------------- scoring

def match(moves, firings):
    """One-to-one: each movement (in time order) takes the nearest unused firing inside its window.
    Returns ({move index: firing index}, [unmatched firing indices])."""
    fs = sorted(range(len(firings)), key=lambda j: firings[j][0])
    used = set()
    got = {}
    for i in sorted(range(len(moves)), key=lambda i: moves[i].time):
        m = moves[i]
        best = None
        for j in fs:
            x = firings[j][0]
            if j in used or x < m.win[0] or x > m.win[1]:
                continue
            if best is None or abs(x - m.time) < abs(firings[best][0] - m.time):
                best = j
        if best is not None:
            used.add(best)
            got[i] = best
    return got, [j for j in fs if j not in used]


class Tally:
    """Counts over takes: per class TP/FP/FN, detection hits/false/missed, confusion."""

    def __init__(self, classes):
        self.classes = list(classes)
        self.tp = {c: 0 for c in classes}
        self.fp = {c: 0 for c in classes}
        self.fn = {c: 0 for c in classes}
        self.hit = self.false = self.miss = 0
        self.right = 0
        self.conf = {}   # (true, fired) -> n; true '-' = no movement, fired '-' = missed
        self.lat = []

    def add(self, take, firings):
        moves = take.moves
        got, extra = match(moves, firings)
        for i, m in enumerate(moves):
            j = got.get(i)
            f = firings[j][1] if j is not None else "-"
            truth = "(other)" if m.distractor else m.cls
            self.conf[(truth, f)] = self.conf.get((truth, f), 0) + 1
            if m.distractor:
                if j is not None:
                    self.false += 1
                    if f in self.fp:
                        self.fp[f] += 1
                continue
            if j is None:
                self.miss += 1
                self.fn[m.cls] += 1
                continue
            self.hit += 1
            self.lat.append(firings[j][0] - m.time)
            if f == m.cls:
                self.right += 1
                self.tp[m.cls] += 1
            else:
                self.fn[m.cls] += 1
                if f in self.fp:
                    self.fp[f] += 1
        for j in extra:
            f = firings[j][1]
            self.false += 1
            self.conf[("-", f)] = self.conf.get(("-", f), 0) + 1
            if f in self.fp:
                self.fp[f] += 1

    def f1(self, c):
        tp, fp, fn = self.tp[c], self.fp[c], self.fn[c]
        return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else float("nan")

    def det_f1(self):
        d = 2 * self.hit + self.false + self.miss
        return 2 * self.hit / d if d else float("nan")

    def right_share(self):
        return self.right / self.hit if self.hit else float("nan")

    def mean_f1(self):
        v = [self.f1(c) for c in self.classes if self.tp[c] + self.fp[c] + self.fn[c]]
        return float(np.mean(v)) if v else float("nan")

    def min_f1(self):
        v = [self.f1(c) for c in self.classes if self.tp[c] + self.fp[c] + self.fn[c]]
        return float(np.min(v)) if v else float("nan")

    def merge(self, o):
        for c in o.classes:
            if c not in self.tp:
                self.classes.append(c)
                self.tp[c] = self.fp[c] = self.fn[c] = 0
            self.tp[c] += o.tp[c]; self.fp[c] += o.fp[c]; self.fn[c] += o.fn[c]
        self.hit += o.hit; self.false += o.false; self.miss += o.miss; self.right += o.right
        for k, v in o.conf.items():
            self.conf[k] = self.conf.get(k, 0) + v
        self.lat += o.lat

    def line(self):
        lat = np.median(self.lat) if self.lat else float("nan")
        return ("det F1 %.2f (hit %d, false %d, missed %d)  right class %3.0f%%  per-class F1 mean %.2f min %.2f  "
                "latency median %+.2f s" % (self.det_f1(), self.hit, self.false, self.miss, 100 * self.right_share(),
                                            self.mean_f1(), self.min_f1(), lat))

    def class_line(self):
        return "  ".join("%s %.2f" % (c, self.f1(c)) for c in self.classes)

    def confusion(self):
        rows = [c for c in self.classes] + (["(other)"] if any(k[0] == "(other)" for k in self.conf) else []) + ["-"]
        cols = self.classes + ["-"]
        w = max(8, max(len(c) for c in rows + cols) + 1)
        s = "%-*s" % (w, "truth\\fired") + "".join("%*s" % (min(w, 9), c[:8]) for c in cols) + "\n"
        for r in rows:
            s += "%-*s" % (w, r) + "".join("%*s" % (min(w, 9), self.conf.get((r, c), 0) or ".") for c in cols) + "\n"
        return s


# ---------------------------------------------------------------- the 1-NN baseline

def resample(take, rate=100.0):
    tt = np.arange(take.t[0], take.t[-1], 1 / rate)
    x = np.column_stack([np.interp(tt, take.t, take.acc[:, i]) for i in range(3)] +
                        [np.interp(tt, take.t, take.gyro[:, i]) for i in range(3)])
    return tt, x


def raw_window(tt, x, centre, half=0.4, rate=100.0):
    """0.8 s of the six raw channels (G, rad/s) around `centre`, edge-padded."""
    n = int(round(2 * half * rate))
    i0 = int(round((centre - half - tt[0]) * rate))
    idx = np.clip(np.arange(i0, i0 + n), 0, len(tt) - 1)
    return x[idx].ravel()


class NearestNeighbour:
    """Plain 1-NN on raw 0.8 s windows (accelerometer G + gyro rad/s, 100 Hz, Euclidean)
    around the movements' labelled times (their peak)."""

    def __init__(self, teach_takes):
        X, y = [], []
        for tk in teach_takes:
            tt, x = resample(tk)
            for m in tk.moves:
                if not m.distractor:
                    X.append(raw_window(tt, x, m.time)); y.append(m.cls)
        self.X, self.y = np.array(X), y

    def classify(self, w):
        d = np.linalg.norm(self.X - w[None, :], axis=1)
        return self.y[int(np.argmin(d))], float(d.min())

    def oracle(self, take):
        """Firings at the labelled times given (the movements known): class by 1-NN."""
        tt, x = resample(take)
        return [(m.time, self.classify(raw_window(tt, x, m.time))[0], 1.0) for m in take.moves if not m.distractor]

    def peaks(self, take, teach_takes):
        """A simple detector + 1-NN: peaks of the rotation speed (0.1 s average) above half the
        median peak of the taught movements, at least 0.8 s apart (the highest first); each
        classified by 1-NN, no rejection."""
        ref = []
        for tk in teach_takes:
            tt, x = resample(tk)
            sp = smooth(np.linalg.norm(x[:, 3:6], axis=1), 10)
            for m in tk.moves:
                i = int(round((m.time - tt[0]) * 100))
                ref.append(sp[max(0, i - 20):i + 20].max())
        thr = 0.5 * float(np.median(ref))
        tt, x = resample(take)
        sp = smooth(np.linalg.norm(x[:, 3:6], axis=1), 10)
        cand = [i for i in range(1, len(sp) - 1) if sp[i] >= thr and sp[i] >= sp[i - 1] and sp[i] > sp[i + 1]]
        chosen = []
        for i in sorted(cand, key=lambda i: -sp[i]):
            if all(abs(i - j) >= 80 for j in chosen):
                chosen.append(i)
        return [(tt[i], self.classify(raw_window(tt, x, tt[i]))[0], 1.0) for i in sorted(chosen)]


def smooth(v, k):
    return np.convolve(v, np.ones(k) / k, "same")


# ---------------------------------------------------------------- experiments

def cut(take, t0, t1, name):
    """The part of a take from t0 to t1 (s), its movements inside it, times from 0."""
    k = (take.t >= t0) & (take.t <= t1)
    moves = [m.shifted(-t0) for m in take.moves if m.lo >= t0 and m.hi <= t1]
    return Take(name, take.t[k] - t0, take.acc[k], take.gyro[k], windows(moves))


def b1_validate(takes, per_take):
    """(teach takes, test takes) within B1's teach split alone: each single-class take teaches
    from its first `per_take` movements and is recognised after them (from halfway between the
    last taught movement and the next); the mixed takes are not read."""
    teach, test = [], []
    for name, tk in sorted(takes.items()):
        if name.startswith("all_"):
            continue
        teach.append(Take(tk.name, tk.t, tk.acc, tk.gyro, tk.moves[:per_take]))
        a, b = tk.moves[per_take - 1], tk.moves[per_take]
        test.append(cut(tk, (a.hi + b.lo) / 2, tk.t[-1], tk.name + "/rest"))
    return teach, test


def b1_cross(takes, per_take, taught):
    """(teach takes, test takes) within B1's teach split, across takes: taught from the first
    `per_take` movements of each single-class take of one speed (`taught`: fast or slow),
    recognised in the whole takes of the other speed (how hard the punches are changes)."""
    teach, test = [], []
    for name, tk in sorted(takes.items()):
        if name.startswith("all_"):
            continue
        if name.endswith("_" + taught):
            teach.append(Take(tk.name, tk.t, tk.acc, tk.gyro, tk.moves[:per_take]))
        else:
            test.append(tk)
    return teach, test


def b2_validate(subject, classes, seed=1, fold=None):
    """(teach stream, test stream) within B2's teach split alone (takes 0-4): taught from takes
    0-2, recognised in takes 3-4; with `fold` k (0-4), recognised in takes k and k+1 (mod 5) and
    taught from the other three."""
    d = load_b2(subject)
    tested = [3, 4] if fold is None else [fold % 5, (fold + 1) % 5]
    teach = [d[(c, k)] for c in classes for k in range(5) if k not in tested]
    test = [d[(c, k)] for c in classes for k in tested]
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(test))
    tag = "" if fold is None else str(fold)
    return (join(teach, "B2/%s/vteach%s" % (subject, tag)),
            join([test[i] for i in order], "B2/%s/vtest%s" % (subject, tag)))


def experiments(sets, b2_sets, per_take, seed, validate=False, folds=False):
    """[(experiment name, classes, teach takes, test takes)]; with `validate`, splits of the
    teach split alone (for choosing constants without reading the test split); with `folds`
    too, B2's five rotations of it and B1 across its fast and slow takes."""
    out = []
    if validate and "B1mixed" in sets:
        raise SystemExit("teach-score: B1mixed is B1's test split (its mixed takes): it has no --validate")
    b1 = load_b1() if {"B1", "B1mixed"} & set(sets) else None
    if validate:
        if "B1" in sets:
            teach, test = b1_validate(b1, per_take or 3)
            out.append(("B1/validate", B1_CLASSES, teach, test))
            if folds:
                for speed in ("fast", "slow"):
                    teach, test = b1_cross(b1, per_take or 3, speed)
                    out.append(("B1/cross-from-%s" % speed, B1_CLASSES, teach, test))
        if "B2" in sets:
            for bs in b2_sets:
                for s in B2_SUBJECTS:
                    for f in (range(5) if folds else [None]):
                        teach, test = b2_validate(s, B2_SETS[bs], seed=seed, fold=f)
                        out.append(("B2/%s/%s%s" % (bs, s, "" if f is None else "/fold%d" % f),
                                    B2_SETS[bs], [teach], [test]))
        return out
    if "B1mixed" in sets:
        for f in (0, 1):
            teach, test = b1_mixed(b1, f)
            out.append(("B1mixed/fold%d" % f, B1_CLASSES, teach, test))
    if "B1" in sets:
        teach, test = b1_split(b1, per_take)
        out.append(("B1" + ("/first%d" % per_take if per_take else ""), B1_CLASSES, teach, test))
    if "B2" in sets:
        for bs in b2_sets:
            classes = B2_SETS[bs]
            for s in B2_SUBJECTS:
                teach, test = b2_split(s, classes, distractors=len(classes) < len(B2_CLASSES), seed=seed)
                out.append(("B2/%s/%s" % (bs, s), classes, [teach], [test]))
    return out


def alone(take, c, taught):
    """The take with only class c's movements as taught (`taught`: keep only them, for a teach
    take) or with every other class's movement a distractor (a test take)."""
    if taught:
        moves = [Move(m.time, m.lo, m.hi, m.cls, m.distractor) for m in take.moves if m.cls == c]
    else:
        moves = [Move(m.time, m.lo, m.hi, m.cls, m.distractor or m.cls != c) for m in take.moves]
    return Take(take.name, take.t, take.acc, take.gyro, windows(moves))


def firings(method, name, classes, teach, test, binary, workdir, how, verbose=False):
    """{test take name: [(time, class, strength)]} of one method."""
    out = {}
    if method == "sensorwah":
        model = os.path.join(workdir, re.sub(r"[^A-Za-z0-9_.-]+", "_", name) + ".yaml")
        if os.path.exists(model):
            os.remove(model)
        rep = sw_teach(binary, model, teach, workdir, how)
        if verbose:
            print(rep[-1])
        for tk in test:
            out[tk.name] = sw_fire(binary, model, tk, workdir)
        os.remove(model)
    elif method in ("nn-oracle", "nn-peaks"):
        nn = NearestNeighbour(teach)
        for tk in test:
            out[tk.name] = nn.oracle(tk) if method == "nn-oracle" else nn.peaks(tk, teach)
    elif method == "proto":
        from . import teachproto
        rec = teachproto.teach(teach, how=how)
        for tk in test:
            out[tk.name] = teachproto.recognise(rec, tk)
    else:
        raise SystemExit("teach-score: unknown method %s" % method)
    return out


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="tools/teach-score", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="B1,B2",
                    help="B1, B2 or both (default); B1mixed: B1's two mixed takes, taught from one half of "
                         "each and recognised in the other, both ways round")
    ap.add_argument("--b2-set", default="all10", help="comma-separated: " + ", ".join(B2_SETS))
    ap.add_argument("--methods", default=None,
                    help="default sensorwah,nn-oracle,nn-peaks,proto (with --alone sensorwah,nn-peaks): sensorwah (the binary), nn-oracle (1-NN at the labelled times), nn-peaks (rotation-speed "
                         "peaks + 1-NN), proto (the Python prototype)")
    ap.add_argument("--teach-by", default="stretch", choices=["stretch", "mark"],
                    help="give `sensorwah teach` the labelled stretches (START END NAME) or marks at each movement's peak")
    ap.add_argument("--per-take", type=int, default=0, help="B1: teach from the first N movements of each teach take")
    ap.add_argument("--seed", type=int, default=1, help="B2: order of the test takes")
    ap.add_argument("--confusion", action="store_true", help="print the confusion matrices")
    ap.add_argument("--per-take-lines", action="store_true", help="a line per test take")
    ap.add_argument("--validate", action="store_true",
                    help="score within the teach split alone (B1: each single-class take taught from its first "
                         "--per-take movements, default 3, and recognised after them; B2: taught from takes 0-2, "
                         "recognised in takes 3-4): for choosing constants without the test split")
    ap.add_argument("--folds", action="store_true",
                    help="with --validate: B2 in five rotations of its teach split (recognised in takes k and "
                         "k+1 mod 5, taught from the other three), every take recognised twice; B1 also across "
                         "takes (taught from the fast single-class takes, recognised in the slow ones, and the "
                         "other way round)")
    ap.add_argument("--alone", action="store_true",
                    help="teach each class by itself (a model of one gesture) and recognise it among the others, "
                         "whose movements are then distractors: any firing on one is a false alarm")
    ap.add_argument("--binary", default=BINARY, help="default: the newer of .build-static/release and .build/release")
    a = ap.parse_args(argv)
    methods = (a.methods or ("sensorwah,nn-peaks" if a.alone else "sensorwah,nn-oracle,nn-peaks,proto")).split(",")
    if a.alone and set(methods) & {"nn-oracle", "proto"}:
        raise SystemExit("teach-score: --alone scores sensorwah and nn-peaks only (nn-oracle is given the taught "
                         "class's own times, so alone it cannot be wrong; proto has no null class): "
                         "--methods sensorwah,nn-peaks")
    exps = experiments(a.set.split(","), a.b2_set.split(","), a.per_take, a.seed, a.validate, a.folds)
    wd = tempfile.mkdtemp(prefix="teachsets-")
    print("teach by %s; binary %s" % (a.teach_by, a.binary))
    pooled = {}
    try:
        for name, classes, teach, test in exps:
            group = name.split("/")[0] + ("/" + name.split("/")[1] if name.startswith("B2") else "")
            for m in methods:
                tot = Tally(classes)
                # --alone: one model per class, taught from that class alone; else one for all
                models = [("/" + c, [c], [x for x in (alone(tk, c, True) for tk in teach) if x.moves],
                           [alone(tk, c, False) for tk in test]) for c in classes] if a.alone \
                    else [("", classes, teach, test)]
                for tag, cs, te, tt in models:
                    fs = firings(m, name + tag, cs, te, tt, a.binary, wd, a.teach_by)
                    for tk in tt:
                        t = Tally(cs)
                        t.add(tk, fs[tk.name])
                        if a.per_take_lines and len(test) > 1:
                            print("  %-28s %-10s %s" % (tk.name + tag, m, t.line()))
                        tot.merge(t)
                print("%-28s %-10s %s" % (name, m, tot.line()))
                print("%-28s %-10s   %s" % ("", "", tot.class_line()))
                if a.confusion:
                    print(tot.confusion())
                key = (group, m)
                if key not in pooled:
                    pooled[key] = Tally([])
                pooled[key].merge(tot)
        print("\npooled")
        for (group, m), t in pooled.items():
            print("%-28s %-10s %s" % (group, m, t.line()))
            if a.confusion:
                print(t.confusion())
    finally:
        for f in os.listdir(wd):
            os.remove(os.path.join(wd, f))
        os.rmdir(wd)


if __name__ == "__main__":
    main()
