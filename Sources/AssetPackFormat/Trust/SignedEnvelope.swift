import Foundation

/// The bytes of a root or timestamp file: the catalog's exact-bytes envelope with the role's
/// format key (`rootFormat`, `timestampFormat`) — the payload travels as base64 and the
/// signatures cover the role's signing context followed by exactly those bytes.
///
/// ```json
/// {"rootFormat": 1, "payload": "<base64>", "signatures": [{"algorithm": "ed25519", "keyID": "…", "signature": "<base64>"}]}
/// ```
public struct SignedEnvelope: Sendable, Equatable {
    /// Which file this is (its format key and signing context).
    public var role: TrustRole
    /// The exact signed bytes.
    public var payload: [UInt8]
    /// Signatures over the role's context and the payload.
    public var signatures: [CatalogSignature]

    /// An envelope of these parts.
    public init(role: TrustRole, payload: [UInt8], signatures: [CatalogSignature]) {
        self.role = role
        self.payload = payload
        self.signatures = signatures
    }

    /// The bytes an Ed25519 signature covers: the role's signing context, then the payload.
    public static func signedMessage(role: TrustRole, payload: [UInt8]) -> [UInt8] { role.signingContext + payload }

    /// The file's bytes, laid out as `catalog.json`'s: fixed key order, one signature a line, LF at the end.
    public func encoded() -> [UInt8] {
        SignedCatalog.envelopeBytes(formatKey: role.formatKey, version: TrustRole.formatVersion, payload: payload, signatures: signatures)
    }

    /// Parses the envelope of `role`'s file; `file` names it in errors. The payload is not decoded.
    public static func parse(_ bytes: [UInt8], role: TrustRole, file: String) throws(TrustError) -> SignedEnvelope {
        let root: JSONNode
        do { root = try JSONParser.parse(bytes) } catch { throw .malformed(file: file, "not JSON: \(error)") }
        guard case .object(let members) = root.value else { throw .malformed(file: file, "(top level): expected an object") }
        let top = Dictionary(members, uniquingKeysWith: { a, _ in a })
        guard case .number(let format)? = top[role.formatKey]?.value else {
            throw .malformed(file: file, top[role.formatKey] == nil ? "missing key \"\(role.formatKey)\"" : "\(role.formatKey): expected a whole number")
        }
        guard format == Double(TrustRole.formatVersion) else { throw .unsupportedFormat(file: file, Int(exactly: format.rounded()) ?? -1) }
        let payload = try base64(try string(top["payload"], "payload", file), "payload", file)
        guard case .array(let list)? = top["signatures"]?.value else {
            throw .malformed(file: file, top["signatures"] == nil ? "missing key \"signatures\"" : "signatures: expected an array")
        }
        var signatures: [CatalogSignature] = []
        for (i, node) in list.enumerated() {
            let key = "signatures[\(i)]"
            guard case .object(let fields) = node.value else { throw .malformed(file: file, "\(key): expected an object") }
            let s = Dictionary(fields, uniquingKeysWith: { a, _ in a })
            signatures.append(CatalogSignature(algorithm: try string(s["algorithm"], "\(key).algorithm", file),
                                               keyID: try string(s["keyID"], "\(key).keyID", file),
                                               signature: try base64(try string(s["signature"], "\(key).signature", file), "\(key).signature", file)))
        }
        return SignedEnvelope(role: role, payload: payload, signatures: signatures)
    }

    /// The keys among `keys` with a valid signature over the payload. Throws **wrong key** when
    /// no signature names one of them, **tampered** when one does but none verifies.
    public func verifiedSigners(among keys: [Ed25519PublicKey], file: String) throws(TrustError) -> [Ed25519PublicKey] {
        let message = Self.signedMessage(role: role, payload: payload)
        var named: [String] = []
        var valid: [Ed25519PublicKey] = []
        for key in keys {
            let ours = signatures.filter { $0.keyID == key.keyID && $0.algorithm == CatalogSignature.ed25519 }
            guard !ours.isEmpty else { continue }
            named.append(key.keyID)
            if ours.contains(where: { key.isValidSignature($0.signature, of: message) }) { valid.append(key) }
        }
        guard !named.isEmpty else { throw .wrongKey(file: file, expected: keys.map(\.keyID), found: signatures.map(\.keyID)) }
        guard !valid.isEmpty else { throw .badSignature(file: file, keyID: named[0]) }
        return valid
    }

    private static func string(_ node: JSONNode?, _ key: String, _ file: String) throws(TrustError) -> String {
        guard let node else { throw .malformed(file: file, "missing key \"\(key)\"") }
        guard case .string(let s) = node.value else {
            throw .malformed(file: file, "\(key) (line \(node.location.line)): expected a string, found \(node.value.typeDescription)")
        }
        return s
    }

    private static func base64(_ text: String, _ key: String, _ file: String) throws(TrustError) -> [UInt8] {
        guard let data = Data(base64Encoded: text) else { throw .malformed(file: file, "\(key): not valid base64") }
        return [UInt8](data)
    }
}
