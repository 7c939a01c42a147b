/// Column names (units stripped) that SensorLog writes, and how each feeds a sensor frame.
enum ColumnRole: Equatable {
    case timestamp(SensorGroup)
    case value(Quantity)
    case motionRate(Int)  // motionRotationRateX/Y/Z: feeds rate*, and gyro* when no raw gyro exists
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
        case "motionQuaternionX": return .value(.quatX)
        case "motionQuaternionY": return .value(.quatY)
        case "motionQuaternionZ": return .value(.quatZ)
        case "motionQuaternionW": return .value(.quatW)
        default: return nil
        }
    }

    /// Every name `role(of:)` knows.
    static let motionColumnNames: [String] = [
        "accelerometerTimestamp_sinceReboot", "accelerometerAccelerationX", "accelerometerAccelerationY",
        "accelerometerAccelerationZ",
        "gyroTimestamp_sinceReboot", "gyroRotationX", "gyroRotationY", "gyroRotationZ",
        "motionTimestamp_sinceReboot", "motionRotationRateX", "motionRotationRateY", "motionRotationRateZ",
        "motionUserAccelerationX", "motionUserAccelerationY", "motionUserAccelerationZ",
        "motionGravityX", "motionGravityY", "motionGravityZ", "motionPitch", "motionRoll", "motionYaw"
    ]

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
        "accelerometerAccelerationX", "accelerometerAccelerationY", "accelerometerAccelerationZ"
    ]
}

/// HyperIMU names its columns `MPL_Accelerometer.x`, `Gyroscope.y`, ...; values are Android SI.
enum HyperIMUColumns {
    static let standardGravity = 9.80665

    /// The quantity base and unit scale for a sensor name (case-insensitive, any vendor prefix).
    static func sensor(_ rawName: Substring) -> (base: Quantity, scale: Double)? {
        if case .quantity(let b, let s) = classify(rawName) { return (b, s) }
        return nil
    }

    enum Classification: Equatable {
        case quantity(Quantity, Double)
        case ignored  // a sensor SensorWah does not use (or an unknown name)
        case ambiguous  // a chip that holds both an accelerometer and a gyroscope
    }

    /// Chips that are accelerometers only (token prefixes, lower case): ST LIS3DH/LIS2DH/
    /// LIS2DW/LIS2HH/LIS331/LIS3DSH/LIS2DS, Bosch BMA, Kionix KX, NXP MMA, ADI ADXL,
    /// mCube MC34/MC36, MEMSIC MXC, Silan SC7A, Sensortek STK8.
    static let accelerometerChips = [
        "lis3dh", "lis2dh", "lis2dw", "lis2hh", "lis331", "lis3dsh", "lis2ds",
        "bma", "kx0", "kx1", "kxtj", "kxtf", "kxcj", "mma", "adxl", "mc34", "mc36",
        "mxc", "sc7a", "stk8"
    ]
    /// Chips that hold an accelerometer AND a gyroscope: a column named only after one of
    /// these cannot be told apart and is refused, never guessed.
    static let combinedChips = ["bmi", "lsm6", "lsm9", "lsm330", "icm", "mpu", "bmx", "asm330", "ism330", "qmi8", "bmf"]
    /// Magnetometer chips (left out).
    static let magnetometerChips = ["ak09", "ak89", "lis3mdl", "lis2mdl", "mmc", "yas", "bmm", "qmc", "hmc"]

    /// How a HyperIMU sensor name feeds a frame. Words first: linear / gravity / gyro /
    /// accelerometer (or a word `acc`, `accel...`) / orientation; then magnetometers and other
    /// sensors are left out; then a bare chip name counts as an accelerometer only when the
    /// chip is accelerometer-only, and is ambiguous when the chip also holds a gyroscope.
    static func classify(_ rawName: Substring) -> Classification {
        let name = rawName.lowercased()
        let words = name.split { !$0.isLetter && !$0.isNumber }
        if name.contains("uncalibrated") || words.contains("uncal") { return .ignored }
        if name.contains("linear") { return .quantity(.userX, 1 / standardGravity) }
        if name.contains("gravity") { return .quantity(.gravityX, 1 / standardGravity) }
        if name.contains("gyro") { return .quantity(.gyroX, 1) }
        if name.contains("accelerometer") || name.contains("acceleration")
            || words.contains(where: { $0 == "acc" || $0 == "accel" || $0 == "accl" })
        {
            return .quantity(.accelX, 1 / standardGravity)
        }
        if name.contains("orientation") { return .quantity(.yaw, .pi / 180) }  // azimuth, pitch, roll in degrees
        for word in [
            "magnet", "compass", "rotation", "pressure", "light", "proximity", "gps", "nmea", "step", "temperature",
            "humidity", "heart", "location", "game", "tilt", "motion", "significant"
        ] where name.contains(word) {
            return .ignored
        }
        if words.contains(where: { $0 == "mag" || $0 == "magn" }) { return .ignored }
        func has(_ chips: [String]) -> Bool { words.contains { w in chips.contains { w.hasPrefix($0) } } }
        if has(magnetometerChips) { return .ignored }
        if has(accelerometerChips) { return .quantity(.accelX, 1 / standardGravity) }
        if has(combinedChips) { return .ambiguous }
        return .ignored
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
