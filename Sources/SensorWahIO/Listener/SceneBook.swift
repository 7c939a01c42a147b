import SensorWahEngine

/// The mapping sets of a run as the listener, the control API and a reload see them: without
/// scenes, the one list's texts as written; with scenes (`ListenerConfiguration.scenes`), each
/// scene, its mappings' texts and the one playing. The pipeline runs the mappings; this keeps
/// what they are called and which set is in.
struct SceneBook {
    var scenes: [Scene]
    /// The plain list's mappings as written (`--map`, the configuration file).
    var listTexts: [String]
    /// Each scene's mappings as written, by scene.
    var sceneTexts: [[String]]
    /// The scene playing (0 without scenes).
    private(set) var index = 0

    init(scenes: [Scene], start: Int, listTexts: [String], sceneTexts: [[String]]) {
        self.scenes = scenes
        self.listTexts = listTexts
        self.sceneTexts = sceneTexts
        if !scenes.isEmpty { index = min(max(start, 0), scenes.count - 1) }
    }

    var isEmpty: Bool { scenes.isEmpty }
    /// The scene playing, if there are scenes.
    var current: Scene? { scenes.indices.contains(index) ? scenes[index] : nil }

    /// Scene `i` counted around the list (one past the last is the first); nil without scenes.
    func wrapped(_ i: Int) -> Int? {
        scenes.isEmpty ? nil : ((i % scenes.count) + scenes.count) % scenes.count
    }

    /// Makes scene `i` (wrapped) the one playing; returns it, nil without scenes.
    mutating func select(_ i: Int) -> Scene? {
        guard let w = wrapped(i) else { return nil }
        index = w
        return scenes[w]
    }

    /// The texts of what runs now: the plain list's or the playing scene's.
    var runningTexts: [String] {
        scenes.isEmpty ? listTexts : (sceneTexts.indices.contains(index) ? sceneTexts[index] : [])
    }

    /// New texts for what runs now (the control API edited the running mappings).
    mutating func setRunningTexts(_ texts: [String]) {
        if scenes.isEmpty { listTexts = texts; return }
        while sceneTexts.count < scenes.count { sceneTexts.append([]) }
        sceneTexts[index] = texts
    }

    /// New scenes (a reloaded configuration): the scene of the same name keeps playing, else the
    /// first; returns the index to switch to.
    mutating func replace(_ next: [Scene], texts: [[String]]) -> Int {
        let name = current?.name
        scenes = next
        sceneTexts = texts
        return next.firstIndex { $0.name == name } ?? 0
    }
}
