import MallocInterposerSwift

/// Allocations counted with the malloc interposer (optimised builds: a debug build allocates
/// where the optimiser would not). The counter counts every thread's allocations, and a test
/// process has threads of its own that allocate now and then; the work measured is the same in
/// every round, so an allocation of its own shows in each. The least over a few rounds (after
/// one unmeasured, which the caller runs) is the work's own.
public enum Allocations {
    public static func least(rounds: Int = 3, _ body: () -> Void) -> (least: Int, counts: [Int]) {
        MallocInterposerSwift.initialize()
        var counts: [Int] = []
        for _ in 0..<rounds {
            MallocInterposerSwift.reset()
            MallocInterposerSwift.hook()
            body()
            MallocInterposerSwift.unhook()
            counts.append(MallocInterposerSwift.getStatistics().mallocCount)
        }
        return (counts.min() ?? 0, counts)
    }
}
