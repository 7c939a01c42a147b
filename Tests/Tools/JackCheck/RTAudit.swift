import ArgumentParser
import SensorWahEngine
import SensorWahJack
#if canImport(Glibc)
    import Glibc
#endif

/// `SENSORWAH_RT_AUDIT=1`: counts, on the JACK process thread and only inside the process
/// callback, allocations, locks, system calls and Swift retain/release, through the library
/// built by `tools/jack-rtaudit/build` (which must be LD_PRELOADed; see rtaudit.c for how each
/// counter works and what it cannot see). Prints one `rt-audit:` line when the JACK outputs
/// close. Meaningful with the release binary only.
final class RTAudit {
    typealias Hook = @convention(c) () -> Void
    let hooks: RTHooks
    private let counterCount: @convention(c) () -> Int32
    private let counterName: @convention(c) (Int32) -> UnsafePointer<CChar>?
    private let counter: @convention(c) (Int32) -> UInt64
    private let site: @convention(c) (Int32, Int32) -> UInt
    private let syscallNumber: @convention(c) (Int32) -> Int
    private let sudStatus: @convention(c) () -> Int32
    private let describe: @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int32) -> Void
    private let reset: @convention(c) () -> Void
    static let canaryObject = SelfTestNode(0)
    /// Result of the negative control run before the engine starts.
    private(set) var selfTest = "not run"

    private static func symbol<T>(_ name: String, as: T.Type) -> T? {
        guard let p = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(p, to: T.self)
    }

    /// `SENSORWAH_RT_AUDIT=1` audits; `SENSORWAH_RT_AUDIT=canary` additionally does one forbidden
    /// thing of each kind inside every audited callback (malloc/free, a system call, a Swift
    /// retain/release), to show the counters see the JACK thread.
    static func fromEnvironment() throws -> RTAudit? {
        guard let raw = getenv("SENSORWAH_RT_AUDIT") else { return nil }
        let v = String(cString: raw)
        if v == "" || v == "0" { return nil }
        let canary = v == "canary"
        guard let install = symbol("sw_rtaudit_install", as: (@convention(c) () -> Int32).self),
            let enter = symbol(canary ? "sw_rtaudit_enter_canary" : "sw_rtaudit_enter", as: Hook.self),
            let setCanary = symbol(
                "sw_rtaudit_set_canary_object", as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self),
            let exit = symbol("sw_rtaudit_exit", as: Hook.self),
            let count = symbol("sw_rtaudit_counter_count", as: (@convention(c) () -> Int32).self),
            let name = symbol("sw_rtaudit_counter_name", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self),
            let value = symbol("sw_rtaudit_counter", as: (@convention(c) (Int32) -> UInt64).self),
            let site = symbol("sw_rtaudit_site", as: (@convention(c) (Int32, Int32) -> UInt).self),
            let sysno = symbol("sw_rtaudit_syscall_number", as: (@convention(c) (Int32) -> Int).self),
            let sud = symbol("sw_rtaudit_sud_status", as: (@convention(c) () -> Int32).self),
            let describe = symbol(
                "sw_rtaudit_describe", as: (@convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int32) -> Void).self),
            let reset = symbol("sw_rtaudit_reset", as: (@convention(c) () -> Void).self)
        else {
            throw ValidationError(
                "SENSORWAH_RT_AUDIT is set but the audit library is not loaded: run with LD_PRELOAD=$(tools/jack-rtaudit/build)"
            )
        }
        let r = install()
        guard r == 0 else {
            throw ValidationError(
                "SENSORWAH_RT_AUDIT: cannot install the audit hooks (\(r == -1 ? "Swift runtime hooks not found" : r == -3 ? "libswiftCore has no symbol table (_swift_retain_adapter)" : "cannot handle SIGSYS"))"
            )
        }
        let audit = RTAudit(
            hooks: RTHooks(enter: enter, exit: exit), count: count, name: name, value: value, site: site,
            sysno: sysno, sud: sud, describe: describe, reset: reset)
        audit.runSelfTest()
        if canary { setCanary(Unmanaged.passUnretained(RTAudit.canaryObject).toOpaque()) }
        return audit
    }

    private init(
        hooks: RTHooks, count: @escaping @convention(c) () -> Int32,
        name: @escaping @convention(c) (Int32) -> UnsafePointer<CChar>?,
        value: @escaping @convention(c) (Int32) -> UInt64,
        site: @escaping @convention(c) (Int32, Int32) -> UInt,
        sysno: @escaping @convention(c) (Int32) -> Int,
        sud: @escaping @convention(c) () -> Int32,
        describe: @escaping @convention(c) (UInt, UnsafeMutablePointer<CChar>?, Int32) -> Void,
        reset: @escaping @convention(c) () -> Void
    ) {
        self.describe = describe
        self.reset = reset
        self.hooks = hooks
        counterCount = count
        counterName = name
        counter = value
        self.site = site
        syscallNumber = sysno
        sudStatus = sud
    }

    /// Negative control: on a thread of its own, between enter and exit, allocate, retain, lock and
    /// make a system call; every one of those counters must move. Then zero the counters.
    private func runSelfTest() {
        let box = Unmanaged.passRetained(SelfTestBox(hooks))
        var t = pthread_t()
        if pthread_create(
            &t, nil,
            { arg in
                let b = Unmanaged<SelfTestBox>.fromOpaque(arg!).takeRetainedValue()
                b.hooks.enter()
                b.result = rtAuditSelfTestWork(CommandLine.arguments.count + 3)
                var m = pthread_mutex_t()
                pthread_mutex_init(&m, nil)
                pthread_mutex_lock(&m)
                pthread_mutex_unlock(&m)
                _ = write(2, "", 0)
                b.hooks.exit()
                pthread_mutex_destroy(&m)
                return nil
            }, box.toOpaque()) == 0
        {
            pthread_join(t, nil)
        } else {
            box.release()
        }
        let c = Dictionary(counters, uniquingKeysWith: { a, _ in a })
        let wanted = ["malloc", "retain", "release", "swift_alloc", "lock", "syscalls"]
        let missed = wanted.filter { (c[$0] ?? 0) == 0 }
        selfTest = missed.isEmpty ? "ok" : "FAILED(not seen: \(missed.joined(separator: ",")))"
        reset()
    }

    /// Counter name -> value.
    var counters: [(String, UInt64)] {
        (0..<counterCount()).map { i in (counterName(i).map { String(cString: $0) } ?? "?", counter(i)) }
    }

    /// `rt-audit: cycles=... callbacks=... malloc=0 ... syscall_dispatch=on`, then, for any non-zero
    /// counter, the first call sites (symbolised with dladdr) and system call numbers.
    func report(engine: JackEngine) {
        let list = counters
        var line = "rt-audit: cycles=\(engine.stats.cycles)"
        for (n, v) in list { line += " \(n)=\(v)" }
        let sud = sudStatus()
        line += " selftest=\(selfTest)"
        line += " syscall_dispatch=" + (sud == 0 ? "on" : (sud == -1 ? "not-started" : "unavailable(errno \(sud))"))
        printError(line)
        for (i, (n, v)) in list.enumerated() where v > 0 && n != "callbacks" && n != "threads" {
            var where_: [String] = []
            for k in 0..<4 {
                let a = site(Int32(i), Int32(k))
                if a == 0 { continue }
                let buf = UnsafeMutablePointer<CChar>.allocate(capacity: 512)
                buf[0] = 0
                describe(a, buf, 512)
                where_.append(String(cString: buf))
                buf.deallocate()
            }
            if n == "syscalls" {
                var nums: [String] = []
                for k in 0..<16 { let s = syscallNumber(Int32(k)); if s >= 0 { nums.append(String(s)) } }
                where_.append("numbers " + nums.joined(separator: ","))
            }
            printError("rt-audit:   \(n): " + where_.joined(separator: "; "))
        }
    }
}

final class SelfTestBox: @unchecked Sendable {
    let hooks: RTHooks
    var result = 0
    init(_ hooks: RTHooks) { self.hooks = hooks }
}

final class SelfTestNode: @unchecked Sendable {
    var value: Int
    init(_ v: Int) { value = v }
}

/// Allocates, retains and releases (the self-test's forbidden work).
@inline(never)
func rtAuditSelfTestWork(_ n: Int) -> Int {
    var nodes: [AnyObject] = []
    for i in 0..<n { nodes.append(SelfTestNode(i)) }
    let copy = nodes
    return copy.reduce(0) { $0 + (($1 as? SelfTestNode)?.value ?? 0) }
}
