import AssetPackFormat
import Foundation

/// How `Publisher` publishes: where, for how long, what to keep and what to check.
public struct PublishOptions {
    /// The repository folder; created (its parent must exist) on the first publish.
    public var repository: String
    /// How long the new catalog stays valid (`--expires`, default 30 days).
    public var expiresIn: TimeInterval = 30 * 86_400
    /// How many versions of each pack keep their files, the current one included (`--keep`).
    public var keep = 2
    /// Lint only (`--check`): nothing is written to the repository.
    public var checkOnly = false
    public var lint = LintOptions()
    /// The clock the catalog's `published` and `expires` come from.
    public var now = Date()
    /// What manifest selector paths resolve against (as `assetpack package`: the current directory).
    public var baseDirectory = FileManager.default.currentDirectoryPath
    public var writer = PackWriter()
    /// Fault injection for tests: runs once the new pack files are in place, just before the
    /// catalog is written; an error thrown here must leave the repository as it was.
    public var beforeCatalogCommit: (() throws -> Void)?

    public init(repository: String) { self.repository = repository }
}

/// What happened to one pack in a publish.
public struct PackChange: Sendable, Equatable {
    public enum Kind: String, Sendable { case added, updated, unchanged, removed }
    public var id: String
    public var kind: Kind
    public var previousVersion: Int?
    /// The version now in the catalog (nil for a removed pack).
    public var version: Int?
}

/// The outcome of a publish (or of `--check`).
public struct PublishReport: Sendable {
    /// Warnings from the manifests and the linter (errors end the publish with `PublishError`).
    public var diagnostics: [Diagnostic] = []
    public var findings: [LintFinding] = []
    /// The catalog written; nil with `--check`.
    public var catalog: Catalog?
    public var changes: [PackChange] = []
    /// Old pack files removed by the retention rule, relative to the repository.
    public var deletedFiles: [String] = []
    /// Problems after the catalog was in place (a file that could not be deleted): the publish
    /// succeeded, the repository merely holds more than it needs.
    public var cleanupWarnings: [String] = []
}

/// Why a publish stopped. Whatever the case, the repository is as it was before.
public enum PublishError: Error, CustomStringConvertible {
    case invalidManifests([Diagnostic])
    case lintFailed([LintFinding])
    case existingCatalog(path: String, CatalogError)
    case invalidOption(String)
    case io(String)

    public var description: String {
        switch self {
        case .invalidManifests(let d):
            return "\(d.filter { $0.severity == .error }.count) error(s) in the manifests; nothing was published"
        case .lintFailed(let f):
            return "\(f.filter { $0.severity == .error }.count) lint error(s); nothing was published"
        case .existingCatalog(let path, let error):
            if case .wrongKey = error { return "\(path): \(error); refusing to replace a catalog signed by another key" }
            return "\(path): the existing catalog does not verify with this key: \(error)"
        case .invalidOption(let m), .io(let m):
            return m
        }
    }
}
