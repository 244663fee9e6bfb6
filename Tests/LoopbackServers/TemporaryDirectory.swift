import Foundation

/// A fresh directory under $TMPDIR, removed with everything in it when the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "test") throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        path = (base as NSString).appendingPathComponent("\(label)-\(UUID().uuidString.prefix(12))")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ relative: String) -> String { (path as NSString).appendingPathComponent(relative) }

    /// Writes `bytes` at `relative`, creating folders; returns the absolute path.
    @discardableResult
    public func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let full = file(relative)
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }
}

/// Deterministic pseudo-random bytes (a 64-bit LCG), so that any slice is distinguishable.
public func patternBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed &* 6364136223846793005 &+ 1442695040888963407
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}
