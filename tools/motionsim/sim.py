"""Motion simulator core: a continuous attitude and acceleration trajectory, sampled like a phone.

Frames: world z up (gravity (0, 0, -9.81) m/s^2); the attitude q rotates device coordinates
into world coordinates (v_world = q v_device q*). Body rates are in the device frame, as a
gyro measures them. The accelerometer is written in Core Motion's sign convention, in G:
acceleration = gravity + user acceleration, so a device lying flat, screen up, reads
(0, 0, -1), the same as motionGravity. That is minus the specific force divided by g:
    a_cm = -R^T (a_lin - g_world) / g  =  R^T (g_world - a_lin) / g
"""
import numpy as np

G = 9.80665
FS_INT = 2000.0   # internal rate of the continuous trajectory, Hz


# ---------------------------------------------------------------- quaternions (w, x, y, z)

def qmul(a, b):
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def qexp(rotvec):
    """Unit quaternion of a rotation vector (axis * angle), any leading shape."""
    ang = np.linalg.norm(rotvec, axis=-1, keepdims=True)
    half = 0.5 * ang
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(ang > 1e-12, np.sin(half) / np.where(ang > 1e-12, ang, 1.0), 0.5)
    return np.concatenate([np.cos(half), rotvec * k], axis=-1)


def qrot_inv(q, v):
    """R(q)^T v: a world vector in device coordinates."""
    w = q[..., :1]
    u = -q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def qrot(q, v):
    """R(q) v: a device vector in world coordinates."""
    w = q[..., :1]
    u = q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def prefix_product(dq):
    """q_k = dq_0 dq_1 ... dq_k for every k, by recursive doubling (vectorised, log2(N) passes)."""
    p = dq.copy()
    s = 1
    n = len(p)
    while s < n:
        p[s:] = qmul(p[:-s], p[s:])
        p /= np.linalg.norm(p, axis=-1, keepdims=True)
        s *= 2
    return p


# ---------------------------------------------------------------- signal building blocks

class Timeline:
    """Body rate (device frame, rad/s) and linear acceleration (world frame, m/s^2) at FS_INT."""

    def __init__(self, duration, rng):
        self.n = int(round(duration * FS_INT)) + 1
        self.t = np.arange(self.n) / FS_INT
        self.duration = duration
        self.rng = rng
        self.w = np.zeros((self.n, 3))
        self.a = np.zeros((self.n, 3))
        self.motion_mask = np.zeros(self.n, bool)   # where the script moves (for the notes)

    def idx(self, t0, t1):
        return slice(max(0, int(round(t0 * FS_INT))), min(self.n, int(round(t1 * FS_INT))))

    def envelope(self, t0, t1, ramp=0.5):
        """Smooth 0..1..0 window over [t0, t1] (raised-cosine ramps), full length."""
        e = np.zeros(self.n)
        sl = self.idx(t0, t1)
        tt = self.t[sl] - t0
        d = t1 - t0
        ramp = min(ramp, d / 2)
        up = np.clip(tt / ramp, 0, 1)
        dn = np.clip((d - tt) / ramp, 0, 1)
        e[sl] = np.minimum(0.5 - 0.5 * np.cos(np.pi * up), 0.5 - 0.5 * np.cos(np.pi * dn))
        self.motion_mask[sl] = True
        return e

    def bandnoise(self, dims, f_lo, f_hi, rms):
        """Band-limited Gaussian noise, each column scaled to the given RMS."""
        n = self.n
        x = self.rng.standard_normal((n, dims))
        X = np.fft.rfft(x, axis=0)
        f = np.fft.rfftfreq(n, 1.0 / FS_INT)
        X[(f < f_lo) | (f > f_hi)] = 0
        y = np.fft.irfft(X, n=n, axis=0)
        y /= np.sqrt(np.mean(y ** 2, axis=0, keepdims=True)) + 1e-300
        return y * rms

    def rotate(self, t0, t1, axis, angle):
        """Turn by `angle` rad about a device axis over [t0, t1] with a minimum-jerk profile."""
        sl = self.idx(t0, t1)
        d = t1 - t0
        s = (self.t[sl] - t0) / d
        rate = angle * 30 * s ** 2 * (1 - s) ** 2 / d
        ax = np.asarray(axis, float)
        ax = ax / np.linalg.norm(ax)
        self.w[sl] += rate[:, None] * ax
        self.motion_mask[sl] = True

    def push(self, t0, t1, direction, peak):
        """A hand movement along a world direction: accelerate, then decelerate (net velocity 0)."""
        sl = self.idx(t0, t1)
        d = t1 - t0
        s = (self.t[sl] - t0) / d
        # derivative of the minimum-jerk velocity bump: one positive and one negative lobe
        acc = (60 * s - 180 * s ** 2 + 120 * s ** 3) / 5.7735
        dr = np.asarray(direction, float)
        dr = dr / np.linalg.norm(dr)
        self.a[sl] += peak * acc[:, None] * dr
        self.motion_mask[sl] = True

    def pulse(self, t0, width, vec_world):
        """A half-sine acceleration spike (a tap or knock), in world coordinates."""
        sl = self.idx(t0, t0 + width)
        s = (self.t[sl] - t0) / width
        self.a[sl] += np.sin(np.pi * s)[:, None] * np.asarray(vec_world, float)

    def attitude(self, q0):
        """Integrate the body rate exactly per internal step (midpoint rate), from q0."""
        wm = np.empty_like(self.w)
        wm[0] = 0
        wm[1:] = 0.5 * (self.w[1:] + self.w[:-1])
        dq = qexp(wm / FS_INT)
        dq[0] = q0
        return prefix_product(dq)


def random_unit(rng):
    v = rng.standard_normal(3)
    return v / np.linalg.norm(v)


def tilt_quat(roll_deg, pitch_deg, yaw_deg=0.0):
    """Device attitude from Core Motion-like angles: q = qz(yaw) qx(pitch) qy(roll)."""
    def q(axis, deg):
        v = np.zeros(3)
        v[axis] = np.radians(deg)
        return qexp(v)
    return qmul(qmul(q(2, yaw_deg), q(0, pitch_deg)), q(1, roll_deg))


# ---------------------------------------------------------------- sampling

class Sensors:
    def __init__(self, rate, accel_noise=0.008, gyro_noise=0.005, gyro_bias=None,
                 accel_range=16.0, gyro_range=35.0, motion_rate_noise=0.002,
                 raw_gyro=True, motion_rate=True, accel_delay_samples=0,
                 duplicates=0.0, reorders=0.0, jitter=0.0004, gyro_average=False):
        self.rate = rate
        self.accel_noise = accel_noise
        self.gyro_noise = gyro_noise
        self.gyro_bias = gyro_bias
        self.accel_range = accel_range
        self.gyro_range = gyro_range
        self.motion_rate_noise = motion_rate_noise
        self.raw_gyro = raw_gyro
        self.motion_rate = motion_rate
        self.accel_delay_samples = accel_delay_samples
        self.duplicates = duplicates
        self.reorders = reorders
        self.jitter = jitter
        # False: each gyro sample is the instantaneous rate at its timestamp (a phone's IMU read
        # at its output rate). True: the mean rate over the interval since the previous sample
        # (a gyro whose digital filter averages down to the output rate).
        self.gyro_average = gyro_average


def sample(tl, q, sensors, rng, t_base):
    """Sample the trajectory like a phone: returns a dict of column arrays and row-order notes."""
    fs = sensors.rate
    n_out = int((tl.duration - 0.05) * fs)
    # nominal times plus a small clock jitter, on the internal grid
    tk = np.arange(n_out) / fs + rng.uniform(-sensors.jitter, sensors.jitter, n_out)
    gi = np.clip(np.round(tk * FS_INT).astype(int), 0, tl.n - 1)
    gi = np.maximum.accumulate(gi)
    delay = int(round(sensors.accel_delay_samples * FS_INT / fs))
    ai = np.clip(gi + delay, 0, tl.n - 1)

    down = np.array([0.0, 0.0, -1.0])
    grav_true = qrot_inv(q[gi], down)                       # unit gravity direction, device frame
    a_cm = qrot_inv(q[ai], np.array([0, 0, -G]) - tl.a[ai]) / G
    a_cm += rng.standard_normal(a_cm.shape) * sensors.accel_noise
    a_cm = np.clip(a_cm, -sensors.accel_range, sensors.accel_range)

    w_true = tl.w[gi]
    if sensors.gyro_average:
        cs = np.vstack([np.zeros((1, 3)), np.cumsum(tl.w, axis=0)])
        lo = np.maximum(gi - int(round(FS_INT / fs)), 0)
        w_meas = (cs[gi + 1] - cs[lo + 1]) / np.maximum(gi - lo, 1)[:, None]
    else:
        w_meas = w_true
    bias = np.zeros(3) if sensors.gyro_bias is None else np.asarray(sensors.gyro_bias, float)
    if bias.ndim == 1:
        bias = np.broadcast_to(bias, w_true.shape)
    else:
        bias = bias[gi]
    gyro = w_meas + bias + rng.standard_normal(w_true.shape) * sensors.gyro_noise
    gyro = np.clip(gyro, -sensors.gyro_range, sensors.gyro_range)
    mrate = w_meas + rng.standard_normal(w_true.shape) * sensors.motion_rate_noise

    # stamped with the sample's own time (the value is the trajectory's at the nearest internal step)
    ts_g = t_base + tk
    ts_a = t_base + tk + sensors.accel_delay_samples / fs
    order = np.arange(n_out)
    notes = []
    # row-order quirks: reorder adjacent rows, duplicate rows (whole rows, timestamps and all)
    if sensors.reorders > 0:
        k = rng.choice(np.arange(200, n_out - 200), int(sensors.reorders * n_out), replace=False)
        for i in sorted(k):
            order[i], order[i + 1] = order[i + 1], order[i]
        notes.append(f"{len(k)} adjacent row pairs swapped")
    if sensors.duplicates > 0:
        k = rng.choice(np.arange(200, n_out - 200), int(sensors.duplicates * n_out), replace=False)
        k = np.sort(k)
        order = np.insert(order, k + 1, order[k])
        notes.append(f"{len(k)} rows written twice")
    cols = {
        "accelerometerTimestamp_sinceReboot(s)": ts_a,
        "accelerometerAccelerationX(G)": a_cm[:, 0],
        "accelerometerAccelerationY(G)": a_cm[:, 1],
        "accelerometerAccelerationZ(G)": a_cm[:, 2],
    }
    if sensors.raw_gyro:
        cols.update({
            "gyroTimestamp_sinceReboot(s)": ts_g,
            "gyroRotationX(rad/s)": gyro[:, 0],
            "gyroRotationY(rad/s)": gyro[:, 1],
            "gyroRotationZ(rad/s)": gyro[:, 2],
        })
    cols["motionTimestamp_sinceReboot(s)"] = ts_g
    if sensors.motion_rate:
        cols.update({
            "motionRotationRateX(rad/s)": mrate[:, 0],
            "motionRotationRateY(rad/s)": mrate[:, 1],
            "motionRotationRateZ(rad/s)": mrate[:, 2],
        })
    cols.update({
        "motionGravityX(G)": grav_true[:, 0],
        "motionGravityY(G)": grav_true[:, 1],
        "motionGravityZ(G)": grav_true[:, 2],
    })
    cols = {k: v[order] for k, v in cols.items()}
    stats = {
        "rows": int(len(order)),
        "clipped_accel_rows": int(np.sum(np.any(np.abs(a_cm) >= sensors.accel_range - 1e-9, axis=1))),
        "peak_rate": float(np.max(np.linalg.norm(w_true, axis=1))),
        "peak_deg_per_sample": float(np.degrees(np.max(np.linalg.norm(w_true, axis=1))) / fs),
        "peak_accel_g": float(np.max(np.linalg.norm(tl.a, axis=1)) / G),
        "notes": notes,
    }
    return cols, stats


def write_csv(path, cols):
    names = list(cols)
    data = np.column_stack([cols[k] for k in names])
    fmt = ["%.6f" if "Timestamp" in k else "%.7g" for k in names]
    np.savetxt(path, data, fmt=fmt, delimiter=",", header=",".join(names), comments="")
