import AssetPackFormat
import Foundation

/// An Apple configuration profile (`.mobileconfig`) that installs a root CA on iOS, iPadOS,
/// visionOS or macOS: one `com.apple.security.root` payload carrying the certificate in DER.
/// Its UUIDs are derived from the certificate, so the same CA always yields the same profile
/// and reinstalling replaces rather than duplicates it.
enum ConfigurationProfile {
    static func data(for authority: Certificate) throws -> Data {
        struct RootPayload: Encodable {
            let PayloadCertificateFileName = "ca.pem"
            let PayloadContent: Data
            let PayloadDescription = "Adds the AssetPacks development root certificate."
            let PayloadDisplayName: String
            let PayloadIdentifier: String
            let PayloadType = "com.apple.security.root"
            let PayloadUUID: String
            let PayloadVersion = 1
        }
        struct Profile: Encodable {
            let PayloadContent: [RootPayload]
            let PayloadDescription = "Trusts the local root CA that 'assetpack serve --https' created, for development servers only."
            let PayloadDisplayName: String
            let PayloadIdentifier: String
            let PayloadRemovalDisallowed = false
            let PayloadType = "Configuration"
            let PayloadUUID: String
            let PayloadVersion = 1
        }
        let der = authority.der
        let rootUUID = uuid(der, salt: "payload")
        let profileUUID = uuid(der, salt: "profile")
        let name = authority.commonName
        let profile = Profile(
            PayloadContent: [RootPayload(PayloadContent: Data(der), PayloadDisplayName: name,
                                         PayloadIdentifier: "org.assetpacks.tls.root.\(rootUUID)", PayloadUUID: rootUUID)],
            PayloadDisplayName: name, PayloadIdentifier: "org.assetpacks.tls.\(profileUUID)", PayloadUUID: profileUUID)
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        return try encoder.encode(profile)
    }

    /// A name-based UUID (version 5 layout) from SHA-256 of `salt` and the certificate.
    static func uuid(_ der: [UInt8], salt: String) -> String {
        var bytes = Array(SHA256Digest.hash(Array(salt.utf8) + der).bytes.prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x50
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined().uppercased()
        let c = Array(hex)
        return [c[0..<8], c[8..<12], c[12..<16], c[16..<20], c[20..<32]].map { String($0) }.joined(separator: "-")
    }
}
