"""The CSV header lines the logs start with, and their column lists."""

# Column names as the SensorLog app writes them on an iPhone (82 columns).
PHONE_HEADER = (
    "loggingTime(txt),loggingSample(N),locationTimestamp_since1970(s),"
    "locationLatitude(WGS84),locationLongitude(WGS84),locationAltitude(m),"
    "locationSpeed(m/s),locationSpeedAccuracy(m/s),locationCourse(°),"
    "locationCourseAccuracy(°),locationVerticalAccuracy(m),"
    "locationHorizontalAccuracy(m),locationFloor(Z),"
    "locationHeadingTimestamp_since1970(s),locationHeadingX(µT),"
    "locationHeadingY(µT),locationHeadingZ(µT),locationTrueHeading(°),"
    "locationMagneticHeading(°),locationHeadingAccuracy(°),"
    "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
    "accelerometerAccelerationY(G),accelerometerAccelerationZ(G),"
    "gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),gyroRotationY(rad/s),"
    "gyroRotationZ(rad/s),magnetometerTimestamp_sinceReboot(s),"
    "magnetometerX(µT),magnetometerY(µT),magnetometerZ(µT),"
    "motionTimestamp_sinceReboot(s),motionYaw(rad),motionRoll(rad),"
    "motionPitch(rad),motionRotationRateX(rad/s),motionRotationRateY(rad/s),"
    "motionRotationRateZ(rad/s),motionUserAccelerationX(G),"
    "motionUserAccelerationY(G),motionUserAccelerationZ(G),"
    "motionAttitudeReferenceFrame(txt),motionQuaternionX(R),"
    "motionQuaternionY(R),motionQuaternionZ(R),motionQuaternionW(R),"
    "motionGravityX(G),motionGravityY(G),motionGravityZ(G),"
    "motionMagneticFieldX(µT),motionMagneticFieldY(µT),"
    "motionMagneticFieldZ(µT),motionHeading(°),"
    "motionMagneticFieldCalibrationAccuracy(Z),"
    "activityTimestamp_sinceReboot(s),activity(txt),"
    "activityActivityConfidence(Z),activityActivityStartDate(txt),"
    "pedometerStartDate(txt),pedometerNumberofSteps(N),"
    "pedometerAverageActivePace(s/m),pedometerCurrentPace(s/m),"
    "pedometerCurrentCadence(steps/s),pedometerDistance(m),"
    "pedometerFloorAscended(N),pedometerFloorDescended(N),"
    "pedometerEndDate(txt),altimeterTimestamp_sinceReboot(s),"
    "altimeterReset(bool),altimeterRelativeAltitude(m),altimeterPressure(kPa),"
    "IP_Timestamp_since1970(s),IP_en0(txt),IP_pdp_ip0(txt),deviceID(txt),"
    "deviceOrientationTimeStamp_since1970(s),deviceOrientation(Z),"
    "batteryTimeStamp_since1970(s),batteryState(R),batteryLevel(Z),label(N)"
)

# A plausible Apple Watch header: no loggingSample, no raw gyro, no raw
# magnetometer, no heading/IP/device columns; battery state tagged (N).
WATCH_HEADER = (
    "loggingTime(txt),locationTimestamp_since1970(s),"
    "locationLatitude(WGS84),locationLongitude(WGS84),locationAltitude(m),"
    "locationSpeed(m/s),locationCourse(°),locationVerticalAccuracy(m),"
    "locationHorizontalAccuracy(m),"
    "accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
    "accelerometerAccelerationY(G),accelerometerAccelerationZ(G),"
    "motionTimestamp_sinceReboot(s),motionYaw(rad),motionRoll(rad),"
    "motionPitch(rad),motionRotationRateX(rad/s),motionRotationRateY(rad/s),"
    "motionRotationRateZ(rad/s),motionUserAccelerationX(G),"
    "motionUserAccelerationY(G),motionUserAccelerationZ(G),"
    "motionAttitudeReferenceFrame(txt),motionQuaternionX(R),"
    "motionQuaternionY(R),motionQuaternionZ(R),motionQuaternionW(R),"
    "motionGravityX(G),motionGravityY(G),motionGravityZ(G),"
    "motionMagneticFieldX(µT),motionMagneticFieldY(µT),"
    "motionMagneticFieldZ(µT),motionHeading(°),"
    "motionMagneticFieldCalibrationAccuracy(Z),"
    "activityTimestamp_sinceReboot(s),activity(txt),"
    "activityActivityConfidence(Z),activityActivityStartDate(txt),"
    "pedometerStartDate(txt),pedometerNumberofSteps(N),pedometerDistance(m),"
    "pedometerFloorAscended(N),pedometerFloorDescended(N),"
    "pedometerEndDate(txt),altimeterTimestamp_sinceReboot(s),"
    "altimeterReset(bool),altimeterRelativeAltitude(m),altimeterPressure(kPa),"
    "batteryTimeStamp_since1970(s),batteryState(N),batteryLevel(Z),label(N)"
)

ACCEL_ONLY_HEADER = (
    "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),"
    "accelerometerAccelerationX(G),accelerometerAccelerationY(G),"
    "accelerometerAccelerationZ(G)"
)

PHONE_COLS = PHONE_HEADER.split(",")
WATCH_COLS = WATCH_HEADER.split(",")
assert len(PHONE_COLS) == 82, len(PHONE_COLS)
