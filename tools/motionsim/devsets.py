"""The real development sets with truth (../shared/dev-data, A1-A3) for tools/fusion-compare --dev:
load each trial, resample it, run the filters and score them against the truth.

Nothing of the data is copied: every trial is read from its folder and converted here.

What a trial gives (`load(name)`, `trials()`), on the trial's IMU clock, with the first IMU
sample near 0:

- gyro: `tg` (s), `gyro` (rad/s, device frame), less the bias where the set gives one (A1
  Android's drift columns, A3's still first second); A1 iOS' gyro is raw (its x bias is ~5 deg/s);
- accelerometer: `ta` (s), `acc` in G with Core Motion's sign (gravity + user acceleration:
  a device lying flat, screen up, reads (0, 0, -1)), on its own timestamps;
- truth: `tt` (s) and `down`, the unit gravity direction in the device frame (Core Motion's
  convention, like motionGravity), with the frames the set marks bad (lost, manual bad
  intervals, single-frame glitches) left out.

The sets:

- A1 (Inria Tyrex, Nexus 5 and iPhone 5 with Qualisys at 60 Hz). Android: gyro = uncalibrated
  minus the drift columns, accelerometer m/s^2 with +g up -> -a / 9.80665. iOS: gyro as is,
  accelerometer already in G with iOS' sign; times minus the boot time. Truth: q (scalar first)
  turns body vectors into an ENU lab frame, down = R^T (0, 0, -1); frames with ok = 0 left out.
  Clock: t_truth = t_imu + published offset (trials.csv) + a residual lag, which is estimated
  per trial (`fit_lag`). The handler the markers sit on is 1-2 deg off the phone's axes: the
  constant rotation from the handler to the gyro's frame is fitted per trial (Kabsch, gyro
  against the truth's body rate) and applied to the truth, so every filter is scored against
  the truth seen in the phone's own axes.
- A2 (RepoIMU pendulum, Vicon): rows with imu_repeated = 1 (sample-and-hold) left out of the
  IMU streams, which share one timestamp per sample; accelerometer m/s^2 with +g up. The truth's
  world frame is the IMU's frame at t = 0 (x roughly up): its up direction is taken as the mean
  of the accelerometer turned into that world frame over the trial (the linear accelerations of
  a pendulum average out there), down = -R^T up. The truth's body frame is the IMU's.
- A3 (UPenn ESE 650 board, Vicon): ADC counts converted with the calibration in
  calibration_fit.json as the set's README uses it (accelerometer: the fit on the slow trial 1;
  gyro scale: the mean of the fits on trials 4, 5, 7), each gyro's zero taken from the trial's
  first still second (the mean of the fits where that second is not still). Truth R turns body
  into a z-up world, down = R^T (0, 0, -1); Vicon dropouts left out; no extra rotation (the
  README finds the accelerometer within 0.2-0.6 deg of the truth at rest).

For every trial the residual lag between the IMU and the truth clock is found the same way
(`fit_lag`: the gyro's mean rate over each truth interval against the truth's body rate, lag
searched over +-0.1 s in 1 ms steps around the nominal alignment, refined by a parabola) and
applied; A2 and A3 nominally share one clock.

Resampling (`resample`): block averages, gyro and accelerometer each on its own timestamps,
into the bins [k / rate, (k + 1) / rate) of the trial's clock; each output sample is the mean
of the input samples in its bin, stamped with the bin's centre, so a resampled stream is on an
exact fixed-rate timeline like a phone's at that rate (the fixed-rate references' sample
interval is then exact; stamping the mean of the samples' times instead makes the intervals
alternate when a bin holds one sample or two, e.g. 94.8 Hz into 50 Hz bins). Empty bins (a gap
in the recording) give no sample. A rate is made only when the native rate is at least
1.2 times it: nearer, a jittered clock leaves bins with no sample, holes in the stream that no
fixed-rate filter expects (A3's 100 Hz board, A1's 94.8 Hz iPhone at 100 Hz, A2's 50.9 Hz IMU
at 50 Hz); the native column stands for that rate then.

Each rate's streams are laid out as SensorLog rows (`Streams.cols`, compare.read_log's keys):
one row per new timestamp (a resampled gyro and accelerometer bin share its centre, so one row
per bin), each group's latest sample in it, a group without a new sample repeating its previous
timestamp (sample-and-hold, as SensorLog writes). The fixed-rate references (VQF, Madgwick,
Mahony, Fusion, run by compare.run_anchor) take their (gyro, accelerometer) pairs from those
rows with compare.imu_samples, as from a log, at the pairs' mean interval (`mean_interval`).
SensorWah is an estimator like a prototype (`sensorwah_estimator`): the same rows written as a
SensorLog CSV, each with its own accelerometer and gyro timestamp, through
`sensorwah export FILE --sources tilt.x,tilt.y,tilt.z` (compare.run_sensorwah).

Scoring (`score_down`): the angle between an estimate's down and the truth at the truth's
timestamps, through compare.at_times (the estimate nearest in time, carried over the gap with
the rate's own gyro), from 5 s after the later of the first IMU sample and the first truth
frame to 0.05 s before the IMU ends; the same window at every rate.

A prototype estimator is scored like SensorWah with `score_estimator`.
"""
import csv
import functools
import json
import math
import os
import tempfile
from dataclasses import dataclass, field

import numpy as np

from . import ROOT, compare

DEV_DATA = os.environ.get("SENSORWAH_DEV_DATA", os.path.join(os.path.dirname(ROOT), "shared", "dev-data"))
G = compare.G
SKIP_S = compare.SKIP_S
END_MARGIN_S = 0.05
RATES = (None, 100.0, 50.0, 30.0)          # None: the native rate
REFERENCES = ["vqf", "madgwick", "mahony", "fusion"]
LAG_SEARCH_S = 0.1
A1 = "A1_tyrex_smartphone_qualisys"
A2 = "A2_repoimu_pendulum"
A3 = "A3_upenn_ese650_imu_vicon"


@dataclass
class Trial:
    name: str
    set: str
    tg: np.ndarray
    gyro: np.ndarray
    ta: np.ndarray
    acc: np.ndarray
    tt: np.ndarray
    down: np.ndarray
    lag: float = 0.0            # s: the truth's times on the IMU clock are the nominal ones - lag
    misalignment: float = 0.0   # deg: the fitted truth-body-to-IMU rotation (removed on A1 only; NaN: not fitted)
    notes: list = field(default_factory=list)

    @property
    def native_rate(self):
        """The gyro's mean rate (gaps left out, `mean_interval`)."""
        return 1.0 / mean_interval(self.tg)

    def window(self):
        """The scored span on the IMU clock (the same for every rate)."""
        start = max(self.tg[0], self.ta[0], self.tt[0]) + SKIP_S
        end = min(self.tg[-1], self.ta[-1]) - END_MARGIN_S
        return start, end


# ---------------------------------------------------------------- reading

def _read(path):
    """A CSV with a header: a dict of float columns (an empty field is NaN)."""
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = [h.strip() for h in next(r)]
        rows = [[float(v) if v.strip() else math.nan for v in row] for row in r if row]
    d = np.array(rows, float)
    return {h: d[:, i] for i, h in enumerate(header)}


def _stack(d, *names):
    return np.column_stack([d[n] for n in names])


def _quat_to_R(q):
    """Rotation matrices from unit quaternions (w, x, y, z), Hamilton."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return np.stack([
        np.column_stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)]),
        np.column_stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)]),
        np.column_stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]),
    ], axis=1)


def _increasing(t, *arrays):
    """Samples in time order with strictly increasing timestamps (later repeats left out)."""
    order = np.argsort(t, kind="stable")
    t = t[order]
    keep = np.concatenate([[True], np.diff(t) > 0])
    return (t[keep],) + tuple(a[order][keep] for a in arrays)


def trial_names(root=DEV_DATA):
    """Every trial of A1-A3 present under root, A1 first."""
    names = []
    a1 = os.path.join(root, A1, "trials.csv")
    if os.path.exists(a1):
        with open(a1, newline="") as f:
            names += [f"A1/{r['trial']}" for r in csv.DictReader(f)]
    a2 = os.path.join(root, A2)
    if os.path.isdir(a2):
        names += [f"A2/{n[:-4]}" for n in sorted(os.listdir(a2)) if n.startswith("Pendulum_") and n.endswith(".csv")]
    a3 = os.path.join(root, A3)
    if os.path.isdir(a3):
        nums = sorted(int(n[6:-4]) for n in os.listdir(a3) if n.startswith("imuRaw") and n.endswith(".csv"))
        names += [f"A3/trial{n}" for n in nums]
    return names


def _load_a1(name, root):
    with open(os.path.join(root, A1, "trials.csv"), newline="") as f:
        meta = {r["trial"]: r for r in csv.DictReader(f)}[name]
    folder = os.path.join(root, A1, name)
    offset = float(meta["published_time_offset_s"])
    if meta["os"] == "android":
        a = _read(os.path.join(folder, "accelerometer.csv"))
        g = _read(os.path.join(folder, "gyroscope_uncalibrated.csv"))
        ta, acc = a["t_s"], -_stack(a, "ax_ms2", "ay_ms2", "az_ms2") / G
        tg = g["t_s"]
        gyro = _stack(g, "gx_rads", "gy_rads", "gz_rads") - _stack(g, "drift_x_rads", "drift_y_rads", "drift_z_rads")
        boot = 0.0
    else:
        a = _read(os.path.join(folder, "accelerometer.csv"))
        g = _read(os.path.join(folder, "gyroscope.csv"))
        ta, acc = a["t_s"], _stack(a, "ax_g", "ay_g", "az_g")
        tg, gyro = g["t_s"], _stack(g, "gx_rads", "gy_rads", "gz_rads")
        boot = float(meta["ios_boot_time_s"])
    tr = _read(os.path.join(folder, "truth_qualisys.csv"))
    q = _stack(tr, "qw", "qx", "qy", "qz")
    ok = (tr["ok"] == 1) & np.all(np.isfinite(q), axis=1)
    # truth clock -> IMU clock (before the residual lag): t_imu = t_truth - offset + boot
    return dict(tg=tg, gyro=gyro, ta=ta, acc=acc, tt=tr["t_s"][ok] - offset + boot, R=_quat_to_R(q[ok]),
                up=np.array([0.0, 0.0, 1.0]), align=True,
                notes=[f"{meta['os']}, published offset {offset:+.2f} s, {int((~ok).sum())} truth frames not ok"])


def _load_a2(name, root):
    d = _read(os.path.join(root, A2, name + ".csv"))
    t = d["t_s"]
    new = d["imu_repeated"] == 0
    acc = -_stack(d, "acc_x_ms2", "acc_y_ms2", "acc_z_ms2") / G
    gyro = _stack(d, "gyr_x_rads", "gyr_y_rads", "gyr_z_rads")
    q = _stack(d, "vicon_qw", "vicon_qx", "vicon_qy", "vicon_qz")
    ok = np.all(np.isfinite(q), axis=1) & (np.linalg.norm(q, axis=1) > 0.5)
    tt, R = _increasing(t[ok], _quat_to_R(q[ok]))
    # the world's up: the mean specific force (-acc in G) turned into the world frame
    both = new & ok
    up = np.einsum("nij,nj->i", _quat_to_R(q[both]), -acc[both])
    up /= np.linalg.norm(up)
    tilt = math.degrees(math.acos(min(1.0, up[0])))
    return dict(tg=t[new], gyro=gyro[new], ta=t[new], acc=acc[new], tt=tt, R=R, up=up, align=False,
                notes=[f"{int((~new).sum())} sample-and-hold rows left out, world up {tilt:.2f} deg from +x"])


def _a3_calibration(root):
    with open(os.path.join(root, A3, "calibration_fit.json")) as f:
        fit = json.load(f)
    cal = {}
    for axis in ("acc_x", "acc_y", "acc_z"):
        c = fit["trial1"][axis]
        cal[axis] = (c["channel"], c["ms2_per_count"], c["zero_count"])
    for axis in ("gyr_x", "gyr_y", "gyr_z"):
        cs = [fit[t][axis] for t in ("trial4", "trial5", "trial7")]
        cal[axis] = (cs[0]["channel"], float(np.mean([c["rad_s_per_count"] for c in cs])),
                     float(np.mean([c["zero_count"] for c in cs])))
    return cal


def _load_a3(name, root):
    n = name[len("trial"):]
    d = _read(os.path.join(root, A3, f"imuRaw{n}.csv"))
    v = _read(os.path.join(root, A3, f"viconRot{n}.csv"))
    cal = _a3_calibration(root)
    t = d["t_s"]
    t0 = t[0]
    acc = np.column_stack([cal[k][1] * (d[f"{cal[k][0]}_adc"] - cal[k][2]) for k in ("acc_x", "acc_y", "acc_z")])
    first = t < t[0] + 1.0
    notes = []
    gyro = []
    for k in ("gyr_x", "gyr_y", "gyr_z"):
        counts = d[f"{cal[k][0]}_adc"]
        zero = cal[k][2]
        if np.std(counts[first]) < 1.5:
            zero = float(np.mean(counts[first]))
        else:
            notes.append(f"{k}: first second not still, zero from the fit")
        gyro.append(cal[k][1] * (counts - zero))
    gyro = np.column_stack(gyro)
    R = _stack(v, "r11", "r12", "r13", "r21", "r22", "r23", "r31", "r32", "r33").reshape(-1, 3, 3)
    ok = np.all(np.isfinite(R.reshape(-1, 9)), axis=1)
    notes.append(f"{int((~ok).sum())} Vicon dropouts")
    tt, R = _increasing(v["t_s"][ok] - t0, R[ok])
    return dict(tg=t - t0, gyro=gyro, ta=t - t0, acc=-acc / G, tt=tt, R=R, up=np.array([0.0, 0.0, 1.0]),
                align=False, notes=notes)


# ---------------------------------------------------------------- clock and axes

def _cumulative(t, w):
    """Trapezoid integral of w from t[0]."""
    inc = 0.5 * (w[1:] + w[:-1]) * np.diff(t)[:, None]
    return np.vstack([np.zeros((1, w.shape[1])), np.cumsum(inc, axis=0)])


def _interp_rows(t, x, ti):
    return np.column_stack([np.interp(ti, t, x[:, j]) for j in range(x.shape[1])])


def truth_body_rate(tt, R):
    """The truth's body rate over each interval between consecutive frames whose spacing is
    within 0.5-1.5 times the median: (interval start, end, rate in the body frame)."""
    dt = np.diff(tt)
    m = np.median(dt)
    sel = (dt > 0.5 * m) & (dt < 1.5 * m)
    Rr = np.einsum("nji,njk->nik", R[:-1][sel], R[1:][sel])      # R_i^T R_{i+1}: the body-frame step
    c = np.clip((np.trace(Rr, axis1=1, axis2=2) - 1) / 2, -1, 1)
    ang = np.arccos(c)
    axis = np.column_stack([Rr[:, 2, 1] - Rr[:, 1, 2], Rr[:, 0, 2] - Rr[:, 2, 0], Rr[:, 1, 0] - Rr[:, 0, 1]])
    s = np.sin(ang)
    k = np.where(s[:, None] > 1e-9, ang[:, None] / np.maximum(2 * s[:, None], 1e-12), 0.5)
    w = axis * k / dt[sel][:, None]
    good = ang < 15.0 * dt[sel]                                   # a flip is no rate
    return tt[:-1][sel][good], tt[1:][sel][good], w[good]


def fit_lag(tg, gyro, t0, t1, w_truth):
    """The lag L (s) that best lines the gyro up with the truth's body rate: the gyro's mean rate
    over [t0 - L, t1 - L] against the truth's over [t0, t1], each axis less its mean (bias), least
    squares over +-LAG_SEARCH_S in 1 ms steps, refined by a parabola through the best three.
    The truth's times on the IMU clock are then t - L."""
    C = _cumulative(tg, gyro)
    inside = (t0 - LAG_SEARCH_S > tg[0]) & (t1 + LAG_SEARCH_S < tg[-1])
    t0, t1, w_truth = t0[inside], t1[inside], w_truth[inside]
    wt = w_truth - w_truth.mean(axis=0)
    lags = np.arange(-LAG_SEARCH_S, LAG_SEARCH_S + 1e-9, 0.001)
    cost = []
    for L in lags:
        g = (_interp_rows(tg, C, t1 - L) - _interp_rows(tg, C, t0 - L)) / (t1 - t0)[:, None]
        g -= g.mean(axis=0)
        cost.append(float(np.mean(np.sum((g - wt) ** 2, axis=1))))
    cost = np.array(cost)
    i = int(np.argmin(cost))
    if 0 < i < len(lags) - 1:
        a, b, c = cost[i - 1], cost[i], cost[i + 1]
        den = a - 2 * b + c
        step = 0.5 * (a - c) / den if den > 0 else 0.0
        return float(lags[i] + step * 0.001)
    return float(lags[i])


def fit_rotation(tg, gyro, t0, t1, w_truth):
    """Kabsch: the rotation M (truth body -> gyro frame) that best maps the truth's body rate onto
    the gyro's mean rate over the same intervals, both less their means."""
    C = _cumulative(tg, gyro)
    inside = (t0 > tg[0]) & (t1 < tg[-1])
    t0, t1, w_truth = t0[inside], t1[inside], w_truth[inside]
    g = (_interp_rows(tg, C, t1) - _interp_rows(tg, C, t0)) / (t1 - t0)[:, None]
    g = g - g.mean(axis=0)
    w = w_truth - w_truth.mean(axis=0)
    U, _, Vt = np.linalg.svd(g.T @ w)
    d = np.sign(np.linalg.det(U @ Vt))
    return U @ np.diag([1.0, 1.0, d]) @ Vt


@functools.lru_cache(maxsize=None)
def load(name, root=DEV_DATA):
    """One trial, converted, aligned and ready (see the module's doc)."""
    setname, trial = name.split("/", 1)
    raw = {"A1": _load_a1, "A2": _load_a2, "A3": _load_a3}[setname](trial, root)
    tg, gyro = _increasing(raw["tg"], raw["gyro"])
    ta, acc = _increasing(raw["ta"], raw["acc"])
    tt, R = raw["tt"], raw["R"]
    ok = np.all(np.isfinite(gyro), axis=1)
    tg, gyro = tg[ok], gyro[ok]
    ok = np.all(np.isfinite(acc), axis=1)
    ta, acc = ta[ok], acc[ok]
    # the trial's clock: the IMU's, with its first sample near 0
    origin = math.floor(min(tg[0], ta[0]))
    tg, ta, tt = tg - origin, ta - origin, tt - origin
    t0, t1, w = truth_body_rate(tt, R)
    lag = fit_lag(tg, gyro, t0, t1, w)
    tt, t0, t1 = tt - lag, t0 - lag, t1 - lag
    # the rotation is only determined when the truth turns about more than one axis
    sv = np.linalg.svd(w - w.mean(axis=0), compute_uv=False)
    mis = math.nan
    if sv[-1] > 0.15 * sv[0]:
        M = fit_rotation(tg, gyro, t0, t1, w)
        mis = math.degrees(math.acos(np.clip((np.trace(M) - 1) / 2, -1, 1)))
    down = -np.einsum("nji,j->ni", R, raw["up"])                  # R^T (-up)
    if raw["align"] and not math.isnan(mis):
        down = down @ M.T
    down /= np.linalg.norm(down, axis=1, keepdims=True)
    notes = raw["notes"] + [f"residual lag {lag * 1000:+.1f} ms",
                            "truth-to-IMU rotation not fitted (the truth turns about one axis)" if math.isnan(mis) else
                            f"truth-to-IMU rotation {mis:.2f} deg " + ("removed" if raw["align"] else "(not applied)")]
    return Trial(name=name, set=setname, tg=tg, gyro=gyro, ta=ta, acc=acc, tt=tt, down=down,
                 lag=lag, misalignment=mis, notes=notes)


def trials(select=None, root=DEV_DATA):
    """The trials whose name contains one of the substrings in select (all when None), loaded."""
    return [load(n, root) for n in trial_names(root) if not select or any(s in n for s in select)]


# ---------------------------------------------------------------- resampling

@dataclass
class Streams:
    rate: float                 # the nominal rate: the bins' rate, or the native rate
    label: str                  # "native" or the bins' rate ("100", "50", "30")
    tg: np.ndarray
    gyro: np.ndarray
    ta: np.ndarray
    acc: np.ndarray
    cols: dict                  # SensorLog rows (compare.read_log's keys)


MIN_SAMPLES_PER_BIN = 1.2


def mean_interval(t):
    """The mean sample interval, intervals over 2.5 times the median (gaps) left out. The fixed-rate
    references run at it: on A2, whose IMU samples (every ~19.7 ms) carry the times of the ~11 ms
    rows they first appear in, compare.sample_interval's median-based interval is 8 % long."""
    d = np.diff(t)
    return float(np.mean(d[d <= 2.5 * np.median(d)]))


# Where in its bin a block average is stamped: 0.5 the centre (the default), 1.0 the end (a
# sensor that averages over an interval and releases the mean when the interval ends; its
# timestamp is the release). tools/fusion-compare --stamp sets it.
BLOCK_STAMP = 0.5


def _block(t, x, rate):
    k = np.floor(t * rate).astype(np.int64)
    uniq, start, counts = np.unique(k, return_index=True, return_counts=True)
    return (uniq + BLOCK_STAMP) / rate, np.add.reduceat(x, start, axis=0) / counts[:, None]


def _rows(tg, g, ta, a):
    """SensorLog sample-and-hold rows: one per new timestamp, from the first at which both groups
    have a sample; each group's latest sample in every row."""
    keys = np.union1d(tg, ta)
    ig = np.searchsorted(tg, keys, side="right") - 1
    ia = np.searchsorted(ta, keys, side="right") - 1
    both = (ig >= 0) & (ia >= 0)
    ig, ia = ig[both], ia[both]
    n = len(ig)
    nan = np.full(n, math.nan)
    return dict(ta=ta[ia], ax=a[ia, 0], ay=a[ia, 1], az=a[ia, 2], tg=tg[ig], gx=g[ig, 0], gy=g[ig, 1], gz=g[ig, 2],
                tm=nan, rx=nan, ry=nan, rz=nan, Gx=nan, Gy=nan, Gz=nan)


def resample(trial, rate=None):
    """The trial's streams at rate (block averages, see the module's doc), or as recorded when
    rate is None; None when the native rate is under MIN_SAMPLES_PER_BIN times rate."""
    if rate is None:
        cols = _rows(trial.tg, trial.gyro, trial.ta, trial.acc)
        return Streams(trial.native_rate, "native", trial.tg, trial.gyro, trial.ta, trial.acc, cols)
    if trial.native_rate < MIN_SAMPLES_PER_BIN * rate:
        return None
    tg, g = _block(trial.tg, trial.gyro, rate)
    ta, a = _block(trial.ta, trial.acc, rate)
    return Streams(float(rate), f"{rate:g}", tg, g, ta, a, _rows(tg, g, ta, a))


# ---------------------------------------------------------------- scoring

class Scorer:
    """The truth window of a trial at one rate; the rate's (gyro, accelerometer) pairs for the
    fixed-rate references (compare.imu_samples on the streams' rows) at their mean interval ts;
    its gyro carries an estimate to the truth's timestamps (compare.at_times, 2 ts at most)."""

    def __init__(self, trial, streams):
        self.trial, self.streams = trial, streams
        start, end = trial.window()
        sel = (trial.tt >= start) & (trial.tt <= end)
        self.t_eval, self.g_eval = trial.tt[sel], trial.down[sel]
        self.t, self.w, self.a, _, self.dropped = compare.imu_samples(streams.cols)
        self.ts = mean_interval(self.t)

    def score(self, t_out, down_out):
        t_out = np.asarray(t_out, float)
        down_out = np.asarray(down_out, float)
        ok = np.isfinite(t_out) & np.all(np.isfinite(down_out), axis=1)
        v = compare.at_times(t_out[ok], down_out[ok], self.t_eval, self.t, self.w, 2 * self.ts)
        return compare.score(v, self.g_eval)


def score_down(trial, streams, t_out, down_out):
    """RMS, p95, max (degrees) and n of an estimate's down against the trial's truth."""
    return Scorer(trial, streams).score(t_out, down_out)


def write_sensorlog(path, cols):
    """The rows as a SensorLog-layout CSV that `sensorwah export` reads."""
    header = ["accelerometerTimestamp_sinceReboot(s)", "accelerometerAccelerationX(G)",
              "accelerometerAccelerationY(G)", "accelerometerAccelerationZ(G)", "gyroTimestamp_sinceReboot(s)",
              "gyroRotationX(rad/s)", "gyroRotationY(rad/s)", "gyroRotationZ(rad/s)"]
    data = np.column_stack([cols[k] for k in ("ta", "ax", "ay", "az", "tg", "gx", "gy", "gz")])
    np.savetxt(path, data, delimiter=",", header=",".join(header), comments="",
               fmt=["%.6f", "%.9g", "%.9g", "%.9g", "%.6f", "%.9g", "%.9g", "%.9g"])


def score_trial(trial, rate=None, sensorwah=None, references=REFERENCES):
    """Every filter on one trial at one rate (None: native): a dict with the rate and the scores
    (compare.score's dicts) per filter key; None when the rate is over the trial's native rate."""
    streams = resample(trial, rate)
    if streams is None:
        return None
    sc = Scorer(trial, streams)
    res = dict(trial=trial.name, rate=streams.label, hz=round(streams.rate, 2), samples=int(len(sc.t)),
               scores={}, notes=[])
    for name in references:
        try:
            res["scores"][name] = sc.score(sc.t, compare.run_anchor(name, sc.w, sc.a, sc.ts))
        except Exception as e:  # a library refusing a trial is a result too
            res["notes"].append(f"{name}: {e}")
    if sensorwah:
        try:
            est = sensorwah_estimator(sensorwah)
            res["scores"]["sensorwah"] = sc.score(*est(streams.tg, streams.gyro, streams.ta, streams.acc))
        except Exception as e:
            res["notes"].append(f"sensorwah: {e}")
    return res


def _estimator_job(args):
    estimator, name, rate, root = args
    trial = load(name, root)
    streams = resample(trial, rate)
    if streams is None:
        return name, None, None
    t_out, down = estimator(streams.tg, streams.gyro, streams.ta, streams.acc)
    return name, streams.label, Scorer(trial, streams).score(t_out, down)["rms"]


def score_estimator(estimator, select=None, rates=RATES, jobs=1, root=DEV_DATA):
    """A prototype's RMS inclination error (deg) per trial and rate, scored exactly as SensorWah is:
    {trial: {"native"|"100"|...: rms}}.

    estimator(t_gyro, gyro, t_acc, acc) -> (t_out, down_out): gyro in rad/s and acc in G with Core
    Motion's sign, each on its own timestamps (s, the trial's clock, increasing); down_out is the
    unit gravity direction in the device frame at t_out. With jobs > 1 the estimator must be
    picklable (a module-level function)."""
    work = [(estimator, n, r, root) for n in trial_names(root) if not select or any(s in n for s in select)
            for r in rates]
    if jobs > 1:
        from multiprocessing import Pool
        with Pool(jobs) as pool:
            out = pool.map(_estimator_job, work, chunksize=1)
    else:
        out = [_estimator_job(w) for w in work]
    res = {}
    for name, label, rms in out:
        res.setdefault(name, {})
        if label is not None:
            res[name][label] = rms
    return res


def sensorwah_estimator(binary):
    """SensorWah as an estimator (what score_trial runs): the streams as a temporary SensorLog CSV
    (the rows of `_rows`), through `sensorwah export` (compare.run_sensorwah); its tilt.x/y/z at
    the frames' times, on the trial's clock."""
    return functools.partial(_sensorwah_estimate, binary)


def _sensorwah_estimate(binary, tg, gyro, ta, acc):
    cols = _rows(tg, gyro, ta, acc)
    with tempfile.TemporaryDirectory(prefix="devsets-") as d:
        path = os.path.join(d, "trial.csv")
        write_sensorlog(path, cols)
        return compare.run_sensorwah(binary, path, cols)
