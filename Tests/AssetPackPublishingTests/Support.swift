import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestSupport
import Testing

/// Builds manifests and their content in a temporary folder.
struct Workspace {
    let dir = try! TemporaryDirectory("publishing")
    var repo: String { "\(dir.path)/repo" }

    /// Writes `files` under `content/<id>/` and a manifest selecting them; returns its path.
    @discardableResult
    func manifest(_ id: String, policy: String = #"{"onDemand": {}}"#, language: String? = nil,
                  files: [String: [UInt8]]) throws -> String {
        for (name, bytes) in files { try dir.write("content/\(id)/\(name)", bytes) }
        let selectors = files.keys.sorted().map { #"{"file": "\#($0)"}"# }.joined(separator: ", ")
        let lang = language.map { #", "language": "\#($0)""# } ?? ""
        let json = #"{"assetPackID": "\#(id)", "downloadPolicy": \#(policy), "fileSelectors": [\#(selectors)], "platforms": ["iOS"], "sourceRoot": "content/\#(id)"\#(lang)}"#
        try dir.write("\(id).json", json)
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
