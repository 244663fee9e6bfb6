import Foundation

/// Runs the built `assetpack` executable, which SwiftPM places beside the test bundle.
struct CLI {
    static let executable: String = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("assetpack").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("assetpack").path,
            Bundle.main.bundleURL.appendingPathComponent("assetpack").path,
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            fatalError("assetpack executable not found (build it first: swift build); looked in \(candidates)")
        }
        return found
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `assetpack ARGS` in `directory`, with `environment` added to this process's.
    @discardableResult
    static func run(_ args: [String], in directory: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read both pipes while the process runs so that neither fills up.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}

struct Scratch {
    let path: String
    init(_ name: String = #function) {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        path = base + "/apcli-\(name.filter { $0.isLetter })-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    @discardableResult
    func write(_ rel: String, _ text: String, mode: Int = 0o644) -> String {
        let full = path + "/" + rel
        try! FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(text.utf8))
        chmod(full, mode_t(mode))
        return full
    }
    func exists(_ rel: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + rel) }
    func read(_ rel: String) -> String { String(decoding: FileManager.default.contents(atPath: path + "/" + rel) ?? Data(), as: UTF8.self) }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
