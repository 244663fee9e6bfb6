import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A bound Unix socket has its file before it listens; only `listen` makes it one.
@Suite struct UnixSocketListeningTests {
    @Test func aBoundSocketListensOnlyAfterListen() throws {
        let dir = try TemporaryDirectory()
        let fd = try Self.bound(dir.file("s p.sock"))
        defer { close(fd) }
        #expect(FileManager.default.fileExists(atPath: dir.file("s p.sock")))
        #expect(!isListening(unixSocket: dir.file("s p.sock")))
        try #require(listen(fd, 1) == 0)
        #expect(isListening(unixSocket: dir.file("s p.sock")))
        #expect(!isListening(unixSocket: dir.file("s p.sock") + "x"))
    }

    /// The kernel's table has a line for every socket on the machine: with hundreds of others
    /// listed after it (a test run opens that many), the socket is still found.
    @Test func aListeningSocketIsFoundAmongHundredsOfOthers() throws {
        let dir = try TemporaryDirectory()
        let fd = try Self.bound(dir.file("first.sock"))
        defer { close(fd) }
        try #require(listen(fd, 1) == 0)
        var others: [Int32] = []
        defer { for o in others { close(o) } }
        for i in 0..<600 {
            let o = try Self.bound(dir.file("other-\(i).sock"))
            others.append(o)
            try #require(listen(o, 1) == 0)
        }
        #expect(isListening(unixSocket: dir.file("first.sock")))
        #expect(isListening(unixSocket: dir.file("other-599.sock")))
    }

    /// A Unix stream socket bound at `path`.
    private static func bound(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        try #require(path.utf8.count < MemoryLayout.size(ofValue: address.sun_path))
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if bound != 0 { close(fd) }
        try #require(bound == 0)
        return fd
    }
}
