import AssetPackFormat
import AssetPackPublishing
import AssetPackServer
import AssetPackTransport
@testable import AssetPacks
import Foundation
import LoopbackServers

/// A repository made for one test: pack content and manifests written under a temporary folder,
/// published with `Publisher` and a signing key of its own, served by `RepositoryServer` on a free
/// loopback port. Everything goes away with the value.
final class TestRepository: @unchecked Sendable {
    let dir: TemporaryDirectory
    let key: SigningKey
    private var manifests: [String: String] = [:]

    /// The published repository folder (where catalog.json is).
    var path: String { dir.file("repo") }
    var publicKey: Ed25519PublicKey { key.publicKey }

    init() throws {
        dir = try TemporaryDirectory("client")
        key = try SigningKey.generate()
    }

    /// Writes (or replaces) pack `id`: its files under content/<id>/ and a manifest selecting them.
    func put(_ id: String, policy: DownloadPolicy = .onDemand, language: String? = nil, files: [String: [UInt8]]) throws {
        let content = dir.file("content/\(id)")
        try? FileManager.default.removeItem(atPath: content)
        for (name, bytes) in files { try dir.write("content/\(id)/\(name)", bytes) }
        var manifest: [String: Any] = [
            "assetPackID": id,
            "downloadPolicy": try JSONSerialization.jsonObject(with: JSONEncoder().encode(policy)),
            "fileSelectors": files.keys.sorted().map { ["file": $0] },
            "platforms": ["iOS"],
            "sourceRoot": "content/\(id)",
        ]
        if let language { manifest["language"] = language }
        manifests[id] = try dir.write("\(id).json", Array(JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])))
    }

    /// Leaves pack `id` out of the next publish (the catalog drops it).
    func drop(_ id: String) { manifests[id] = nil }

    /// Publishes every pack put so far; returns the new catalog.
    @discardableResult
    func publish(expiresIn: TimeInterval = 86_400, now: Date = Date()) throws -> Catalog {
        var options = PublishOptions(repository: path)
        options.baseDirectory = dir.path
        options.now = now
        options.expiresIn = expiresIn
        options.writer.threads = 2
        let report = try Publisher(key: key, options: options).publish(manifests: manifests.keys.sorted().map { manifests[$0]! })
        guard let catalog = report.catalog else { throw LoopbackServerError("publish wrote no catalog") }
        return catalog
    }

    /// The catalog as published now.
    func catalog() throws -> Catalog {
        try CatalogVerifier(publicKey: publicKey).verify(Array(FileManager.default.contents(atPath: path + "/catalog.json") ?? Data()), now: nil)
    }

    /// Starts a server on the repository folder with these faults and an access log of its own.
    func serve(_ configure: (inout FaultConfiguration) -> Void = { _ in }) throws -> TestServer {
        var faults = FaultConfiguration()
        faults.seed = 7
        configure(&faults)
        return try TestServer(directory: path, faults: faults, logPath: dir.file("access-\(UUID().uuidString.prefix(8)).log"))
    }

    /// A manager for `root` that downloads from `urls` with this repository's key, quick retries
    /// and English as the user's language; `configure` changes anything else. One manager per
    /// root at a time: release the previous one of a root (end its scope) before making the next.
    func manager(root: String, urls: [String], _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) throws -> AssetPackManager {
        var configuration = AssetPackManager.Configuration(repositoryURLs: urls, publicKey: publicKey, storageRoot: root,
                                                           preferredLanguages: ["en"], retryPolicy: .quick,
                                                           storageLockTimeout: .seconds(10))
        // Small packs in several parts, so that every test goes through parallel assembly
        // (processes of the CLI keep the default: one part below 32 MiB).
        configuration.parallelDownloads = .init(parts: 3, minimumInstallSize: 0)
        configure(&configuration)
        return try AssetPackManager(configuration: configuration)
    }

    func manager(root: String, server: TestServer, _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) throws -> AssetPackManager {
        try manager(root: root, urls: [server.url], configure)
    }
}

extension RetryPolicy {
    /// Retries enough to ride out injected faults, with pauses of a few milliseconds.
    static let quick = RetryPolicy(maxAttempts: 6, initialDelay: .milliseconds(2), maxDelay: .milliseconds(20))
}

/// One line of a server's access log.
struct LoggedRequest: Equatable {
    var method: String
    var path: String
    var status: Int
    /// The body length the response announced (a fault may have cut it short).
    var bytes: UInt64
    /// The server's note, e.g. `fault=corrupt@17,cut@4096`.
    var note: String = ""
}

/// A `RepositoryServer` with an access log in a file; stopped when released.
final class TestServer: @unchecked Sendable {
    let server: RepositoryServer
    let logPath: String

    init(directory: String, faults: FaultConfiguration, logPath: String) throws {
        var configuration = ServerConfiguration()
        configuration.faults = faults
        configuration.accessLog = .file(logPath)
        self.logPath = logPath
        server = try RepositoryServer(directory: directory, configuration: configuration)
    }

    deinit { server.stop() }

    var url: String { server.url }
    func stop() { server.stop() }

    /// Every request logged so far.
    func requests() -> [LoggedRequest] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { parseAccessLogLine(String($0)) }
    }

    /// Requests for pack files (not the catalog).
    func packRequests() -> [LoggedRequest] { requests().filter { $0.path.hasPrefix("/packs/") } }
}

/// Parses `127.0.0.1 - - [date] "GET /path HTTP/1.1" 206 1234 [note]` (common log format).
func parseAccessLogLine(_ line: String) -> LoggedRequest? {
    guard let open = line.firstIndex(of: "\""), let close = line[line.index(after: open)...].firstIndex(of: "\"") else { return nil }
    let request = line[line.index(after: open)..<close].split(separator: " ")
    let rest = line[line.index(after: close)...].split(separator: " ")
    guard request.count >= 2, rest.count >= 2, let status = Int(rest[0]), let bytes = UInt64(rest[1]) else { return nil }
    return LoggedRequest(method: String(request[0]), path: String(request[1]), status: status, bytes: bytes,
                         note: rest.dropFirst(2).joined(separator: " "))
}
