import AssetPackFormat
import Foundation

/// What `assetpack report` (and `publish --report`) shows of a repository: every channel and
/// pack — versions, compressed and installed sizes, the compression ratio, sizes per language,
/// what an update costs from each kept version (from the update planner, `RepositoryUpdates`),
/// the rollout state — and how much of Apple's hosting limits the repository uses.
public struct RepositoryReport: Sendable, Codable {
    /// One pack of a channel.
    public struct Pack: Sendable, Codable {
        public var id: String
        public var version: Int
        public var language: String?
        public var downloadPolicy: String
        /// Compressed bytes (the pack file).
        public var downloadSize: UInt64
        /// Uncompressed bytes of its files.
        public var installSize: UInt64
        /// installSize ÷ downloadSize.
        public var compressionRatio: Double
        /// What a client on each kept earlier version downloads to reach this one (per device
        /// variant for a pack with variants: `UpdateSize.variant`).
        public var updates: [UpdateSize]
        /// The pack's device variants with their sizes (absent when none); the sizes above are
        /// the default's.
        public var variants: [Variant]?
    }

    /// A device variant of a pack: its conditions and its pack file's sizes.
    public struct Variant: Sendable, Codable {
        public var name: String
        public var conditions: VariantConditions
        public var downloadSize: UInt64
        public var installSize: UInt64
        /// Bytes its pack file takes in the repository: less than `downloadSize` when the frames
        /// it shares with the default lie in the default's file.
        public var storedSize: UInt64
    }

    /// The sizes of a channel's packs in one language (`""`: packs for every language).
    public struct LanguageSize: Sendable, Codable {
        public var language: String
        public var packs: Int
        public var downloadSize: UInt64
        public var installSize: UInt64
    }

    /// A staged rollout in progress.
    public struct Rollout: Sendable, Codable {
        public var percent: Int
        public var fromVersion: Int
        /// The versions the clients outside the rollout keep, as `ID vN`.
        public var previousPacks: [String]
    }

    /// One channel's catalog.
    public struct Channel: Sendable, Codable {
        /// `default` for the default channel.
        public var name: String
        public var catalogVersion: Int
        public var catalogFormat: Int
        public var published: String
        public var expires: String
        public var packs: [Pack]
        public var languages: [LanguageSize]
        public var rollout: Rollout?
        /// Versions kept in the channel's history (`rollback --to-version` candidates).
        public var history: [Int]
    }

    /// How much of Apple's hosting limits the repository uses (App Store Connect Help: 100 packs,
    /// 200 GB compressed per app; Apple mails a warning at 80 %).
    public struct AppleLimits: Sendable, Codable {
        public var packs: Int
        public var packLimit: Int
        public var hostedBytes: UInt64
        public var hostedLimit: UInt64
        /// The larger of the two shares, 0…1 (more than 1 is over).
        public var usedFraction: Double
        /// True from 80 % on.
        public var warning: Bool
    }

    public var repository: String
    public var generated: String
    /// Whether the catalogs' signatures were checked (against `--public-key`).
    public var signaturesChecked: Bool
    public var channels: [Channel]
    public var apple: AppleLimits
    /// Problems found while reading (a pack file that cannot be read for the update sizes).
    public var warnings: [String]

    /// Apple's limits and the share at which it warns.
    public static let applePackLimit = 100
    public static let appleHostedLimit: UInt64 = 200_000_000_000
    public static let appleWarningShare = 0.8

    /// Reads every channel's catalog in `repository` (verified with `keys` when given; otherwise
    /// decoded and checked for shape, signatures unchecked) and the pack files it names.
    public static func make(repository: String, keys: [Ed25519PublicKey]?, now: Date = Date()) throws -> RepositoryReport {
        let catalogs = RepositoryCatalogs(repository: repository, keys: keys ?? [])
        var channels: [Channel] = []
        var warnings: [String] = []
        var hosted: [String: UInt64] = [:]
        var ids = Set<String>()
        for name in [nil] + (try catalogs.channelNames()) {
            guard let bytes = try catalogs.bytes(of: name) else { continue }
            let path = "\(repository)/\(ChannelName.catalogPath(name))"
            let catalog: Catalog
            if keys != nil {
                catalog = try catalogs.verify(bytes, path: path, channel: name)
            } else {
                do {
                    catalog = try SignedCatalog.parse(bytes).decodedCatalog()
                } catch { throw PublishError.io("\(path): \(error)") }
                guard catalog.channel == ChannelName.normalized(name) else {
                    throw PublishError.io("\(path): \(CatalogError.wrongChannel(expected: ChannelName.normalized(name), found: catalog.channel))")
                }
            }
            var updates: [UpdateSize] = []
            do { updates = try RepositoryUpdates.sizes(repository: repository, catalog: catalog) } catch {
                warnings.append("\(ChannelName.describe(name)): update sizes unavailable: \(error)")
            }
            let packs = catalog.packs.map { p in
                Pack(id: p.id, version: p.version, language: p.language, downloadPolicy: policyName(p.downloadPolicy),
                     downloadSize: p.downloadSize, installSize: p.installSize,
                     compressionRatio: p.downloadSize == 0 ? 0 : Double(p.installSize) / Double(p.downloadSize),
                     updates: updates.filter { $0.id == p.id },
                     variants: p.variants.map { list in
                         list.map { Variant(name: $0.conditions.name, conditions: $0.conditions, downloadSize: $0.downloadSize, installSize: $0.installSize,
                                          storedSize: $0.size) }
                     })
            }
            var byLanguage: [String: LanguageSize] = [:]
            for p in catalog.packs {
                let key = p.language ?? ""
                var entry = byLanguage[key] ?? LanguageSize(language: key, packs: 0, downloadSize: 0, installSize: 0)
                entry.packs += 1
                entry.downloadSize += p.downloadSize
                entry.installSize += p.installSize
                byLanguage[key] = entry
            }
            for p in catalog.packs + (catalog.rollout?.packs ?? []) {
                hosted[p.path] = p.size
                for v in p.variants ?? [] { hosted[v.path] = v.size }
                ids.insert(p.id)
            }
            for r in catalog.retired { hosted[r.path] = r.size }
            let rollout = catalog.rollout.map { r in
                Rollout(percent: r.percent, fromVersion: r.fromVersion, previousPacks: r.packs.map { "\($0.id) v\($0.version)" })
            }
            channels.append(Channel(name: name ?? ChannelName.defaultName, catalogVersion: catalog.version, catalogFormat: catalog.catalogFormat,
                                    published: RFC3339.string(catalog.published), expires: RFC3339.string(catalog.expires),
                                    packs: packs, languages: byLanguage.values.sorted { $0.language < $1.language },
                                    rollout: rollout, history: try history(repository: repository, channel: name)))
        }
        guard !channels.isEmpty else { throw PublishError.io("\(repository) holds no catalog: publish first") }
        let bytes = hosted.values.reduce(0, +)
        let share = max(Double(ids.count) / Double(applePackLimit), Double(bytes) / Double(appleHostedLimit))
        return RepositoryReport(repository: repository, generated: RFC3339.string(now), signaturesChecked: keys != nil, channels: channels,
                                apple: AppleLimits(packs: ids.count, packLimit: applePackLimit, hostedBytes: bytes, hostedLimit: appleHostedLimit,
                                                   usedFraction: share, warning: share >= appleWarningShare),
                                warnings: warnings)
    }

    /// The catalog versions a channel's history holds, ascending.
    private static func history(repository: String, channel: String?) throws -> [Int] {
        let folder = try RepositoryTransaction.confined { () throws(ConfinementError) in try ConfinedDirectory(root: repository) }
        let dir = (RepositoryCatalogs.historyPath(1, channel: channel) as NSString).deletingLastPathComponent
        let names = (try? folder.entries(dir)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".catalog.json") else { return nil }
            return Int(name.dropLast(".catalog.json".count))
        }.sorted()
    }

    private static func policyName(_ policy: DownloadPolicy) -> String {
        switch policy {
        case .essential: return "essential"
        case .prefetch: return "prefetch"
        case .onDemand: return "onDemand"
        }
    }

    /// The report as JSON (sorted keys, pretty).
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
