import AssetPackTransport
import Foundation

/// Which hosts the client may download from, as Apple's BADownloadDomainAllowList: `example.com`
/// matches that host only; `*.example.com` matches its subdomains (`cdn.example.com`,
/// `a.b.example.com`) but not `example.com` itself. An empty list allows every host.
public struct DomainAllowList: Sendable, Equatable {
    /// The host patterns, lowercased.
    public var patterns: [String]

    /// A list of these patterns (`example.com`, `*.example.com`); case does not matter.
    public init(_ patterns: [String]) { self.patterns = patterns.map { $0.lowercased() } }

    /// Whether downloads may come from `host` (any case; an IPv6 literal with or without
    /// brackets).
    public func allows(host: String) -> Bool {
        guard !patterns.isEmpty else { return true }
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return patterns.contains { pattern in
            if pattern.hasPrefix("*.") {
                let suffix = String(pattern.dropFirst(1))   // ".example.com"
                return host.hasSuffix(suffix) && host.count > suffix.count
            }
            return host == pattern
        }
    }

    /// Returns when `url` has a host and it is allowed, or is a `file://` URL (a repository
    /// folder has no host; the list governs the network, and no redirect leads to a file);
    /// otherwise throws `invalidConfiguration` (no host) or `domainNotAllowed` naming the host.
    public func check(_ url: String) throws(AssetPackManagerError) {
        if url.lowercased().hasPrefix("file:") {
            guard FileTransport.path(of: url) != nil else { throw .invalidConfiguration("\(url) is not a file:// URL with an absolute path") }
            return
        }
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else {
            throw .invalidConfiguration("\(url) is not an http(s) URL with a host")
        }
        guard allows(host: host) else { throw .domainNotAllowed(host: host, url: url) }
    }
}
