// Compiled as the module SensorWahIO for the config fuzz binary only: ConfigFile.swift imports
// SensorWahIO for readWholeFile (init(path:)), which the fuzzer never calls. Linking the real
// SensorWahIO would pull SwiftNIO into the fuzz build.
public func readWholeFile(_ path: String) -> String? { nil }
