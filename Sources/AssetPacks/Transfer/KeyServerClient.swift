import AssetPackFormat
import AssetPackTransport
import Foundation

/// Asks a key server (`assetpack key-server`, docs/FORMAT.md "Key server protocol") for the
/// content key of a sealed pack: `GET <url>/v1/keys/<pack ID>/<key ID>` with the entitlement
/// token as `Authorization: Bearer <token>`. The key returned must have the key ID asked for,
/// so that a wrong key is refused before any pack byte is fetched.
struct KeyServerClient: Sendable {
    let url: String
    let transport: any HTTPTransport

    /// Checks that keys would travel only over TLS or loopback: `https://`, or `http://` to
    /// 127.0.0.0/8, `localhost` or `[::1]`.
    static func problem(with url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host else {
            return "the key server URL \(url) is not an absolute URL"
        }
        if scheme == "https" { return nil }
        guard scheme == "http" else { return "the key server URL \(url) must use https (or http on a loopback address)" }
        let loopback = host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        return loopback ? nil : "the key server URL \(url) is plain http to \(host): content keys travel only over TLS (https) or on a loopback address"
    }

    /// The key, or the error that says why there is none.
    func key(for pack: AssetPack, keyID: SHA256Digest, token: String) async throws -> ContentKey {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer \(token)")
        headers.set("Accept", "application/json")
        let request = HTTPRequest(.get, url: "\(base)/v1/keys/\(pack.id)/\(keyID.hex)", headers: headers,
                                  connectTimeout: .seconds(10), timeout: .seconds(30))
        let response: HTTPResponse
        do { response = try await transport.response(for: request) } catch {
            throw AssetPackManagerError.keyServer(pack, "\(base) cannot be reached (\(error))")
        }
        let body = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        switch response.status {
        case 200:
            guard let text = body?["key"] as? String, let key = ContentKey(base64: text) else {
                throw AssetPackManagerError.keyServer(pack, "\(base) answered 200 without a key (a JSON object with \"key\": the base64 of 32 bytes)")
            }
            guard key.keyID == keyID else {
                throw AssetPackManagerError.keyServer(pack, "\(base) returned the key \(key.keyID.hex.prefix(16))…, not the key \(keyID.hex.prefix(16))… the catalog seals this version under: a wrong key is refused before it opens a byte")
            }
            return key
        case 401, 403, 429:
            let reason = (body?["error"] as? String) ?? "HTTP status \(response.status)"
            throw AssetPackManagerError.entitlementRejected(pack, reason: reason)
        default:
            let reason = (body?["error"] as? String).map { ": \($0)" } ?? ""
            throw AssetPackManagerError.keyServer(pack, "\(base) answered HTTP status \(response.status)\(reason)")
        }
    }
}
