"""Physical model of the wrist and its sensors.

Wrist turns a gesture script into attitude, rotation rate and acceleration;
Sensors turns that into noisy, biased readings formatted like the app's.
"""

import math

from .common import DEG, G0, TWO_PI, fmt3_f32, qacc


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
