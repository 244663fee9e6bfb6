import Foundation

/// Why a catalog was rejected. Each case says which attack or mistake it is.
public enum CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a catalog: bad JSON, a missing or mistyped key (the key path says which), bad base64.
    case malformed(String)
    /// A catalog format this code does not read.
    case unsupportedFormat(Int)
    /// No signature by the expected key: the catalog was signed by another key (or by none).
    case wrongKey(expected: String, found: [String])
    /// A signature by the expected key that does not match the payload bytes: tampered.
    case badSignature(keyID: String)
    /// Correctly signed, but its expiry has passed: a stale catalog (a replay, or a publisher
    /// who stopped publishing).
    case expired(expires: Date, now: Date)
    /// Correctly signed, but older than the newest catalog the client accepted: a rollback.
    case rolledBack(version: Int, minimumVersion: Int)
    /// Correctly signed, but for another channel than the one asked for (nil: the default
    /// channel): a catalog served at another channel's URL.
    case wrongChannel(expected: String?, found: String?)

    public var description: String {
        switch self {
        case .malformed(let m):
            return "malformed catalog: \(m)"
        case .unsupportedFormat(let v):
            return "unsupported catalog format \(v) (this version of assetpack reads formats \(CatalogFormat.readable.lowerBound) to \(CatalogFormat.readable.upperBound))"
        case .wrongKey(let expected, let found):
            let list = found.isEmpty ? "no signatures" : "signatures by key ID \(found.joined(separator: ", "))"
            return "wrong key: the catalog has \(list), none by the expected key ID \(expected)"
        case .badSignature(let keyID):
            return "tampered catalog: the signature by key ID \(keyID) does not match the payload bytes"
        case .expired(let expires, let now):
            return "expired catalog: it expired at \(RFC3339.string(expires)) and it is now \(RFC3339.string(now)) "
                + "(the publisher must publish again; a repository copied to removable media needs a longer life: "
                + "`assetpack publish --expires 365d`)"
        case .rolledBack(let version, let minimum):
            return "rolled-back catalog: version \(version) is older than version \(minimum), which was already accepted"
        case .wrongChannel(let expected, let found):
            return "catalog for another channel: it is signed for \(ChannelName.describe(found)) and was served where \(ChannelName.describe(expected)) was expected (a catalog of one channel cannot stand in for another's)"
        }
    }
}

/// Carried as JSON (case by case, with its values) where a refusal crosses a process boundary:
/// the agent's error replies and failed events (docs/AGENT.md), so that a client gets back the
/// same `CatalogError`.
extension CatalogError: Codable {}
