import Atomics
import Foundation

/// What a performer or a stage hand asks of a running rig. The live view's keys, the control
/// page's API, the signals and a Program Change only post these; the rig (`listen`'s `LiveRig`)
/// carries them out on its own loop.
public enum LiveCommand: Sendable, Equatable {
    /// Range-calibrate this mapping (1 = the first) and write the range into the config file.
    case calibrate(mapping: Int)
    /// Teach a gesture or a pose into the gestures file (start, mark, finish, cancel).
    case teach(TeachRequest)
    /// Move to the next scene (the live view's `n`, SIGUSR2).
    case nextScene
    /// Read the configuration file again (SIGHUP; the file watcher does it by itself).
    case reload
    /// Every sender's present orientation becomes its rest (the live view's `z`, the page's
    /// Re-zero).
    case rezero
    /// End the run as Ctrl-C does (the live view's `q`).
    case quit
}

/// A request to teach live.
public enum TeachRequest: Sendable, Equatable {
    /// Begin: a gesture `name`, or a pose `name` with `value`.
    case start(name: String, value: Double?)
    /// "That was one" (a gesture) or "this pose" (a pose), at this monotonic time.
    case mark(nanos: UInt64)
    case finish
    case cancel
}

/// One run's control plane: the commands posted to the rig, and the two things the data path
/// reads as they change (the solo, one relaxed load a frame) or the keys show (what is being
/// taught). Made by the command that runs, handed to the view, the control API and the
/// pipeline: nothing of it is process-wide.
public final class LiveControl: @unchecked Sendable {
    /// The mapping soloed (0 = the first), -1: every mapping sends. Set at once by whoever asks
    /// (the view's `s` and `a`, the API), read by `Pipeline.process` on every frame.
    public let solo = ManagedAtomic<Int>(-1)

    private let lock = NSLock()
    private var commands: [LiveCommand] = []
    /// How many commands wait: a frame loop looks at this (one relaxed load) before taking the lock.
    private let waiting = ManagedAtomic<Int>(0)
    private var teaching: String?
    /// Commands waiting at most (a key held down cannot make the mailbox grow without bound).
    public static let capacity = 64

    public init() {}

    /// Posts a command for the rig; false when the mailbox is full (the command is dropped).
    @discardableResult
    public func post(_ c: LiveCommand) -> Bool {
        lock.withLock {
            guard commands.count < Self.capacity else { return false }
            commands.append(c)
            waiting.store(commands.count, ordering: .relaxed)
            return true
        }
    }

    /// Every command since the last call, oldest first.
    public func take() -> [LiveCommand] {
        lock.withLock {
            defer { commands.removeAll(); waiting.store(0, ordering: .relaxed) }
            return commands
        }
    }

    /// Whether a command waits (without the lock: a frame loop asks before `take`).
    @inline(__always)
    public var hasCommands: Bool { waiting.load(ordering: .relaxed) > 0 }

    /// What is being taught (`swing`, `wah=1`), nil when nothing; set by the rig.
    public var teachingLabel: String? {
        get { lock.withLock { teaching } }
        set { lock.withLock { teaching = newValue } }
    }
}
