import AssetPackFormat
import Foundation

/// The `--grants` file of `assetpack key-server` (docs/FORMAT.md, "Grants file"): which token
/// may have the keys of which packs, until when, and which tokens are revoked. For tests and small
/// setups; a real store backend checks receipts through `--verify-command`.
///
/// ```json
/// {"format": "assetpack-grants", "version": 1,
///  "tokens": {"tok-123": {"packs": ["Chapter2"], "expires": "2027-01-01T00:00:00Z"},
///             "tok-old": {"packs": ["Chapter2"], "revoked": true}}}
/// ```
public struct EntitlementGrants: Sendable, Equatable {
    public struct Grant: Sendable, Equatable {
        public var packs: Set<String>
        public var expires: Date?
        public var revoked: Bool
    }

    public var tokens: [String: Grant]

    private struct File: Decodable {
        var format: String
        var version: Int
        var tokens: [String: Entry]
        struct Entry: Decodable { var packs: [String]; var expires: String?; var revoked: Bool? }
    }

    /// Reads and checks a grants file; errors name the file and the token's key.
    public static func load(_ path: String) throws(KeyServerError) -> EntitlementGrants {
        guard let data = FileManager.default.contents(atPath: path) else { throw .configuration("--grants \(path): cannot be read") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw .configuration("--grants \(path): not a grants file (JSON with format, version, tokens): \(error)")
        }
        guard file.format == "assetpack-grants" else { throw .configuration("--grants \(path): format is \"\(file.format)\", not \"assetpack-grants\"") }
        guard file.version == 1 else { throw .configuration("--grants \(path): version \(file.version) is not supported (this tool reads version 1)") }
        var tokens: [String: Grant] = [:]
        for (token, entry) in file.tokens {
            let name = "tokens.\(String(token.prefix(8)))…"
            guard !token.isEmpty else { throw .configuration("--grants \(path): a token is empty") }
            for id in entry.packs {
                if let problem = AssetPackID.problem(with: id) { throw .configuration("--grants \(path): \(name).packs: \"\(id)\" \(problem)") }
            }
            var expires: Date?
            if let text = entry.expires {
                guard let date = RFC3339.date(text) else { throw .configuration("--grants \(path): \(name).expires \"\(text)\" is not an RFC 3339 time") }
                expires = date
            }
            tokens[token] = Grant(packs: Set(entry.packs), expires: expires, revoked: entry.revoked ?? false)
        }
        return EntitlementGrants(tokens: tokens)
    }

    /// nil when `token` may have `pack`'s key at `now`, else why not.
    public func refusal(token: String, pack: String, now: Date) -> String? {
        guard let grant = tokens[token] else { return "unknown token" }
        if grant.revoked { return "the token is revoked" }
        if let expires = grant.expires, expires <= now { return "the token expired at \(RFC3339.string(expires))" }
        guard grant.packs.contains(pack) else { return "the token does not grant pack \(pack)" }
        return nil
    }
}
