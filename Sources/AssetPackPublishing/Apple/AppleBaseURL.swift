import Foundation

/// The `--apple-base-url` of a publish: where the Apple Archives are downloaded from. A pack's
/// URL in the download manifest is this, `/`, and the pack ID (as `ba-package download-manifest
/// create --download-base-url` makes it).
public enum AppleBaseURL {
    /// The base URL as the manifest uses it (a trailing `/` dropped), or why it cannot be one:
    /// an `https` or `http` URL with a host, and no query, fragment, user name or password
    /// (the manifest is public), spaces or control characters.
    public static func checked(_ text: String) -> Result<String, Problem> {
        func no(_ why: String) -> Result<String, Problem> { .failure(Problem(value: text, reason: why)) }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0 == "\"" || $0 == "\\" }) else {
            return no("it holds a space, a control character, a quote or a backslash")
        }
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased() else { return no("it is not a URL") }
        guard scheme == "https" || scheme == "http" else { return no("the scheme must be https (or http for a test host), not \(scheme)") }
        guard let host = c.host, !host.isEmpty else { return no("it names no host") }
        guard c.query == nil, !text.contains("?") else { return no("it has a query ('?'): the pack ID is appended to the path") }
        guard c.fragment == nil, !text.contains("#") else { return no("it has a fragment ('#'): the pack ID is appended to the path") }
        guard c.user == nil, c.password == nil else { return no("it holds a user name or password, which the public manifest would publish") }
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        guard base.count > scheme.count + 3 else { return no("it names no host") }
        return .success(base)
    }

    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var value: String
        public var reason: String
        public var description: String { "\"\(value)\" is not a base URL for the Apple download manifest: \(reason)" }
    }
}
