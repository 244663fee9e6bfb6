import AssetPackFormat
import AssetPackPublishing
import AssetPackServer
import Foundation
import TestSupport

/// A repository made for one test, in a temporary folder that goes away with the value: packs
/// put as files and manifests, published with `Publisher` and a signing key of its own — or
/// bytes placed as they are, for tests of the server alone — and served by `RepositoryServer`
/// on a free loopback port with an access log. The one test repository builder of the tests.
public final class TestRepository: @unchecked Sendable {
    public let dir: TemporaryDirectory
    public let key: SigningKey
    private var manifests: [String: String] = [:]

    /// The repository folder (where catalog.json is), `repo` inside `dir`.
    public var path: String { dir.file("repo") }
    public var publicKey: Ed25519PublicKey { key.publicKey }

    public init(_ label: String = "repository") throws {
        dir = try TemporaryDirectory(label)
        key = try SigningKey.generate()
    }

    /// Writes (or replaces) pack `id`: its files under content/<id>/ and a manifest selecting them,
    /// <id>.json in `dir`; returns the manifest's path.
    /// A device variant (`variant`: the manifest's `variant` object) is put beside the default
    /// under `variantName`: content/<id>@<name>/, <id>@<name>.json.
    @discardableResult
    public func put(_ id: String, policy: DownloadPolicy = .onDemand, language: String? = nil, userInfo: Any? = nil,
                    platforms: [Platform] = [.iOS], variant: [String: Any]? = nil, variantName: String? = nil,
                    files: [String: [UInt8]]) throws -> String {
        let key = variantName.map { "\(id)@\($0)" } ?? id
        let content = dir.file("content/\(key)")
        try? FileManager.default.removeItem(atPath: content)
        for (name, bytes) in files { try dir.write("content/\(key)/\(name)", bytes) }
        var manifest: [String: Any] = [
            "assetPackID": id,
            "downloadPolicy": try JSONSerialization.jsonObject(with: JSONEncoder().encode(policy)),
            "fileSelectors": files.keys.sorted().map { ["file": $0] },
            "platforms": platforms.map(\.rawValue),
            "sourceRoot": "content/\(key)",
        ]
        if let language { manifest["language"] = language }
        if let userInfo { manifest["userInfo"] = userInfo }
        if let variant { manifest["variant"] = variant }
        let path = try dir.write("\(key).json", Array(JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])))
        manifests[key] = path
        return path
    }

    /// The manifests the next publish takes, in ID order.
    public var manifestPaths: [String] { manifests.keys.sorted().map { manifests[$0]! } }

    /// Leaves pack `id` out of the next publish (the catalog drops it).
    public func drop(_ id: String) { manifests[id] = nil }

    /// Leaves the variant `name` of pack `id` out of the next publish.
    public func drop(_ id: String, variantName name: String) { manifests["\(id)@\(name)"] = nil }

    /// Publishes every pack put so far; returns the new catalog.
    @discardableResult
    public func publish(expiresIn: TimeInterval = 86_400, now: Date = Date()) throws -> Catalog {
        let options = publishOptions(now: now) { $0.expiresIn = expiresIn }
        let report = try Publisher(key: key, options: options).publish(manifests: manifests.keys.sorted().map { manifests[$0]! })
        guard let catalog = report.catalog else { throw TestSupportError("publish wrote no catalog: \(report.diagnostics)") }
        return catalog
    }

    /// Publishes every pack put so far with options `configure` sets; returns the report.
    @discardableResult
    public func publishReport(now: Date = Date(), _ configure: (inout PublishOptions) -> Void = { _ in }) throws -> PublishReport {
        try Publisher(key: key, options: publishOptions(now: now, configure)).publish(manifests: manifests.keys.sorted().map { manifests[$0]! })
    }

    /// Options that publish to this repository: manifests relative to `dir`, two writer threads, the
    /// catalog dated `now`; `configure` changes anything else.
    public func publishOptions(now: Date, _ configure: (inout PublishOptions) -> Void = { _ in }) -> PublishOptions {
        var options = PublishOptions(repository: path)
        options.baseDirectory = dir.path
        options.now = now
        options.writer.threads = 2
        configure(&options)
        return options
    }

    /// The catalog file's bytes (empty when there is none).
    public func catalogBytes() -> [UInt8] { contents("catalog.json") ?? [] }

    /// Every file below the repository folder with its bytes, and every folder (its path ending in
    /// "/"): a snapshot to show that something changed nothing.
    public func snapshot() -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        guard let e = FileManager.default.enumerator(atPath: path) else { return out }
        for case let rel as String in e {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(path)/\(rel)", isDirectory: &isDirectory)
            if isDirectory.boolValue { out[rel + "/"] = [] } else { out[rel] = contents(rel) ?? [0xFF] }
        }
        return out
    }

    /// The catalog as published now.
    public func catalog() throws -> Catalog {
        try CatalogVerifier(publicKey: publicKey).verify(Array(FileManager.default.contents(atPath: path + "/catalog.json") ?? Data()), now: nil)
    }

    /// Places `bytes` at `relative` inside the repository folder as they are (no publishing);
    /// returns the absolute path.
    @discardableResult
    public func place(_ relative: String, _ bytes: [UInt8]) throws -> String {
        try dir.write("repo/\(relative)", bytes)
    }

    /// The bytes at `relative` inside the repository folder.
    public func contents(_ relative: String) -> [UInt8]? { dir.contents("repo/\(relative)") }

    /// Starts a server on the repository folder with these faults (and TLS, when given).
    /// `configure` changes the rest of the server's settings (limits, timeouts).
    public func serve(faults: FaultConfiguration, tls: TLSIdentity? = nil,
                      configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> TestServer {
        var configuration = ServerConfiguration()
        configuration.faults = faults
        configuration.tls = tls
        configure(&configuration)
        return try TestServer(directory: path, configuration: configuration, logPath: dir.file("access-\(UUID().uuidString.prefix(8)).log"))
    }

    /// Starts a server with faults seeded 7 (reproducible) and changed by `configure`.
    public func serve(tls: TLSIdentity? = nil, _ configure: (inout FaultConfiguration) -> Void = { _ in }) throws -> TestServer {
        var faults = FaultConfiguration()
        faults.seed = 7
        configure(&faults)
        return try serve(faults: faults, tls: tls)
    }
}
