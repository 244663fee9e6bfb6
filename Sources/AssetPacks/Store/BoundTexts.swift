import AssetPackFormat

/// Texts a statement binds one after another, each lent as its UTF-8 bytes in place: a pack's
/// paths go into the store without a string made for each.
package protocol BoundTexts {
    var count: Int { get }
    func withText<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R
}

extension Array: BoundTexts where Element == String {
    package func withText<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        var text = self[i]
        return try text.withUTF8(body)
    }
}

/// The paths of a pack's files, read from its decoded index.
struct PackPaths: BoundTexts {
    let files: [FileEntry]

    var count: Int { files.count }

    func withText<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try files[i].withPathBytes { bytes in try body(bytes) }
    }
}
