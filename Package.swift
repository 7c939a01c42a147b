// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "SensorWah",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "sensorwah", targets: ["sensorwah"]),
        .library(name: "SensorWahCore", targets: ["SensorWahCore"]),
        // sensorwah.lv2's binary (tools/lv2-bundle puts it in the bundle with its Turtle files).
        .library(name: "sensorwah_lv2", type: .dynamic, targets: ["SensorWahLV2"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-atomics.git", exact: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio.git", exact: "2.101.3"),
        .package(url: "https://github.com/ordo-one/package-benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", exact: "1.6.1"),
        .package(url: "https://github.com/jpsim/Yams.git", exact: "6.2.2"),
        // listen --web: TLS for the page (browsers give the motion sensors only to a secure
        // page), and the local authority's certificates and keys.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-asn1.git", exact: "1.7.4"),
        // Tests only (SensorWahPropertyTests): generators and shrinking for property tests.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", exact: "2.0.1"),
    ],
    targets: [
        // The core: parsing, mapping, MIDI encoding, DSP. No system libraries, no I/O.
        .target(name: "SensorWahCore"),
        // Lock-free hand-off between threads (network -> outputs, anything -> audio callback).
        .target(name: "SensorWahRuntime", dependencies: [
            "SensorWahCore",
            .product(name: "Atomics", package: "swift-atomics"),
        ]),
        // The CPU's spin-wait hint (PAUSE/YIELD) for the output thread's short busy wait.
        .target(name: "CSpinHint"),
        // The running program: the pipeline (frames -> mapper -> every output), the output
        // protocol, the output thread, the live view's board, live control, clocks and signals.
        // No system libraries.
        .target(name: "SensorWahEngine", dependencies: [
            "SensorWahCore", "SensorWahRuntime", "CSpinHint",
            .product(name: "Atomics", package: "swift-atomics"),
        ]),
        // What a person reads on the terminal: the live view (--monitor), the progress line, the
        // end-of-run summary, log lines and network text made safe for a terminal, and plot's SVG.
        .target(name: "SensorWahConsole", dependencies: [
            "SensorWahCore", "SensorWahRuntime", "SensorWahEngine",
            .product(name: "Atomics", package: "swift-atomics"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Inputs and plain outputs: network (SwiftNIO listener, phone simulator, recorder, the
        // phone's browser over HTTPS), files (line source, timed replay) and the JSON output.
        .target(name: "SensorWahIO", dependencies: [
            "SensorWahCore", "SensorWahRuntime", "SensorWahEngine", "SensorWahConsole",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Atomics", package: "swift-atomics"),
        ]),

        // Thin adapters around C libraries.
        .systemLibrary(name: "CALSA", path: "Sources/CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(name: "SensorWahALSA", dependencies: [
            "SensorWahCore", "SensorWahRuntime", "SensorWahEngine", "CALSA",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .systemLibrary(name: "CJack", path: "Sources/CJack", pkgConfig: "jack", providers: [.apt(["libjack-jackd2-dev"])]),
        .systemLibrary(name: "CAvahi", path: "Sources/CAvahi", pkgConfig: "avahi-client", providers: [.apt(["libavahi-client-dev"])]),
        // mDNS/DNS-SD announcement of the RTP-MIDI session through the Avahi daemon.
        .target(name: "SensorWahAvahi", dependencies: [
            "SensorWahIO", "CAvahi",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The QR codes of `listen --web`'s page address, drawn in the terminal.
        .systemLibrary(name: "CQRencode", path: "Sources/CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // The JACK client: the effect chain in the process callback, its MIDI and wah outputs (libjack).
        .target(name: "SensorWahJack", dependencies: [
            "SensorWahCore", "SensorWahRuntime", "SensorWahEngine", "CJack",
            .product(name: "Atomics", package: "swift-atomics"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Sound files (libsndfile) and `render`: the effect chain over a file, offline. No JACK.
        .systemLibrary(name: "CSndfile", path: "Sources/CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .target(name: "SensorWahAudioFiles", dependencies: [
            "SensorWahCore", "SensorWahEngine", "CSndfile",
        ]),
        // The LV2 plugin: the descriptor, ports and Atom MIDI in C (LV2 headers from lv2-dev), the
        // DSP in Swift. The Swift runtime is linked statically and every symbol but lv2_descriptor
        // hidden (exports.map), so hosts loading other Swift plugins see no clash.
        .target(name: "CLV2Glue", path: "Sources/LV2/CLV2Glue"),
        .target(name: "SensorWahLV2", dependencies: ["SensorWahCore", "CLV2Glue"], path: "Sources/LV2/SensorWahLV2",
                linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xlinker", "--version-script=Sources/LV2/bundle/exports.map"])]),
        // The same wah in plain C, compiled -O2: the benchmark's and tests' reference.
        .target(name: "CWahReference", cSettings: [.unsafeFlags(["-O2", "-ffp-contract=off"])]),
        // The effect chain's fuzz, tremolo, phaser and delay in plain C, -O2: their reference likewise.
        .target(name: "CEffectReference", cSettings: [.unsafeFlags(["-O2", "-ffp-contract=off"])]),

        // The command line: subcommands, option groups and the wiring between them.
        .executableTarget(
            name: "sensorwah",
            dependencies: [
                "SensorWahCore", "SensorWahEngine", "SensorWahConsole", "SensorWahIO", "SensorWahALSA", "SensorWahJack", "SensorWahAudioFiles", "SensorWahAvahi", "CQRencode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "Yams", package: "Yams"),
            ],
            // Released, the command carries the Swift runtime and Foundation (linked statically),
            // so that it runs where no Swift is installed. Only this module is compiled with
            // -static-stdlib, which makes its object name the static Foundation's own libraries
            // for the linker; every other module compiles as in a test or benchmark build, so
            // those builds reuse it (`swift build --static-swift-stdlib` would compile every
            // module, dependencies included, with the flag). The test build leaves both out
            // (below).
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
        ),

        // Test and benchmark machinery: built beside the product, never installed.
        // The JACK client with a synthetic sweep, and the real-time audit that counts
        // forbidden calls in its process callback (tests, tools/jack-bench).
        .executableTarget(
            name: "sensorwah-jack-check",
            dependencies: [
                "SensorWahCore", "SensorWahEngine", "SensorWahIO", "SensorWahJack",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Tools/JackCheck"
        ),
        // The Swift side of tools/alsa-bench (ALSA send latency against seq-bench.c).
        .executableTarget(
            name: "sensorwah-alsa-bench",
            dependencies: [
                "SensorWahCore", "SensorWahEngine", "SensorWahALSA",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            path: "Benchmarks/ALSABench"
        ),

        // The suites' shared machinery: one way to wait for a condition, loopback sockets, and
        // the child processes each test leaves running stopped at its end. A plain target under
        // Tests/ that only test targets depend on: no product links it.
        .target(
            name: "TestSupport",
            dependencies: [.product(name: "MallocInterposerSwift", package: "malloc-interposer")],
            path: "Tests/TestSupport"),

        .testTarget(name: "SensorWahCoreTests", dependencies: [
            "SensorWahCore", "CWahReference", "CEffectReference", "TestSupport",
            .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
        ], exclude: ["Golden", "Reference"]),
        // (PlotTrace, from the console, records what a pipeline under test sends)
        .testTarget(name: "SensorWahEngineTests", dependencies: [
            "SensorWahCore", "SensorWahEngine", "SensorWahConsole", .product(name: "Atomics", package: "swift-atomics"),
        ]),
        .testTarget(name: "SensorWahConsoleTests", dependencies: ["SensorWahCore", "SensorWahEngine", "SensorWahConsole"]),
        .testTarget(name: "SensorWahIOTests", dependencies: [
            "SensorWahCore", "SensorWahRuntime", "SensorWahEngine", "SensorWahIO", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .testTarget(name: "SensorWahJackTests", dependencies: [
            "SensorWahCore", "SensorWahRuntime", "SensorWahJack", "SensorWahAudioFiles", "CWahReference", "TestSupport",
            .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
        ]),
        .testTarget(name: "SensorWahAudioFilesTests", dependencies: ["SensorWahCore", "SensorWahAudioFiles", "CWahReference"]),
        .testTarget(name: "SensorWahCLITests", dependencies: ["sensorwah", "sensorwah-jack-check", "TestSupport"]),
        // The mapper's invariants as property tests: Swift Testing (PropertyBased reports through
        // it), run by tools/test as a step of its own before the XCTest run.
        .testTarget(name: "SensorWahPropertyTests", dependencies: [
            "SensorWahCore",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]),

        .executableTarget(
            name: "ParseMapBenchmarks",
            dependencies: [
                "SensorWahCore", "SensorWahRuntime",
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/ParseMap",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "WahBenchmarks",
            dependencies: [
                "SensorWahCore", "SensorWahJack", "CWahReference",
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/Wah",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // Each effect's cost per sample against its C reference, and the whole chain per 64-frame
        // period, with their bounds in Thresholds/ (tools/bench-effects).
        .executableTarget(
            name: "EffectBenchmarks",
            dependencies: [
                "SensorWahCore", "CWahReference", "CEffectReference",
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/Effects",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // The listener's latency at 100 Hz over loopback TCP and its CPU use at rest, with their
        // bounds in Thresholds/ (benchmark thresholds check).
        .executableTarget(
            name: "ListenBenchmarks",
            dependencies: [
                "SensorWahCore", "SensorWahRuntime", "SensorWahEngine", "SensorWahIO",
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/Listen",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// tools/test builds the tests with SENSORWAH_TESTABLE=1: -enable-testing (the suites' @testable
// imports) on this package's own modules, whatever SwiftPM's --build-tests does for the others.
// Nothing else sets it: what ships (tools/ship-build) is built without -enable-testing.
if Context.environment["SENSORWAH_TESTABLE"] == "1" {
    // the test bundle links the command's module (its suites import it) with the dynamic Swift
    // runtime XCTest needs: no static runtime for it there
    for target in package.targets where target.name == "sensorwah" {
        target.swiftSettings = []
        target.linkerSettings = []
    }
    for target in package.targets
    where target.type != .test && (target.name.hasPrefix("SensorWah") || target.name == "sensorwah") {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enable-testing"])]
    }
    // the command-line suites start programs and wait on them: their own code is not optimised
    // (it compiles last, after every module it tests, so its time is the build's)
    for target in package.targets where target.name == "SensorWahCLITests" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone"])]
    }
}
