// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "SensorWah",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "sensorwah", targets: ["sensorwah"]),
        .library(name: "SensorWahCore", targets: ["SensorWahCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-atomics.git", exact: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/ordo-one/package-benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The core: parsing, mapping, MIDI encoding, DSP. No system libraries, no I/O.
        .target(name: "SensorWahCore"),

        .executableTarget(
            name: "sensorwah",
            dependencies: [
                "SensorWahCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),

        .testTarget(name: "SensorWahCoreTests", dependencies: ["SensorWahCore"]),
        .testTarget(name: "SensorWahCLITests", dependencies: ["sensorwah"]),

        .executableTarget(
            name: "ParseMapBenchmarks",
            dependencies: [
                "SensorWahCore",
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/ParseMap",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
