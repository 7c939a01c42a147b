// libFuzzer entry for the applemidi target (tools/fuzz applemidi SECONDS); the logic is FuzzEntries.applemidi,
// which FuzzRegressionTests replays in the normal test run. Built with -parse-as-library:
// libFuzzer provides main.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let problems = FuzzEntries.run("applemidi", UnsafeRawBufferPointer(start: data, count: size))
    if !problems.isEmpty { fatalError(problems.prefix(5).joined(separator: "\n")) }
    return 0
}
