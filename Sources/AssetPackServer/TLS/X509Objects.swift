import CX509

/// An OpenSSL key pair (EVP_PKEY), freed with its owner.
final class PrivateKey {
    let pointer: OpaquePointer

    /// A new ECDSA P-256 key: small, fast, accepted by GnuTLS, Apple platforms and curl.
    static func generate() throws(TLSError) -> PrivateKey {
        guard let p = cx509_generate_p256_key() else { throw .openssl("cannot generate a P-256 key") }
        return PrivateKey(p)
    }

    /// Parses a PEM private key; nil if `pem` holds none.
    init?(pem: String) {
        guard let p = withMemoryBIO(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else { return nil }
        pointer = p
    }

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// PKCS#8 PEM ("BEGIN PRIVATE KEY").
    var pem: String {
        bioString { PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) }
    }
}

/// An X.509 certificate, freed with its owner.
final class Certificate {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// Parses the first PEM certificate in `pem`; nil if there is none.
    init?(pem: String) {
        guard let p = withMemoryBIO(pem, { PEM_read_bio_X509($0, nil, nil, nil) }) else { return nil }
        pointer = p
    }

    deinit { X509_free(pointer) }

    var pem: String { bioString { PEM_write_bio_X509($0, pointer) } }

    /// DER encoding, as configuration profiles carry it.
    var der: [UInt8] {
        let n = i2d_X509(pointer, nil)
        guard n > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: Int(n))
        out.withUnsafeMutableBufferPointer { b in
            var p: UnsafeMutablePointer<UInt8>? = b.baseAddress
            _ = i2d_X509(pointer, &p)
        }
        return out
    }

    /// Seconds until the certificate expires (negative once it has).
    var secondsLeft: Int {
        var days: Int32 = 0, seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notAfter(pointer)) == 1 else { return -1 }
        return Int(days) * 86_400 + Int(seconds)
    }

    var isCertificateAuthority: Bool { X509_check_ca(pointer) >= 1 }

    func matches(_ key: PrivateKey) -> Bool { X509_check_private_key(pointer, key.pointer) == 1 }

    /// Whether `issuer`'s key signed this certificate.
    func isSigned(by issuer: Certificate) -> Bool {
        guard let key = X509_get0_pubkey(issuer.pointer) else { return false }
        return X509_verify(pointer, key) == 1
    }

    /// Whether the certificate names `host` (a DNS name or an IP address) in subjectAltName.
    func covers(host: String) -> Bool {
        X509_check_host(pointer, host, host.utf8.count, 0, nil) == 1 || X509_check_ip_asc(pointer, host, 0) == 1
    }

    var commonName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = X509_NAME_get_text_by_NID(X509_get_subject_name(pointer), NID_commonName, &buffer, Int32(buffer.count))
        return n > 0 ? String(decoding: buffer[..<Int(n)].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }
}

/// Runs `body` on a read-only memory BIO over `text`.
private func withMemoryBIO<T>(_ text: String, _ body: (OpaquePointer) -> T?) -> T? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { b -> T? in
        guard let bio = BIO_new_mem_buf(b.baseAddress, Int32(b.count)) else { return nil }
        defer { BIO_free(bio) }
        return body(bio)
    }
}

/// What `write` puts into a fresh memory BIO, as a string.
private func bioString(_ write: (OpaquePointer) -> Int32) -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { return "" }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { return "" }
    var data: UnsafeMutablePointer<CChar>?
    let n = cx509_bio_contents(bio, &data)
    guard n > 0, let data else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
}

/// Why TLS material could not be made or used.
public enum TLSError: Error, CustomStringConvertible {
    case openssl(String)
    case file(String, String)
    /// The TLS folder is the served repository or inside it, which would publish its keys.
    case insideRepository(folder: String, repository: String)

    public var description: String {
        switch self {
        case .openssl(let what): return "\(what) (OpenSSL: \(openSSLErrorText()))"
        case .file(let path, let why): return "\(path): \(why)"
        case .insideRepository(let folder, let repository):
            return "the TLS folder \(folder) is inside the repository \(repository), which would publish the private keys; choose a folder outside it"
        }
    }
}

private func openSSLErrorText() -> String {
    let code = ERR_get_error()
    guard code != 0 else { return "no detail" }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
