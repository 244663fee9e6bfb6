import CX509
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issues the two certificates `serve --https` needs: a self-signed root CA, and a server
/// certificate signed by it that Apple platforms accept (subjectAltName, serverAuth, SHA-256,
/// P-256, at most 825 days of validity).
enum CertificateIssuer {
    static let authorityDays = 3650
    /// Apple's limit for certificates under a user-trusted root is 825 days; stay a day below.
    static let serverDays = 824

    static func makeAuthority(key: PrivateKey) throws(TLSError) -> Certificate {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return try issue(commonName: "AssetPacks Local Root CA \(suffix)", key: key, days: authorityDays, issuer: nil, extensions: [
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,keyCertSign,cRLSign"),
            (NID_subject_key_identifier, "hash"),
        ])
    }

    static func makeServerCertificate(host: String, key: PrivateKey, authority: Certificate, authorityKey: PrivateKey) throws(TLSError) -> Certificate {
        try issue(commonName: host, key: key, days: serverDays, issuer: (authority, authorityKey), extensions: [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_alt_name, subjectAltNames(host)),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ])
    }

    /// `host` as an IP or DNS entry, plus the loopback names, so one certificate serves
    /// https://127.0.0.1, https://localhost and https://[::1] as well.
    static func subjectAltNames(_ host: String) -> String {
        var names: [String] = []
        if host != "0.0.0.0" && host != "::" { names.append(isIPAddress(host) ? "IP:\(host)" : "DNS:\(host)") }
        for n in ["DNS:localhost", "IP:127.0.0.1", "IP:::1"] where !names.contains(n) { names.append(n) }
        return names.joined(separator: ",")
    }

    static func isIPAddress(_ s: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, s, &buffer) == 1 || inet_pton(AF_INET6, s, &buffer) == 1
    }

    private static func issue(commonName: String, key: PrivateKey, days: Int, issuer: (Certificate, PrivateKey)?,
                              extensions: [(Int32, String)]) throws(TLSError) -> Certificate {
        guard let x = X509_new() else { throw .openssl("cannot allocate a certificate") }
        let cert = Certificate(x)
        guard let name = X509_NAME_new() else { throw .openssl("cannot allocate a name") }
        defer { X509_NAME_free(name) }
        // Valid from an hour ago, so that a client whose clock lags a little accepts it.
        let ok = X509_set_version(x, 2) == 1
            && cx509_set_random_serial(x) == 1
            && X509_gmtime_adj(X509_getm_notBefore(x), -3600) != nil
            && X509_gmtime_adj(X509_getm_notAfter(x), days * 86_400 - 3600) != nil
            && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "AssetPacks", -1, -1, 0) == 1
            && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            && X509_set_subject_name(x, name) == 1
            && X509_set_issuer_name(x, issuer.map { X509_get_subject_name($0.0.pointer) } ?? name) == 1
            && X509_set_pubkey(x, key.pointer) == 1
        guard ok else { throw .openssl("cannot fill in the certificate for \(commonName)") }
        for (nid, value) in extensions {
            guard cx509_add_extension(x, issuer?.0.pointer ?? x, nid, value) == 1 else {
                throw .openssl("cannot add extension \(String(cString: OBJ_nid2sn(nid))) = \(value)")
            }
        }
        guard X509_sign(x, (issuer?.1 ?? key).pointer, EVP_sha256()) > 0 else { throw .openssl("cannot sign the certificate for \(commonName)") }
        return cert
    }
}
