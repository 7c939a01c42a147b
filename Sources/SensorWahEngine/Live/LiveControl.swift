import Atomics
import Foundation
import SensorWahCore

/// What a performer or a stage hand asks of a running rig. The live view's keys, the control
/// page's API, the signals, a Program Change and the file watchers only post these; the rig
/// carries them out on its own loop (in `listen`, the listener's event loop; in `replay`,
/// between frames).
public enum LiveCommand: Sendable, Equatable {
    /// Range-calibrate this mapping (1 = the first) and write the range into the config file.
    case calibrate(mapping: Int)
    /// Teach a gesture or a pose into the gestures file (start, mark, finish, cancel).
    case teach(TeachRequest)
    /// Move to the next scene (the live view's `n`, SIGUSR2, the scene gesture).
    case nextScene
    /// Play this scene (0 = the first in the file; the control page).
    case selectScene(Int)
    /// A Program Change on the control input (program 0 = the first scene; channel 1-16).
    case programChange(program: Int, channel: Int)
    /// Play these mappings, written as `texts`, in place of the running ones (the control
    /// page's edits; in the scene playing when scenes run).
    case runMappings([Mapping], texts: [String])
    /// Write the running mappings' texts into the configuration file (the control page's Save),
    /// under the scene playing when scenes run.
    case save
    /// Read the configuration file again (SIGHUP, or its watcher once it changed and held still).
    case reload
    /// Read the gestures file again (its watcher, once it changed and held still).
    case reloadGestures
    /// Every sender's present orientation becomes its rest (the live view's `z`, the page's
    /// Re-zero, SIGUSR1).
    case rezero
    /// End the run as Ctrl-C does (the live view's `q`).
    case quit
    /// Play every sender's readings this way from now on (the control page's playout).
    case playout(Playout.Mode)
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

/// How a command went, for whoever waits to answer (the control API answers a request with it).
public enum LiveOutcome: Sendable, Equatable {
    case done
    /// Written to this file (`save`).
    case saved(path: String)
    /// Not carried out, and why.
    case failed(String)
}

/// Called once a command is carried out, on the rig's loop.
public typealias LiveReply = @Sendable (LiveOutcome) -> Void

/// One run's control plane: the commands posted to the rig, and the two things the data path
/// reads as they change (the solo, one relaxed load a frame) or the keys show (what is being
/// taught). Made by the command that runs, handed to the view, the control API and the
/// pipeline: nothing of it is process-wide.
public final class LiveControl: @unchecked Sendable {
    /// The mapping soloed (0 = the first), -1: every mapping sends. Set at once by whoever asks
    /// (the view's `s` and `a`, the API), read by `Pipeline.process` on every frame.
    public let solo = ManagedAtomic<Int>(-1)

    /// A command and who waits for its outcome.
    public struct Posted: Sendable {
        public let command: LiveCommand
        public let reply: LiveReply?
    }

    private let lock = NSLock()
    private var posted: [Posted] = []
    /// How many commands wait: a frame loop looks at this (one relaxed load) before taking the lock.
    private let waiting = ManagedAtomic<Int>(0)
    private var teaching: String?
    private var wake: (@Sendable () -> Void)?
    /// Commands waiting at most (a key held down cannot make the mailbox grow without bound).
    public static let capacity = 64

    public init() {}

    /// Posts a command for the rig, and wakes the rig's loop when one is set; false when the
    /// mailbox is full (the command is dropped, and `reply` is not called).
    @discardableResult
    public func post(_ c: LiveCommand, reply: LiveReply? = nil) -> Bool {
        let wake: (@Sendable () -> Void)? = lock.withLock {
            guard posted.count < Self.capacity else { return nil }
            posted.append(Posted(command: c, reply: reply))
            waiting.store(posted.count, ordering: .relaxed)
            return self.wake ?? {}
        }
        guard let wake else { return false }
        wake()
        return true
    }

    /// Has `wake` called after every post, from the posting thread: the rig's loop schedules its
    /// drain there (`listen`). Without one, the rig takes the commands when it looks (`replay`).
    public func setWake(_ wake: (@Sendable () -> Void)?) {
        lock.withLock { self.wake = wake }
    }

    /// Every command since the last call, oldest first, with who waits for each.
    public func takePosted() -> [Posted] {
        lock.withLock {
            defer { posted.removeAll(); waiting.store(0, ordering: .relaxed) }
            return posted
        }
    }

    /// Every command since the last call, oldest first (for a rig that answers nobody: a reply
    /// waiting is told the command failed).
    public func take() -> [LiveCommand] {
        takePosted().map { p in
            p.reply?(.failed("not available here"))
            return p.command
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
