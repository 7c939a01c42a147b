/// Sensorstream IMU+GPS (Android): no header; rows `timestamp, 3, ax, ay, az, 4, gx, gy, gz, ...`.
extension DialectRecognizer {
    static let sensorstream = DialectRecognizer(
        format: .sensorstream, name: "Sensorstream IMU+GPS",
        expects: "no header; rows timestamp, 3, ax, ay, az, 4, gx, gy, gz, ... (sensor id then three values)",
        sample: "890.71558, 3, 0.297, 0.000, 9.80665, 4, 0.1, 0.2, 0.3",
        headerless: true,
        rule: "no header; every fourth field from the second one is a Sensorstream sensor id (3, 4, 5, 81-86)",
        confidence: 0.9,
        test: { h in !h.isJSON && SensorParser.looksLikeSensorstream(h.text) },
        build: { _, _ in .refused("Sensorstream rows have no header.") })
}
