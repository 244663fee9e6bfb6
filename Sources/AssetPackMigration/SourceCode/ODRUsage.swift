/// One occurrence of an ODR API name in a source file. `live` is false inside comments and
/// string literals: the word is there, but nothing calls it.
public struct ODRAPIUse: Sendable, Equatable, Codable {
    public var file: String
    public var line: Int
    public var column: Int
    public var symbol: String
    public var live: Bool
    /// `code`, `comment` or `string`.
    public var context: String
}

/// A string literal passed as an ODR tag (to `NSBundleResourceRequest(tags:)`, `initWithTags:`,
/// `setPreservationPriority(_:forTags:)`, `preservationPriority(forTag:)`…).
public struct ODRTagRequest: Sendable, Equatable {
    public var tag: String
    public var file: String
    public var line: Int
    public var column: Int
    /// The symbol the tag was passed to.
    public var symbol: String
}

/// A call whose tags are not string literals (a variable, a function result): its tags are unknown.
public struct ODRDynamicTags: Sendable, Equatable {
    public var file: String
    public var line: Int
    public var symbol: String
}

/// What one source file holds of ODR.
public struct ODRSourceScan: Sendable {
    public var uses: [ODRAPIUse] = []
    public var tagRequests: [ODRTagRequest] = []
    public var dynamicTags: [ODRDynamicTags] = []
}
