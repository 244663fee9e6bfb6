import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// A TLS identity's PEM text as C strings for libmicrohttpd, which keeps the pointers for the
/// daemon's whole life: made before the daemon starts, released only after it has stopped.
final class DaemonPEMText {
    let key: UnsafeMutablePointer<CChar>?
    let certificate: UnsafeMutablePointer<CChar>?

    init(_ identity: TLSIdentity) {
        key = strdup(identity.privateKeyPEM)
        certificate = strdup(identity.certificatePEM)
    }

    deinit {
        free(key)
        free(certificate)
    }
}

extension cmhd_config {
    /// What both servers start libmicrohttpd with: a thread per connection over poll, errors
    /// logged, on the already bound `listenSocket`, with TLS when `pem` is given.
    static func threadPerConnection(listenSocket: Int32, pem: DaemonPEMText?) -> cmhd_config {
        var flags = UInt32(MHD_USE_ERROR_LOG.rawValue) | UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue)
            | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_POLL.rawValue)
        if pem != nil { flags |= UInt32(MHD_USE_TLS.rawValue) }
        var c = cmhd_config()
        c.flags = flags
        c.listen_socket = listenSocket
        c.https_mem_key = UnsafePointer(pem?.key)
        c.https_mem_cert = UnsafePointer(pem?.certificate)
        return c
    }
}
