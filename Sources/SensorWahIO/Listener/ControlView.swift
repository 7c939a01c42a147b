import SensorWahCore

/// What the control page shows beside the mappings, kept on the listener's loop: each sender's
/// frame rate, how often each gesture fired, and the latest news (calibration's progress) with
/// a serial that moves with it.
struct ControlView {
    var rates: [String: (frames: Int, nanos: UInt64, rate: Double)] = [:]
    var gestures = (flick: 0, shake: 0, tap: 0)
    /// How often each taught gesture was recognised, by the model's class index.
    var learned = [Int](repeating: 0, count: SensorFrame.learnedGestures)
    var message = "" { didSet { messageSerial &+= 1 } }
    private(set) var messageSerial = 0

    /// Counts the gestures a frame fired (the first `learnedCount` taught ones among them).
    @inline(__always)
    mutating func count(_ frame: borrowing SensorFrame, learnedCount: Int) {
        if frame[.flick] > 0 { gestures.flick &+= 1 }
        if frame[.shake] > 0 { gestures.shake &+= 1 }
        if frame[.tap] > 0 { gestures.tap &+= 1 }
        for c in 0..<learnedCount where frame.learned[c] > 0 { learned[c] &+= 1 }
    }

    /// Every sender's frame rate over the last second, from its frame count now.
    mutating func updateRate(_ sender: String, frames: Int, now: UInt64) {
        if let last = rates[sender] {
            let dt = Double(now &- last.nanos) * 1e-9
            if dt >= 0.9 { rates[sender] = (frames, now, Double(frames - last.frames) / dt) }
        } else {
            rates[sender] = (frames, now, 0)
        }
    }
}
