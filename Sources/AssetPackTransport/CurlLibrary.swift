import CCurl

/// libcurl's process-wide state: `curl_global_init` runs once, on first use, before any handle
/// exists (a Swift `static let` initializer runs exactly once, thread-safely).
enum CurlLibrary {
    static let initialized: Bool = curl_global_init(ccurl_global_default()) == CURLE_OK

    /// libcurl's version line, e.g. "libcurl/7.88.1 OpenSSL/3.0.11 …".
    static var version: String { String(cString: curl_version()) }
}
