import AssetPackFormat

/// The download manifest of Apple's self-hosted managed asset packs, in the shape `xcrun
/// ba-package download-manifest create` writes (docs/FORMAT.md, "Apple's self-hosted layout"):
/// `{"assetPacks":[{"id","url","version","downloadSize","downloadPolicy","host":{"thirdParty":{}},
/// "userInfo"?}, …]}`, one pack a line, packs in ID order, keys in that order.
struct AppleDownloadManifest: Equatable {
    struct Entry: Equatable {
        var id: String
        /// The base URL, `/`, the pack ID: where the archive is downloaded from.
        var url: String
        /// The catalog's pack version: it grows whenever the pack's content changes.
        var version: Int
        /// The archive's size in bytes.
        var downloadSize: UInt64
        var downloadPolicy: DownloadPolicy
        /// The platforms that see the pack; empty for every platform.
        var platforms: [Platform]
        /// The manifest's `userInfo`, as canonical JSON text.
        var userInfo: String?
    }

    var entries: [Entry]

    /// The packs `platform` sees: those that name it, and those that name no platform.
    func filtered(for platform: Platform) -> AppleDownloadManifest {
        AppleDownloadManifest(entries: entries.filter { $0.platforms.isEmpty || $0.platforms.contains(platform) })
    }

    /// The file's bytes: deterministic, UTF-8, ending in a line feed.
    func encoded() -> [UInt8] {
        guard !entries.isEmpty else { return Array("{\"assetPacks\":[]}\n".utf8) }
        let lines = entries.sorted { $0.id < $1.id }.map(Self.line)
        return Array(("{\"assetPacks\":[\n" + lines.joined(separator: ",\n") + "\n]}\n").utf8)
    }

    private static func line(_ e: Entry) -> String {
        var out = "{\"id\":\(quoted(e.id)),\"url\":\(quoted(e.url)),\"version\":\(e.version),\"downloadSize\":\(e.downloadSize)"
        out += ",\"downloadPolicy\":\(policy(e.downloadPolicy)),\"host\":{\"thirdParty\":{}}"
        if let userInfo = e.userInfo { out += ",\"userInfo\":\(userInfo)" }
        return out + "}"
    }

    /// Apple's manifest shape of a policy: `{"essential":{"installationEventTypes":[…]}}`,
    /// `{"prefetch":{…}}` or `{"onDemand":{}}`.
    static func policy(_ policy: DownloadPolicy) -> String {
        switch policy {
        case .onDemand: return "{\"onDemand\":{}}"
        case .essential(let events), .prefetch(let events):
            let list = events.map { quoted($0.rawValue) }.joined(separator: ",")
            return "{\(quoted(policy.name)):{\"installationEventTypes\":[\(list)]}}"
        }
    }

    /// A JSON string. Pack IDs, event names and checked base URLs hold no character that needs
    /// escaping; the escapes are there so that the output is JSON whatever it is given.
    private static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
