import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import Testing

/// A fresh folder under $TMPDIR for one test, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        path = "\(base)/publishing-test-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `bytes` to `relative`, creating folders.
    func write(_ relative: String, _ bytes: [UInt8]) {
        let url = URL(fileURLWithPath: "\(path)/\(relative)")
        try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data(bytes).write(to: url)
    }

    func write(_ relative: String, _ text: String) { write(relative, Array(text.utf8)) }
}

/// Deterministic pseudo-random bytes (incompressible test content).
func noise(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { _ in
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// Builds manifests and their content in a temporary folder.
struct Workspace {
    let dir = TemporaryDirectory()
    var repo: String { "\(dir.path)/repo" }

    /// Writes `files` under `content/<id>/` and a manifest selecting them; returns its path.
    @discardableResult
    func manifest(_ id: String, policy: String = #"{"onDemand": {}}"#, language: String? = nil,
                  files: [String: [UInt8]]) -> String {
        for (name, bytes) in files { dir.write("content/\(id)/\(name)", bytes) }
        let selectors = files.keys.sorted().map { #"{"file": "\#($0)"}"# }.joined(separator: ", ")
        let lang = language.map { #", "language": "\#($0)""# } ?? ""
        let json = #"{"assetPackID": "\#(id)", "downloadPolicy": \#(policy), "fileSelectors": [\#(selectors)], "platforms": ["iOS"], "sourceRoot": "content/\#(id)"\#(lang)}"#
        dir.write("\(id).json", json)
        return "\(dir.path)/\(id).json"
    }

    func options(_ configure: (inout PublishOptions) -> Void = { _ in }) -> PublishOptions {
        var o = PublishOptions(repository: repo)
        o.baseDirectory = dir.path
        o.now = Date(timeIntervalSince1970: 1_750_000_000)
        o.writer.threads = 2
        configure(&o)
        return o
    }

    /// Every file below the repository with its bytes, and every folder: a snapshot to compare.
    func snapshot() -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        guard let e = FileManager.default.enumerator(atPath: repo) else { return out }
        for case let rel as String in e {
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(repo)/\(rel)", isDirectory: &isDir)
            if isDir.boolValue { out[rel + "/"] = [] } else {
                out[rel] = [UInt8](FileManager.default.contents(atPath: "\(repo)/\(rel)") ?? Data([0xFF]))
            }
        }
        return out
    }

    func catalogBytes() -> [UInt8] { [UInt8](FileManager.default.contents(atPath: "\(repo)/catalog.json") ?? Data()) }
}

let testKey = try! SigningKey.generate()
let otherKey = try! SigningKey.generate()

/// The `assetpack` binary built beside the test bundle.
func assetpackBinary() -> String? {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<6 {
        let candidate = dir.appendingPathComponent("assetpack").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir.deleteLastPathComponent()
    }
    return nil
}

/// Runs the `assetpack` binary; returns the exit status, standard output and standard error.
func runAssetpack(_ arguments: [String], in directory: String) throws -> (status: Int32, out: String, err: String) {
    guard let binary = assetpackBinary() else {
        Issue.record("the assetpack binary was not found beside the test bundle; run swift build first")
        return (-1, "", "")
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: binary)
    p.arguments = arguments
    p.currentDirectoryURL = URL(fileURLWithPath: directory)
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}
