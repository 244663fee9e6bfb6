import Foundation

/// One signature in a catalog's envelope.
public struct CatalogSignature: Sendable, Equatable {
    public static let ed25519 = "ed25519"
    public var algorithm: String
    public var keyID: String
    public var signature: [UInt8]

    public init(algorithm: String = CatalogSignature.ed25519, keyID: String, signature: [UInt8]) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.signature = signature
    }
}

/// The bytes of `catalog.json`: an envelope that carries the payload (the catalog's JSON) as
/// base64, so that the exact signed bytes survive any JSON tooling, and the signatures over them.
///
/// ```json
/// {"catalogFormat": 1, "payload": "<base64>", "signatures": [{"algorithm": "ed25519", "keyID": "…", "signature": "<base64>"}]}
/// ```
public struct SignedCatalog: Sendable, Equatable {
    /// Prepended to the payload before signing, so that a signature made by the same key for
    /// another purpose can never pass as a catalog signature (domain separation).
    public static let signingContext = Array("AssetPacks catalog v1\n".utf8)

    public var payload: [UInt8]
    public var signatures: [CatalogSignature]
    /// The envelope's `catalogFormat`: the payload's format (1, or 2 for a channel or a rollout;
    /// 3 for a payload compressed with zstd).
    public var format: Int

    public init(payload: [UInt8], signatures: [CatalogSignature], format: Int = 1) {
        self.payload = payload
        self.signatures = signatures
        self.format = format
    }

    /// The payload's JSON: the payload itself, or (format 3) what its zstd frame holds, which
    /// must declare at most `CatalogFormat.maximumPayloadSize` bytes. Call it only once a
    /// signature has checked out: the frame is untrusted until then.
    public func content() throws(CatalogError) -> [UInt8] {
        guard format == CatalogFormat.compressed else { return payload }
        do { return try ZstdDecompressor().decompressFrame(payload, limit: CatalogFormat.maximumPayloadSize) } catch {
            throw .malformed("payload: a format-\(format) payload must be one zstd frame: \(error)")
        }
    }

    /// The catalog the payload holds (`content()`, decoded and checked). The format inside the
    /// signed bytes must agree with the envelope's about compression: a format-3 payload
    /// declares format 3, a plain one 1 or 2, so that relabelling an envelope never changes
    /// how its signed bytes are read.
    public func decodedCatalog() throws(CatalogError) -> Catalog {
        let catalog = try CatalogCoding.decode(try content())
        if (format == CatalogFormat.compressed) != (catalog.catalogFormat == CatalogFormat.compressed) {
            throw .malformed("payload: catalogFormat \(catalog.catalogFormat) in an envelope of catalog format \(format) (only a compressed payload is format \(CatalogFormat.compressed))")
        }
        return catalog
    }

    /// The bytes an Ed25519 signature covers: the signing context, then the payload bytes.
    public static func signedMessage(for payload: [UInt8]) -> [UInt8] { signingContext + payload }

    /// The file's bytes: pretty-printed JSON with keys in a fixed order, ending in a newline.
    public func encoded() -> [UInt8] {
        Self.envelopeBytes(formatKey: "catalogFormat", version: format, payload: payload, signatures: signatures)
    }

    /// The layout every signed file of a repository shares (the catalog; root and timestamp
    /// files with their own format key): fixed key order, one signature a line, LF at the end.
    static func envelopeBytes(formatKey: String, version: Int, payload: [UInt8], signatures: [CatalogSignature]) -> [UInt8] {
        func quoted(_ s: String) -> String {
            let data = (try? JSONEncoder().encode(s)) ?? Data("\"\"".utf8)
            return String(decoding: data, as: UTF8.self)
        }
        let sigs = signatures.map { s in
            "    {\"algorithm\": \(quoted(s.algorithm)), \"keyID\": \(quoted(s.keyID)), \"signature\": \"\(Data(s.signature).base64EncodedString())\"}"
        }
        let text = """
        {
          "\(formatKey)": \(version),
          "payload": "\(Data(payload).base64EncodedString())",
          "signatures": [
        \(sigs.joined(separator: ",\n"))
          ]
        }

        """
        return Array(text.utf8)
    }

    /// Parses the envelope (not the payload, which is decoded only once a signature checks out).
    public static func parse(_ bytes: [UInt8]) throws(CatalogError) -> SignedCatalog {
        let root: JSONNode
        do { root = try JSONParser.parse(bytes) } catch {
            throw .malformed("not JSON: \(error)")
        }
        let top = try object(root, "(top level)")
        guard case .number(let format)? = top["catalogFormat"]?.value else {
            throw .malformed(top["catalogFormat"] == nil ? "missing key \"catalogFormat\"" : "catalogFormat: expected a whole number")
        }
        guard let known = Int(exactly: format), CatalogFormat.readable.contains(known) else { throw .unsupportedFormat(Int(exactly: format.rounded()) ?? -1) }
        let payload = try base64(try string(top["payload"], "payload"), "payload")
        guard case .array(let list)? = top["signatures"]?.value else {
            throw .malformed(top["signatures"] == nil ? "missing key \"signatures\"" : "signatures: expected an array")
        }
        var signatures: [CatalogSignature] = []
        for (i, node) in list.enumerated() {
            let key = "signatures[\(i)]"
            let s = try object(node, key)
            signatures.append(CatalogSignature(algorithm: try string(s["algorithm"], "\(key).algorithm"),
                                               keyID: try string(s["keyID"], "\(key).keyID"),
                                               signature: try base64(try string(s["signature"], "\(key).signature"), "\(key).signature")))
        }
        return SignedCatalog(payload: payload, signatures: signatures, format: known)
    }

    private static func object(_ node: JSONNode, _ key: String) throws(CatalogError) -> [String: JSONNode] {
        guard case .object(let members) = node.value else {
            throw .malformed("\(key): expected an object, found \(node.value.typeDescription)")
        }
        return Dictionary(members, uniquingKeysWith: { a, _ in a })
    }

    private static func string(_ node: JSONNode?, _ key: String) throws(CatalogError) -> String {
        guard let node else { throw .malformed("missing key \"\(key)\"") }
        guard case .string(let s) = node.value else {
            throw .malformed("\(key) (line \(node.location.line)): expected a string, found \(node.value.typeDescription)")
        }
        return s
    }

    private static func base64(_ text: String, _ key: String) throws(CatalogError) -> [UInt8] {
        guard let data = Data(base64Encoded: text) else { throw .malformed("\(key): not valid base64") }
        return [UInt8](data)
    }
}
