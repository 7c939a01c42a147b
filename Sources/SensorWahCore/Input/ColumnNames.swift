/// Column names (units stripped) that SensorLog writes, and how each feeds a sensor frame.
enum ColumnRole: Equatable {
    case timestamp(SensorGroup)
    case value(Quantity)
    case motionRate(Int)     // motionRotationRateX/Y/Z: feeds rate*, and gyro* when no raw gyro exists
}

enum SensorLogColumns {
    static func role(of name: Substring) -> ColumnRole? {
        switch name {
        case "accelerometerTimestamp_sinceReboot": return .timestamp(.accelerometer)
        case "accelerometerAccelerationX": return .value(.accelX)
        case "accelerometerAccelerationY": return .value(.accelY)
        case "accelerometerAccelerationZ": return .value(.accelZ)
        case "gyroTimestamp_sinceReboot": return .timestamp(.gyro)
        case "gyroRotationX": return .value(.gyroX)
        case "gyroRotationY": return .value(.gyroY)
        case "gyroRotationZ": return .value(.gyroZ)
        case "motionTimestamp_sinceReboot": return .timestamp(.motion)
        case "motionRotationRateX": return .motionRate(0)
        case "motionRotationRateY": return .motionRate(1)
        case "motionRotationRateZ": return .motionRate(2)
        case "motionUserAccelerationX": return .value(.userX)
        case "motionUserAccelerationY": return .value(.userY)
        case "motionUserAccelerationZ": return .value(.userZ)
        case "motionGravityX": return .value(.gravityX)
        case "motionGravityY": return .value(.gravityY)
        case "motionGravityZ": return .value(.gravityZ)
        case "motionPitch": return .value(.pitch)
        case "motionRoll": return .value(.roll)
        case "motionYaw": return .value(.yaw)
        default: return nil
        }
    }

    /// Names that mark a line as a SensorLog header even when it carries no motion column.
    static func isKnownNonMotion(_ name: Substring) -> Bool {
        name == "loggingTime" || name == "loggingSample" || name.hasPrefix("location")
            || name.hasPrefix("battery") || name.hasPrefix("pedometer") || name.hasPrefix("altimeter")
            || name.hasPrefix("magnetometer") || name.hasPrefix("motion") || name.hasPrefix("activity")
            || name == "label" || name == "deviceID" || name.hasPrefix("IP_") || name.hasPrefix("deviceOrientation")
            || name.hasPrefix("avAudioRecorder")
    }

    /// The 82-column header of SensorLog on an iPhone (2024-25), used for header-less streams
    /// with 82 fields when no `--columns` list is given.
    static let iPhone82: [String] = """
    loggingTime,loggingSample,locationTimestamp_since1970,locationLatitude,locationLongitude,locationAltitude,\
    locationSpeed,locationSpeedAccuracy,locationCourse,locationCourseAccuracy,locationVerticalAccuracy,\
    locationHorizontalAccuracy,locationFloor,locationHeadingTimestamp_since1970,locationHeadingX,locationHeadingY,\
    locationHeadingZ,locationTrueHeading,locationMagneticHeading,locationHeadingAccuracy,\
    accelerometerTimestamp_sinceReboot,accelerometerAccelerationX,accelerometerAccelerationY,accelerometerAccelerationZ,\
    gyroTimestamp_sinceReboot,gyroRotationX,gyroRotationY,gyroRotationZ,magnetometerTimestamp_sinceReboot,\
    magnetometerX,magnetometerY,magnetometerZ,motionTimestamp_sinceReboot,motionYaw,motionRoll,motionPitch,\
    motionRotationRateX,motionRotationRateY,motionRotationRateZ,motionUserAccelerationX,motionUserAccelerationY,\
    motionUserAccelerationZ,motionAttitudeReferenceFrame,motionQuaternionX,motionQuaternionY,motionQuaternionZ,\
    motionQuaternionW,motionGravityX,motionGravityY,motionGravityZ,motionMagneticFieldX,motionMagneticFieldY,\
    motionMagneticFieldZ,motionHeading,motionMagneticFieldCalibrationAccuracy,activityTimestamp_sinceReboot,\
    activity,activityActivityConfidence,activityActivityStartDate,pedometerStartDate,pedometerNumberofSteps,\
    pedometerAverageActivePace,pedometerCurrentPace,pedometerCurrentCadence,pedometerDistance,\
    pedometerFloorAscended,pedometerFloorDescended,pedometerEndDate,altimeterTimestamp_sinceReboot,altimeterReset,\
    altimeterRelativeAltitude,altimeterPressure,IP_Timestamp_since1970,IP_en0,IP_pdp_ip0,deviceID,\
    deviceOrientationTimeStamp_since1970,deviceOrientation,batteryTimeStamp_since1970,batteryState,batteryLevel,label
    """.split(separator: ",").map(String.init)

    /// The accelerometer-only layout (5 columns).
    static let accelOnly5: [String] = [
        "loggingTime", "accelerometerTimestamp_sinceReboot",
        "accelerometerAccelerationX", "accelerometerAccelerationY", "accelerometerAccelerationZ",
    ]
}

/// HyperIMU names its columns `MPL_Accelerometer.x`, `Gyroscope.y`, ...; values are Android SI.
enum HyperIMUColumns {
    static let standardGravity = 9.80665

    /// The quantity base and unit scale for a sensor name (case-insensitive, any vendor prefix).
    static func sensor(_ rawName: Substring) -> (base: Quantity, scale: Double)? {
        let name = rawName.lowercased()
        if name.contains("uncalibrated") { return nil }
        if name.contains("linear") { return (.userX, 1 / standardGravity) }
        if name.contains("gravity") { return (.gravityX, 1 / standardGravity) }
        if name.contains("accelerometer") || name.contains("acceleration") { return (.accelX, 1 / standardGravity) }
        if name.contains("gyroscope") || name.contains("gyro") { return (.gyroX, 1) }
        if name.contains("orientation") { return (.yaw, .pi / 180) }   // azimuth, pitch, roll in degrees
        return nil
    }
}

/// Strips a `(unit)` suffix and surrounding quotes/spaces from a header field.
func columnName(_ field: Substring) -> Substring {
    var s = field
    while let f = s.first, f == " " || f == "\"" || f == "\u{FEFF}" { s = s.dropFirst() }
    while let l = s.last, l == " " || l == "\"" || l == "\r" { s = s.dropLast() }
    if s.last == ")", let open = s.lastIndex(of: "(") { s = s[..<open] }
    while let l = s.last, l == " " { s = s.dropLast() }
    return s
}
