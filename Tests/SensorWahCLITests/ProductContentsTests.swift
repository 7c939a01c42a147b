import Foundation
import XCTest

/// What a user installs is the product alone: the real-time audit, the JACK check tool and the
/// ALSA benchmark live in their own executables beside the tests and benchmarks.
final class ProductContentsTests: XCTestCase {
    func testReleaseBinaryHoldsNoTestOrBenchmarkMachinery() throws {
        let binary = JackTest.shippedBinary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            XCTFail(
                "no release binary at \(binary): tools/setup builds it (or `swift build -c release --product sensorwah`)"
            )
            return
        }
        let nm = try JackTest.sh("/usr/bin/nm", ["-C", binary])
        XCTAssertEqual(nm.status, 0, nm.err)
        let symbols = nm.out.split(separator: "\n")
        XCTAssertGreaterThan(symbols.count, 1000, "nm saw too few symbols to judge")
        // the product's own code is there, so the check below can fail
        XCTAssertTrue(symbols.contains { $0.contains("Pipeline") }, "nm does not show the pipeline")
        // (TestSupport: the suites' waiting, loopback and child-process machinery, Tests/TestSupport)
        for marker in [
            "RTAudit", "sw_rtaudit", "JackCheck", "ALSABench", "SelfTestNode", "rtAuditSelfTestWork", "TestSupport"
        ] {
            let hits = symbols.filter { $0.contains(marker) }
            XCTAssertTrue(hits.isEmpty, "the release binary contains \(marker): \(hits.prefix(3))")
        }
        // and the audit does exist in the check tool, where it belongs
        let check = JackTest.checkTool(release: true)
        if FileManager.default.isExecutableFile(atPath: check) {
            let toolSymbols = try JackTest.sh("/usr/bin/nm", ["-C", check]).out
            XCTAssertTrue(toolSymbols.contains("RTAudit"), "the check tool carries no audit")
        } else {
            XCTFail("no release \(check) (tools/test builds it)")
        }
    }
}
