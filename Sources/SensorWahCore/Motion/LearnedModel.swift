#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Poses taught by example: each named pose source holds two or more points, each a held
/// orientation (the fused gravity direction in the device frame) and the value the performer
/// gave it. The source's value follows the wrist between them: with two points, the wrist's
/// position along the arc from one to the other (clamped at the ends), linear in angle; with
/// more, inverse-square angular distance weighting. Exact at every taught point, monotone
/// between two of them.
public struct PoseSet: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var gravity: Vector3
        public var value: Double
        public var origin: String
        public init(gravity: Vector3, value: Double, origin: String = "") {
            self.gravity = gravity.length > 0 ? gravity / gravity.length : gravity
            self.value = value; self.origin = origin
        }
    }
    public var name: String
    public var points: [Point]
    public init(name: String, points: [Point] = []) { self.name = name; self.points = points }

    /// Two poses further apart than this (150°) are taken as opposite.
    public static let nearlyOpposite = 150 * Double.pi / 180

    @inlinable static func angle(_ a: Vector3, _ b: Vector3) -> Double {
        // atan2 of the cross and dot products: accurate near 0 and pi
        let c = a.cross(b).length, d = a.dot(b)
        return atan2(c, d)
    }

    /// The value at gravity direction `g` (unit or not); NaN with no point or no direction.
    @inlinable public func value(at g: Vector3) -> Double {
        guard g.isFiniteVector, g.length > 1e-9, !points.isEmpty else { return .nan }
        let u = g / g.length
        if points.count == 1 { return points[0].value }
        if points.count == 2 {
            let a = points[0].gravity, b = points[1].gravity
            let span = Self.angle(a, b)
            guard span > 1e-6 else { return points[0].value }
            let t: Double
            if span > Self.nearlyOpposite {
                // poses (almost) opposite (palm up, palm down): every way round from one to the
                // other is as good, so the share of the angles to each
                let da = Self.angle(u, a), db = Self.angle(u, b)
                t = da + db > 0 ? da / (da + db) : 0
            } else {
                // the direction in the plane of a and b, at right angles to a, towards b
                let perp = b - a * a.dot(b)
                let p = perp / perp.length
                let along = atan2(u.dot(p), u.dot(a))  // angle from a towards b, in (-pi, pi]
                t = min(max(along / span, 0), 1)
            }
            return points[0].value + t * (points[1].value - points[0].value)
        }
        var num = 0.0, den = 0.0
        for q in points {
            let d = Self.angle(u, q.gravity)
            if d < 1e-6 { return q.value }
            let w = 1 / (d * d)
            num += w * q.value; den += w
        }
        return num / den
    }
}

/// Everything taught by example that a motion stage recognises: the gestures and the poses.
public struct LearnedModel: Sendable, Equatable {
    public var gestures: GestureModel
    public var poses: [PoseSet]
    public init(gestures: GestureModel = GestureModel(), poses: [PoseSet] = []) {
        self.gestures = gestures; self.poses = poses
    }

    public var isEmpty: Bool { gestures.classes.isEmpty && poses.isEmpty }

    public func gestureIndex(_ name: String) -> Int? {
        gestures.classes.firstIndex { $0.name.lowercased() == name.lowercased() }
    }
    public func poseIndex(_ name: String) -> Int? {
        poses.firstIndex { $0.name.lowercased() == name.lowercased() }
    }

    /// Adds a point to pose `name` (made when new): the average of the gravity directions held
    /// (`samples`, any length) with `value`. Returns the largest angle (radians) of a sample
    /// from that average, how still the pose was held; nil when no sample had a direction.
    @discardableResult
    public mutating func addPose(_ name: String, value: Double, samples: [Vector3], origin: String) -> Double? {
        var sum = Vector3(0, 0, 0)
        for g in samples where g.isFiniteVector && g.length > 1e-9 { sum += g / g.length }
        guard sum.length > 1e-6 else { return nil }
        let g = sum / sum.length
        var spread = 0.0
        for s in samples where s.isFiniteVector && s.length > 1e-9 {
            spread = max(spread, PoseSet.angle(s / s.length, g))
        }
        let point = PoseSet.Point(gravity: g, value: value, origin: origin)
        if let i = poseIndex(name) {
            poses[i].points.append(point)
        } else {
            poses.append(PoseSet(name: name, points: [point]))
        }
        return spread
    }

    /// Gives each `gesture:`/`pose:` source of `mappings` its frame slot; nil, or the error
    /// naming the first source the model does not have. Without a model (`model` nil) every
    /// such source is an error.
    public static func resolve(_ mappings: inout [Mapping], against model: LearnedModel?, file: String? = nil)
        -> String?
    {
        for i in mappings.indices {
            guard case .learned(var l) = mappings[i].source else { continue }
            guard let m = model else {
                return
                    "\(l): a gesture or pose taught by example needs --gestures FILE (a model `sensorwah teach` writes)"
            }
            let where_ = file.map { " in \($0)" } ?? ""
            switch l.kind {
            case .gesture, .progress:
                guard let c = m.gestureIndex(l.name) else {
                    let names = m.gestures.classes.map(\.name)
                    return
                        "\(l): no gesture '\(l.name)'\(where_) (\(names.isEmpty ? "it has none" : "it has " + names.joined(separator: ", ")))"
                }
                l.slot = l.kind == .gesture ? c : SensorFrame.learnedProgressBase + c
            case .pose:
                guard let p = m.poseIndex(l.name) else {
                    let names = m.poses.map(\.name)
                    return
                        "\(l): no pose '\(l.name)'\(where_) (\(names.isEmpty ? "it has none" : "it has " + names.joined(separator: ", ")))"
                }
                l.slot = SensorFrame.learnedPoseBase + p
            }
            mappings[i].source = .learned(l)
        }
        return nil
    }

    /// The model's limits: at most `SensorFrame.learnedGestures` gestures and
    /// `SensorFrame.learnedPoses` poses, each pose with at least one point.
    public func validate() -> String? {
        if gestures.classes.count > SensorFrame.learnedGestures {
            return "\(gestures.classes.count) gestures: at most \(SensorFrame.learnedGestures)"
        }
        if poses.count > SensorFrame.learnedPoses { return "\(poses.count) poses: at most \(SensorFrame.learnedPoses)" }
        for p in poses where p.points.isEmpty { return "pose '\(p.name)' has no point" }
        return nil
    }
}

/// What a frame gives the taught gestures: its accelerometer and rotation-rate readings (an
/// absent one is a NaN vector) at the accelerometer's time (the gyro's without one). Teaching
/// (`sensorwah teach`) and recognition (`MotionStage`) read frames the same way.
public enum LearnedReading {
    public static let absent = Vector3(.nan, .nan, .nan)

    @inlinable public static func of(_ f: borrowing SensorFrame) -> (accel: Vector3, gyro: Vector3, time: Double)? {
        let a = Vector3(f[.accelX], f[.accelY], f[.accelZ])
        let w = Vector3(f[.gyroX], f[.gyroY], f[.gyroZ])
        let accelOK = f.has(.accelerometer) && a.isFiniteVector
        let gyroOK = f.has(.gyro) && w.isFiniteVector
        guard accelOK || gyroOK else { return nil }
        return (accelOK ? a : absent, gyroOK ? w : absent, accelOK ? f.time(.accelerometer) : f.time(.gyro))
    }
}
