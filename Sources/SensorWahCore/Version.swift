public enum SensorWahCoreVersion { public static let string = "0.1.0" }
