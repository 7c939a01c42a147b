public enum SensorWahCoreVersion { public static let string = "0.2.0" }
