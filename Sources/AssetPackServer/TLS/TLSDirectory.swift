import AssetPackFormat
import Foundation

/// The folder `serve --https` keeps its certificates in:
///
///     ca.pem            root CA certificate (give this to clients)
///     ca-key.pem        root CA private key (mode 0600, never leaves the machine)
///     server.pem        server certificate for the host, signed by the CA
///     server-key.pem    its private key (mode 0600)
///     ca.mobileconfig   configuration profile installing ca.pem on iOS/iPadOS/visionOS/macOS
///
/// An existing CA is reused while it is valid, so that clients trust it once; an unusable one
/// (unreadable, not a CA, key not matching) is an error rather than silently replaced. The server
/// certificate is reissued when missing, not signed by the CA, not covering the host, or within
/// 30 days of expiry.
public struct TLSDirectory: Sendable {
    public let path: String
    public let identity: TLSIdentity
    /// What `prepare` did, e.g. "created a new root CA", one line per action.
    public let actions: [String]

    public var authorityPath: String { path + "/ca.pem" }
    public var profilePath: String { path + "/ca.mobileconfig" }

    /// The default folder for the repository at `repository`: `.assetpack-tls` beside it, so
    /// that it is never served.
    public static func defaultPath(forRepository repository: String) -> String {
        URL(fileURLWithPath: repository).standardizedFileURL.deletingLastPathComponent().appendingPathComponent(".assetpack-tls").path
    }

    /// Loads or creates the CA and a server certificate for `host` in `path`, for a server of
    /// the repository at `repository`. Refuses (`TLSError.insideRepository`, before creating
    /// anything) a folder that is the repository or inside it, symbolic links resolved: the
    /// server would publish the private keys.
    /// `repository` is nil for a server of no repository (`assetpack key-server`).
    public static func prepare(at path: String, host: String, serving repository: String?) throws(TLSError) -> TLSDirectory {
        if let repository {
            let root = resolved(repository), folder = resolved(path)
            if folder == root || folder.hasPrefix(root == "/" ? "/" : root + "/") {
                throw .insideRepository(folder: path, repository: repository)
            }
        }
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
            throw .file(path, "cannot create the folder: \(error.localizedDescription)")
        }
        var actions: [String] = []
        let (authority, authorityKey) = try loadOrCreateAuthority(in: path, actions: &actions)
        let serverCertPath = path + "/server.pem", serverKeyPath = path + "/server-key.pem"
        var server: (Certificate, PrivateKey)?
        if let c = read(serverCertPath).flatMap(Certificate.init(pem:)), let k = read(serverKeyPath).flatMap(PrivateKey.init(pem:)),
           c.matches(k), c.isSigned(by: authority), c.covers(host: host), c.secondsLeft > 30 * 86_400 {
            server = (c, k)
            actions.append("reused the server certificate for \(host)")
        }
        if server == nil {
            let key = try PrivateKey.generate()
            let cert = try CertificateIssuer.makeServerCertificate(host: host, key: key, authority: authority, authorityKey: authorityKey)
            try write(key.pem, to: serverKeyPath, mode: 0o600)
            try write(cert.pem, to: serverCertPath, mode: 0o644)
            server = (cert, key)
            actions.append("issued a server certificate for \(host) (valid \(CertificateIssuer.serverDays) days)")
        }
        let profile: Data
        do { profile = try ConfigurationProfile.data(for: authority) } catch { throw .file(path + "/ca.mobileconfig", "cannot encode: \(error)") }
        if FileManager.default.contents(atPath: path + "/ca.mobileconfig") != profile {
            try write(String(decoding: profile, as: UTF8.self), to: path + "/ca.mobileconfig", mode: 0o644)
        }
        let (cert, key) = server!
        return TLSDirectory(path: path, identity: TLSIdentity(certificatePEM: cert.pem, privateKeyPEM: key.pem), actions: actions)
    }

    /// `path` made absolute with its symbolic links resolved, also when its last components do
    /// not exist yet (the longest existing ancestor is resolved, the rest appended).
    private static func resolved(_ path: String) -> String {
        var existing = URL(fileURLWithPath: path).standardizedFileURL
        var missing: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            missing.insert(existing.lastPathComponent, at: 0)
            existing = existing.deletingLastPathComponent()
        }
        var url = existing.resolvingSymlinksInPath()
        for component in missing { url.appendPathComponent(component) }
        return url.standardizedFileURL.path
    }

    /// How to make clients trust the CA, for the server at `url`.
    public func trustInstructions(url: String) -> String {
        """
        TLS: \(actions.joined(separator: "; ")) in \(path)
        Trust the root CA \(authorityPath) on each client:
          curl:    curl --cacert \(authorityPath) \(url)catalog.json
          iOS, iPadOS, visionOS: send \(profilePath) to the device (AirDrop, Mail, or a URL),
                   install it in Settings > General > VPN & Device Management, then turn it on in
                   Settings > General > About > Certificate Trust Settings.
          macOS:   sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(authorityPath)
          Debian/Ubuntu: sudo cp \(authorityPath) /usr/local/share/ca-certificates/assetpacks-dev.crt && sudo update-ca-certificates
        """
    }

    private static func loadOrCreateAuthority(in path: String, actions: inout [String]) throws(TLSError) -> (Certificate, PrivateKey) {
        let certPath = path + "/ca.pem", keyPath = path + "/ca-key.pem"
        let certText = read(certPath), keyText = read(keyPath)
        if let certText, let keyText {
            guard let cert = Certificate(pem: certText) else { throw .file(certPath, "not a PEM certificate; remove ca.pem and ca-key.pem to create a new CA") }
            guard let key = PrivateKey(pem: keyText) else { throw .file(keyPath, "not a PEM private key; remove ca.pem and ca-key.pem to create a new CA") }
            guard cert.isCertificateAuthority, cert.matches(key) else {
                throw .file(certPath, "not a CA certificate matching ca-key.pem; remove ca.pem and ca-key.pem to create a new CA")
            }
            if cert.secondsLeft > 86_400 {
                actions.append("reused the root CA \"\(cert.commonName)\"")
                return (cert, key)
            }
            actions.append("the root CA expired, so")
        } else if certText != nil || keyText != nil {
            throw .file(certText == nil ? certPath : keyPath, "missing while its partner exists; remove both ca.pem and ca-key.pem to create a new CA")
        }
        let key = try PrivateKey.generate()
        let cert = try CertificateIssuer.makeAuthority(key: key)
        try write(key.pem, to: keyPath, mode: 0o600)
        try write(cert.pem, to: certPath, mode: 0o644)
        actions.append("created a new root CA \"\(cert.commonName)\"")
        return (cert, key)
    }

    private static func read(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func write(_ text: String, to path: String, mode: mode_t) throws(TLSError) {
        do {
            let file = try AtomicFile(destination: path, mode: mode)
            try file.write(Array(text.utf8))
            try file.commit()
        } catch { throw .file(path, "\(error)") }
    }
}
