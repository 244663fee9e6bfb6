import Foundation
import Testing
@testable import AssetPackServer

/// A throwaway repository folder with a catalog and two packs of known bytes, and a server on
/// a free loopback port that stops when the fixture is released.
final class TestRepository {
    let root: URL
    let directory: String
    let catalog = Array("{\"version\": 1, \"packs\": []}\n".utf8)
    let pack: [UInt8]
    let smallPack: [UInt8]

    init(packSize: Int = 300_000) throws {
        root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("server-test-\(UUID().uuidString)")
        directory = root.appendingPathComponent("repo").path
        try FileManager.default.createDirectory(atPath: directory + "/packs", withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        pack = (0..<packSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
        smallPack = Array(pack.prefix(1000))
        try Data(catalog).write(to: URL(fileURLWithPath: directory + "/catalog.json"))
        try Data(pack).write(to: URL(fileURLWithPath: directory + "/packs/big.pack"))
        try Data(smallPack).write(to: URL(fileURLWithPath: directory + "/packs/small.pack"))
        try Data("top secret\n".utf8).write(to: root.appendingPathComponent("secret.txt"))
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var accessLogPath: String { root.appendingPathComponent("access.log").path }

    /// Starts a server on this repository; faults, TLS and other settings as given.
    func serve(faults: FaultConfiguration = FaultConfiguration(), tls: TLSIdentity? = nil,
               _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> RepositoryServer {
        var configuration = ServerConfiguration()
        configuration.faults = faults
        configuration.tls = tls
        configuration.accessLog = .file(accessLogPath)
        configure(&configuration)
        return try RepositoryServer(directory: directory, configuration: configuration)
    }

    /// Checks a response to `GET /catalog.json`: the bytes, the JSON type, the short cache life.
    func expectCatalog(_ r: RawResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 200, sourceLocation: sourceLocation)
        #expect(r.body == catalog, sourceLocation: sourceLocation)
        #expect(r.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
        #expect(r.header("Cache-Control") == "public, max-age=60", sourceLocation: sourceLocation)
    }

    func accessLog() -> String { (try? String(contentsOfFile: accessLogPath, encoding: .utf8)) ?? "" }

    /// The access log once a line contains `text`: lines are written when a response has ended,
    /// which may be a moment after the client read its last byte. Gives up after `seconds`.
    func accessLog(containing text: String, seconds: Double = 10) -> String {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var log = accessLog()
        while !log.contains(text) && Date() < deadline {
            usleep(10_000)
            log = accessLog()
        }
        return log
    }
}

/// Runs a program to completion; returns its exit status, standard output and standard error.
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let error = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, output, String(decoding: error, as: UTF8.self))
}
