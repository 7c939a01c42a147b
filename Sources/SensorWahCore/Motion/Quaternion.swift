#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A 3-vector of doubles (device or world frame).
public typealias Vector3 = SIMD3<Double>

extension SIMD3 where Scalar == Double {
    @inlinable public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }
    @inlinable public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }
    @inlinable public var length: Double { (x * x + y * y + z * z).squareRoot() }
    @inlinable public var isFiniteVector: Bool { x.isFinite && y.isFinite && z.isFinite }
}

/// A unit quaternion for an attitude: it turns device-frame vectors into world-frame vectors
/// (Core Motion's `attitude.quaternion`: world Z up, gravity (0, 0, -1) in the world).
public struct Quaternion: Sendable, Equatable {
    public var w, x, y, z: Double

    @inlinable public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w; self.x = x; self.y = y; self.z = z
    }
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// Hamilton product: `a * b` applies `b` first, then `a`.
    @inlinable public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    @inlinable public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    @inlinable public var normalized: Quaternion {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        guard n > 1e-12, n.isFinite else { return .identity }
        // keep w >= 0 so that q and -q (the same attitude) print alike
        let s = (w < 0 ? -1 : 1) / n
        return Quaternion(w: w * s, x: x * s, y: y * s, z: z * s)
    }

    /// The exact rotation by the rotation vector `v` (axis times angle, radians): the
    /// quaternion exponential, with a series near zero so tiny steps stay exact.
    @inlinable public static func rotation(_ v: Vector3) -> Quaternion {
        let a2 = v.x * v.x + v.y * v.y + v.z * v.z
        let a = a2.squareRoot()
        let c: Double, s: Double  // cos(a/2), sin(a/2)/a
        if a < 0.25 {
            // series to the fourth order: below 1e-8 of the exact values for steps under 0.25 rad
            c = 1 - a2 / 8 + a2 * a2 / 384
            s = 0.5 - a2 / 48 + a2 * a2 / 3840
        } else {
            c = cos(a / 2)
            s = sin(a / 2) / a
        }
        return Quaternion(w: c, x: v.x * s, y: v.y * s, z: v.z * s)
    }

    /// Rotation about `axis` (unit) by `angle` radians.
    @inlinable public static func rotation(axis: Vector3, angle: Double) -> Quaternion {
        rotation(axis * angle)
    }

    /// The smallest rotation that turns the direction of `a` into the direction of `b`.
    @inlinable public static func turning(_ a: Vector3, to b: Vector3) -> Quaternion {
        let la = a.length, lb = b.length
        guard la > 1e-12, lb > 1e-12 else { return .identity }
        let u = a / la, v = b / lb
        let d = u.dot(v)
        if d < -0.999999 {
            // opposite: half a turn about any axis at right angles to u
            var axis = Vector3(1, 0, 0).cross(u)
            if axis.length < 1e-6 { axis = Vector3(0, 1, 0).cross(u) }
            return rotation(axis / axis.length * Double.pi)
        }
        let c = u.cross(v)
        return Quaternion(w: 1 + d, x: c.x, y: c.y, z: c.z).normalized
    }

    /// Device-frame vector to world frame (R v).
    @inlinable public func rotate(_ v: Vector3) -> Vector3 {
        let u = Vector3(x, y, z)
        let t = 2 * u.cross(v)
        return v + w * t + u.cross(t)
    }

    /// World-frame vector to device frame (R^T v).
    @inlinable public func unrotate(_ v: Vector3) -> Vector3 { conjugate.rotate(v) }

    /// Where gravity points in the device frame, as a unit vector: R^T (0, 0, -1). A device
    /// lying face up reads (0, 0, -1), like Core Motion's `gravity` and a resting accelerometer.
    @inlinable public var gravity: Vector3 {
        Vector3(-2 * (x * z - w * y), -2 * (y * z + w * x), -(1 - 2 * (x * x + y * y)))
    }

    /// The angle between two attitudes, radians (0...π).
    @inlinable public func angle(to o: Quaternion) -> Double {
        let d = abs(w * o.w + x * o.x + y * o.y + z * o.z)
        return 2 * acos(min(d, 1))
    }

    /// Core Motion's attitude from Euler angles (radians): `qz(yaw) * qx(pitch) * qy(roll)`.
    public static func attitude(pitch: Double, roll: Double, yaw: Double) -> Quaternion {
        rotation(Vector3(0, 0, yaw)) * rotation(Vector3(pitch, 0, 0)) * rotation(Vector3(0, roll, 0))
    }
}

/// Core Motion's pitch and roll of a gravity direction in the device frame (unit vector):
/// pitch = asin(-g.y), roll = atan2(g.x, -g.z). Checked against SensorLog's `motionPitch` /
/// `motionRoll` / `motionGravity*` (MotionConventionTests).
public enum TiltAngles {
    @inlinable public static func pitch(_ g: Vector3) -> Double { asin(min(max(-g.y, -1), 1)) }
    @inlinable public static func roll(_ g: Vector3) -> Double { atan2(g.x, -g.z) }
}
