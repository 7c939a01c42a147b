// libFuzzer entry for the configuration loader (tools/fuzz config SECONDS): the CLI's own
// Sources/sensorwah/Config/ConfigFile.swift and ConfigSchema.swift are compiled into this
// binary with Yams. The input is a configuration file's text: it loads, or it is refused with
// one Problem naming a line; a loaded file's scenes parse or are refused the same way, and it
// gives every command its arguments. ConfigCLITests.testFuzzCorpusAndRegressions replays the
// corpus through the real command.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    var problems: [String] = []
    func checkProblem(_ p: ConfigFile.Problem) {
        if p.line < 0 { problems.append("negative line in \(p)") }
        if p.message.isEmpty { problems.append("empty message") }
    }
    do {
        let c = try ConfigFile(path: "fuzz.yaml", text: text)
        for command in ["replay", "listen", "render", "learn", "stream", "export", "check"] {
            let (args, _) = c.arguments(for: command, given: [])
            _ = c.arguments(for: command, given: ["map", "udp"])
        }
        do { _ = try c.parsedScenes() } catch let p as ConfigFile.Problem { checkProblem(p) } catch {
            problems.append("scenes: unexpected error \(error)")
        }
        for m in c.mappings { _ = c.line(ofMapping: m.text) }
    } catch let p as ConfigFile.Problem {
        checkProblem(p)
    } catch {
        problems.append("unexpected error \(error)")
    }
    if !problems.isEmpty { fatalError(problems.joined(separator: "\n")) }
    return 0
}
