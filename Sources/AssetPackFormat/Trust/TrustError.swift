import Foundation

/// Why a root or timestamp file (or the catalog they vouch for) was refused. Each case names the
/// attack or mistake it is.
public enum TrustError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a root or timestamp file: bad JSON, a missing or mistyped key, bad base64.
    case malformed(file: String, String)
    /// A format version this code does not read.
    case unsupportedFormat(file: String, Int)
    /// No signature by any key the trusted metadata names for this file.
    case wrongKey(file: String, expected: [String], found: [String])
    /// A signature by a trusted key that does not match the payload bytes.
    case badSignature(file: String, keyID: String)
    /// A new root not signed by a key of the root it follows: a forged root.
    case rootNotSignedByPrevious(version: Int, trustedVersion: Int)
    /// A new root not signed by a key it names itself: the new key holder never vouched for it.
    case rootNotSignedByItself(version: Int)
    /// A root older than the one already accepted, or a `root.json` older than it.
    case rootRolledBack(version: Int, minimumVersion: Int)
    /// A root whose version is not its predecessor's + 1: keys may only change one step at a time.
    case rootSkipped(version: Int, expected: Int)
    /// The newest root has expired: its keys are no longer vouched for.
    case rootExpired(version: Int, expires: Date, now: Date)
    /// A walk of more root versions than a client takes in one go.
    case tooManyRoots(from: Int, to: Int)
    /// An older timestamp than the one already accepted.
    case timestampRolledBack(version: Int, minimumVersion: Int)
    /// An expired timestamp: the repository's view is frozen (or its publisher stopped signing).
    case timestampExpired(expires: Date, now: Date)
    /// A catalog other than the one the timestamp names.
    case catalogMismatch(field: String, timestamp: String, catalog: String)
    /// A catalog signed by a key the current root does not name (revoked, or never trusted).
    case catalogKeyNotInRoot(rootVersion: Int, found: [String])
    /// The timestamp names no catalog for this channel: the channel does not exist (or was deleted).
    case channelNotInTimestamp(channel: String)

    public var description: String {
        switch self {
        case .malformed(let file, let m):
            return "malformed \(file): \(m)"
        case .unsupportedFormat(let file, let v):
            return "unsupported \(file) format \(v) (this version of assetpack reads format \(TrustRole.formatVersion))"
        case .wrongKey(let file, let expected, let found):
            let list = found.isEmpty ? "no signatures" : "signatures by key ID \(found.joined(separator: ", "))"
            return "wrong key: \(file) has \(list), none by a trusted key ID (\(expected.joined(separator: ", ")))"
        case .badSignature(let file, let keyID):
            return "tampered \(file): the signature by key ID \(keyID) does not match the payload bytes"
        case .rootNotSignedByPrevious(let version, let trusted):
            return "forged root: root version \(version) is not signed by a root key of version \(trusted), the one trusted"
        case .rootNotSignedByItself(let version):
            return "unconfirmed root: root version \(version) is not signed by a root key it names itself"
        case .rootRolledBack(let version, let minimum):
            return "rolled-back root: version \(version) is older than version \(minimum), which was already accepted"
        case .rootSkipped(let version, let expected):
            return "skipped root: found root version \(version) where version \(expected) must come (a root only follows its predecessor, N → N+1)"
        case .rootExpired(let version, let expires, let now):
            return "expired root: root version \(version) expired at \(RFC3339.string(expires)) and it is now \(RFC3339.string(now)); its keys are no longer vouched for"
        case .tooManyRoots(let from, let to):
            return "too many root versions to walk: from \(from) to \(to)"
        case .channelNotInTimestamp(let channel):
            return "no channel '\(channel)': timestamp.json names no catalog for it (the channel does not exist or was deleted)"
        case .timestampRolledBack(let version, let minimum):
            return "rolled-back timestamp: version \(version) is older than version \(minimum), which was already accepted"
        case .timestampExpired(let expires, let now):
            return "stale timestamp (freeze attack?): the repository's timestamp expired at \(RFC3339.string(expires)) and it is now \(RFC3339.string(now)); the view it vouches for may be frozen"
        case .catalogMismatch(let field, let ts, let catalog):
            return "mix-and-match catalog: the timestamp names a catalog with \(field) \(ts), the catalog fetched has \(catalog)"
        case .catalogKeyNotInRoot(let version, let found):
            let list = found.isEmpty ? "no signatures" : "signatures by key ID \(found.joined(separator: ", "))"
            return "revoked or unknown catalog key: the catalog has \(list), none by a catalog key root version \(version) names"
        }
    }
}

/// For the agent's error replies, which carry the refusal to a manager working through it.
extension TrustError: Codable {}
