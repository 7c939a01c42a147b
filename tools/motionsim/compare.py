"""tools/fusion-compare's work: read a SensorLog-layout log, run the filters, score them against
the log's reference gravity (motionGravityX/Y/Z).

Every filter's output is turned into one thing: the unit gravity direction in the device frame,
in Core Motion's convention (pointing down: a device lying flat, screen up, gives (0, 0, -1)).
"""
import csv
import math
import os
import subprocess
import tempfile

import numpy as np

G = 9.80665
SKIP_S = 5.0   # seconds from the log's first reference sample left out of every score

ANCHORS = ["vqf", "vqf-offline", "madgwick", "mahony", "fusion", "accel"]
CAUSAL_ANCHORS = ["vqf", "madgwick", "mahony", "fusion"]
LABELS = {"sensorwah": "SensorWah", "vqf": "VQF 6D", "vqf-offline": "offline VQF*", "madgwick": "Madgwick",
          "mahony": "Mahony", "fusion": "Fusion", "accel": "accel only"}


# ---------------------------------------------------------------- reading a log

def _num(s):
    try:
        v = float(s)
    except ValueError:
        return math.nan
    return v


def read_log(path):
    """The columns that matter, per data row (rows with a wrong field count are left out)."""
    want = {
        "ta": "accelerometerTimestamp_sinceReboot(s)",
        "ax": "accelerometerAccelerationX(G)", "ay": "accelerometerAccelerationY(G)", "az": "accelerometerAccelerationZ(G)",
        "tg": "gyroTimestamp_sinceReboot(s)",
        "gx": "gyroRotationX(rad/s)", "gy": "gyroRotationY(rad/s)", "gz": "gyroRotationZ(rad/s)",
        "tm": "motionTimestamp_sinceReboot(s)",
        "rx": "motionRotationRateX(rad/s)", "ry": "motionRotationRateY(rad/s)", "rz": "motionRotationRateZ(rad/s)",
        "Gx": "motionGravityX(G)", "Gy": "motionGravityY(G)", "Gz": "motionGravityZ(G)",
    }
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = [h.strip() for h in next(r)]
        idx = {k: header.index(v) for k, v in want.items() if v in header}
        rows = [[_num(row[i]) for i in idx.values()] for row in r if len(row) == len(header)]
    data = np.array(rows, float) if rows else np.zeros((0, len(idx)))
    cols = {k: data[:, j] for j, k in enumerate(idx)}
    n = len(data)
    for k in want:
        cols.setdefault(k, np.full(n, math.nan))
    return cols, n


def has_reference(path):
    with open(path, newline="") as f:
        header = f.readline()
    return "motionGravityX" in header and "accelerometerAccelerationX" in header


def reference(cols):
    """Reference samples: one per motion timestamp (sample-and-hold repeats dropped), in time
    order: the motion timestamps and the unit gravity directions."""
    t = cols["tm"]
    g = np.column_stack([cols["Gx"], cols["Gy"], cols["Gz"]])
    ok = np.isfinite(t) & np.all(np.isfinite(g), axis=1) & (np.linalg.norm(g, axis=1) > 0.1)
    t, g = t[ok], g[ok]
    order = np.argsort(t, kind="stable")
    t, g = t[order], g[order]
    keep = np.concatenate([[True], np.diff(t) > 0])
    g = g[keep] / np.linalg.norm(g[keep], axis=1, keepdims=True)
    return t[keep], g


def imu_samples(cols):
    """Gyro/accelerometer pairs for the fixed-rate anchors, in gyro-timestamp order.

    A row gives one pair: its gyro (raw gyroRotation, else motionRotationRate) with that row's
    accelerometer reading; the pair's time is the gyro's timestamp. Rows are sorted by it
    (stable), and a row whose gyro timestamp is not later than the previous kept one (a
    duplicated row, a sample-and-hold repeat, a reordered row) is dropped.
    """
    raw = np.isfinite(cols["gx"]).any()
    if raw:
        t, w = cols["tg"], np.column_stack([cols["gx"], cols["gy"], cols["gz"]])
    else:
        t, w = cols["tm"], np.column_stack([cols["rx"], cols["ry"], cols["rz"]])
    a = np.column_stack([cols["ax"], cols["ay"], cols["az"]])
    ok = np.isfinite(t) & np.all(np.isfinite(w), axis=1) & np.all(np.isfinite(a), axis=1)
    t, w, a = t[ok], w[ok], a[ok]
    order = np.argsort(t, kind="stable")
    t, w, a = t[order], w[order], a[order]
    keep = np.concatenate([[True], np.diff(t) > 0]) if len(t) else np.zeros(0, bool)
    dropped = int(len(t) - keep.sum())
    return t[keep], w[keep], a[keep], ("gyroRotation" if raw else "motionRotationRate"), dropped


# ---------------------------------------------------------------- the anchors

def down_from_quat(q):
    """Gravity direction (down) in the sensor frame from quaternions (w, x, y, z) that rotate
    sensor coordinates into an earth frame with z up: R^T (0, 0, -1) = -(third row of R)."""
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    up = np.column_stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])
    return -up / np.linalg.norm(up, axis=1, keepdims=True)


def run_anchor(name, w, a_cm, ts):
    """One anchor over the whole log. w: rad/s, a_cm: G in Core Motion's sign (gravity + user
    acceleration); the libraries want the specific force (+1 g up at rest): f = -a_cm."""
    f_ms2 = np.ascontiguousarray(-a_cm * G)
    gyr = np.ascontiguousarray(w, dtype=float)
    if name == "accel":
        return a_cm / np.maximum(np.linalg.norm(a_cm, axis=1, keepdims=True), 1e-12)
    if name == "vqf":
        from vqf import VQF
        out = VQF(ts).updateBatch(gyr, f_ms2)            # quat6D: sensor -> earth (z up)
        return down_from_quat(out["quat6D"])
    if name == "vqf-offline":
        from vqf import offlineVQF
        out = offlineVQF(gyr, f_ms2, None, ts)
        return down_from_quat(out["quat6D"])
    if name == "madgwick":
        from ahrs.filters import Madgwick
        return down_from_quat(Madgwick(gyr=gyr, acc=f_ms2, frequency=1.0 / ts).Q)   # sensor -> earth
    if name == "mahony":
        from ahrs.filters import Mahony
        return down_from_quat(Mahony(gyr=gyr, acc=f_ms2, frequency=1.0 / ts).Q)
    if name == "fusion":
        import imufusion
        ahrs = imufusion.Ahrs()                          # defaults (NWU, gain 0.5, ...) at the log's rate
        ahrs.set_settings(imufusion.AhrsSettings(sample_rate=1.0 / ts))
        ahrs.set_sample_period(ts)
        qs = np.empty((len(gyr), 4))
        gdeg = np.degrees(gyr)
        fg = -a_cm
        for i in range(len(gyr)):
            ahrs.update_no_magnetometer(gdeg[i], fg[i])
            qs[i] = ahrs.get_quaternion()                # earth (NWU, z up) from sensor, w x y z
        return down_from_quat(qs)
    raise ValueError(name)


# ---------------------------------------------------------------- SensorWah

def find_sensorwah(given, root):
    if given:
        return given
    for p in (".build/release/sensorwah", ".build/debug/sensorwah"):
        if os.access(os.path.join(root, p), os.X_OK):
            return os.path.join(root, p)
    return None


def run_sensorwah(binary, path, cols):
    """`sensorwah export PATH --sources tilt.x,tilt.y,tilt.z`: its frames, at absolute times.

    Export's `t` is the frame's time (its latest new timestamp, counted from the log's first
    one): the tilt in that row is for that time. The origin is found by matching (one of the
    first rows' timestamps against the rows' latest new timestamps).
    """
    with tempfile.NamedTemporaryFile(suffix=".csv") as out:
        p = subprocess.run([binary, "export", path, "--sources", "tilt.x,tilt.y,tilt.z", "-o", out.name],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"sensorwah export failed: {p.stderr.strip()}")
        d = np.loadtxt(out.name, delimiter=",", skiprows=1, ndmin=2)
    t_rel, v = d[:, 0], d[:, 1:4]
    # per row: the latest new timestamp (the export's t) and the gyro time of that row
    ts = np.column_stack([cols["ta"], cols["tg"], cols["tm"]])
    prev = np.vstack([np.full((1, 3), np.nan), ts[:-1]])
    new = np.isfinite(ts) & ~(ts == prev)
    latest = np.where(new, ts, -np.inf).max(axis=1)
    cands = np.unique(ts[:5][np.isfinite(ts[:5])])
    keys = np.round(latest[np.isfinite(latest)] * 1e4).astype(np.int64)
    keyset = set(keys.tolist())
    best, best_n = None, -1
    for c in cands:
        n = sum(int(round((t + c) * 1e4)) in keyset or int(round((t + c) * 1e4)) - 1 in keyset
                or int(round((t + c) * 1e4)) + 1 in keyset for t in t_rel[:200])
        if n > best_n:
            best, best_n = c, n
    t_abs = t_rel + best
    ok = np.all(np.isfinite(v), axis=1)
    return t_abs[ok], v[ok]


# ---------------------------------------------------------------- scoring

def rotate(v, rotvec):
    """Rodrigues: v turned by the rotation vectors rotvec (row by row)."""
    ang = np.linalg.norm(rotvec, axis=1, keepdims=True)
    k = np.divide(rotvec, ang, out=np.zeros_like(rotvec), where=ang > 1e-15)
    c, s = np.cos(ang), np.sin(ang)
    return v * c + np.cross(k, v) * s + k * np.sum(k * v, axis=1, keepdims=True) * (1 - c)


def at_times(t_out, v_out, t_eval, t_imu, w_imu, max_dt):
    """Each filter's estimate at the reference timestamps, the same way for every filter: its
    output nearest in time, carried over the few ms between the two with the measured rate
    (a fixed direction seen from a device turning at w turns at -w), when they are at most
    max_dt apart (else as it is)."""
    order = np.argsort(t_out, kind="stable")
    t_out, v_out = t_out[order], v_out[order]
    keep = np.concatenate([[True], np.diff(t_out) > 0])
    t_out, v_out = t_out[keep], v_out[keep]
    j = np.clip(np.searchsorted(t_out, t_eval), 1, len(t_out) - 1) if len(t_out) > 1 else np.zeros(len(t_eval), int)
    i = np.where(np.abs(t_out[j - 1] - t_eval) <= np.abs(t_out[j] - t_eval), j - 1, j) if len(t_out) > 1 else j
    dt = t_eval - t_out[i]
    dt = np.where(np.abs(dt) <= max_dt, dt, 0.0)
    mid = t_out[i] + 0.5 * dt
    k = np.clip(np.searchsorted(t_imu, mid), 1, len(t_imu) - 1)
    k = np.where(np.abs(t_imu[k - 1] - mid) <= np.abs(t_imu[k] - mid), k - 1, k)
    v = rotate(v_out[i], -w_imu[k] * dt[:, None])
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def score(est, ref):
    c = np.clip(np.sum(est * ref, axis=1), -1, 1)
    e = np.degrees(np.arccos(c))
    return dict(rms=float(np.sqrt(np.mean(e ** 2))), p95=float(np.percentile(e, 95)), max=float(np.max(e)), n=int(len(e)))


def sample_interval(t):
    """The anchors' fixed sample interval: the median interval, refined to the mean of the
    intervals within 20% of it (timestamps on a coarse clock make the median alone a step off)."""
    d = np.diff(t)
    m = float(np.median(d))
    near = d[np.abs(d - m) <= 0.2 * m]
    return float(np.mean(near)) if len(near) else m


def compare_log(path, sensorwah):
    """All filters on one log; returns a dict with the scores and the facts of the log."""
    cols, nrows = read_log(path)
    t_ref, g_ref = reference(cols)
    t, w, a, gyro_kind, dropped = imu_samples(cols)
    res = dict(path=path, rows=nrows, scores={}, notes=[])
    if len(t_ref) < 10 or len(t) < 10:
        res["notes"].append("not enough samples")
        return res
    ts = sample_interval(t)
    res.update(rate=1.0 / ts, gyro=gyro_kind, dropped=dropped, samples=int(len(t)))
    sel = t_ref >= t_ref[0] + SKIP_S
    t_eval, g_eval = t_ref[sel], g_ref[sel]
    for name in ANCHORS:
        try:
            res["scores"][name] = score(at_times(t, run_anchor(name, w, a, ts), t_eval, t, w, 2 * ts), g_eval)
        except Exception as e:  # a library refusing a log is a result too
            res["notes"].append(f"{name}: {e}")
    if sensorwah:
        try:
            t_sw, v_sw = run_sensorwah(sensorwah, path, cols)
            res["scores"]["sensorwah"] = score(at_times(t_sw, v_sw, t_eval, t, w, 2 * ts), g_eval)
        except Exception as e:
            res["notes"].append(f"sensorwah: {e}")
    return res
