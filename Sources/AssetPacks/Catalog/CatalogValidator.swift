import AssetPackFormat

/// The entity tag (`ETag`) a mirror sent with the catalog the client accepted, so that the next
/// refresh asks for it conditionally (`If-None-Match`) and a mirror with nothing new answers
/// `304 Not Modified` in a few hundred bytes instead of sending the whole catalog again.
///
/// It is bound to the file it was sent for (the channel's catalog path) and to the SHA-256 of
/// the accepted envelope: a 304 stands for those exact bytes, which the client then verifies as
/// if they had just arrived (signature, channel, expiry, rollback). A tag for another channel or
/// for bytes the store no longer holds is not sent. A mirror that answers 304 when something
/// changed can only keep the client on the catalog it holds, which any mirror can do by serving
/// the old catalog: the expiry bounds both.
struct CatalogValidator: Equatable {
    /// The catalog's path in the repository (`catalog.json`, `channels/NAME/catalog.json`).
    var path: String
    /// SHA-256 of the accepted envelope, 64 lowercase hex.
    var envelopeSHA256: String
    /// The `ETag` value as the mirror sent it (strong or weak).
    var entityTag: String

    /// The `settings` key it is kept under (docs/FORMAT.md, "Client store").
    static let settingKey = "catalogETag"

    /// The setting's text: the three fields, one a line.
    var text: String { "\(path)\n\(envelopeSHA256)\n\(entityTag)" }

    init(path: String, envelope: [UInt8], entityTag: String) {
        self.path = path
        envelopeSHA256 = SHA256Digest.hash(envelope).hex
        self.entityTag = entityTag
    }

    /// Reads the setting's text; nil for anything but three non-empty lines.
    init?(text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count == 3, !lines.contains(where: \.isEmpty) else { return nil }
        (path, envelopeSHA256, entityTag) = (lines[0], lines[1], lines[2])
    }

    /// The tag to send for `path` when the store holds `envelope`; nil when it was not given for them.
    func entityTag(for path: String, holding envelope: [UInt8]) -> String? {
        self.path == path && envelopeSHA256 == SHA256Digest.hash(envelope).hex ? entityTag : nil
    }

    /// An `ETag` value fit to send back: printable ASCII, no line break, at most 256 bytes.
    static func isUsable(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 256 && value.utf8.allSatisfy { (0x21...0x7e).contains($0) || $0 == 0x20 }
    }
}
