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

/// The paths of a pack's files, read from its decoded index: all of them, or those at `only`.
struct PackPaths: BoundTexts {
    let files: PackFiles
    var only: [Int]? = nil

    var count: Int { only?.count ?? files.count }

    func withText<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try files.withPath(at: only?[i] ?? i) { bytes in try body(bytes) }
    }

    /// The paths of `old` (in pack order, byte-wise, as every index is) that `new` does not
    /// hold, found by walking both side by side. `new` is expected in the same order; out of
    /// order, a path both hold may be counted as dropped, never the other way round.
    static func dropped(from old: PackFiles, keeping new: some BoundTexts) -> PackPaths {
        var gone: [Int] = []
        var n = 0
        old.forEachPath { o, b in
            func order() -> Int { new.withText(n) { a in PackPath.compare(a, b) } }
            while n < new.count && order() < 0 { n += 1 }
            if n == new.count || order() != 0 { gone.append(o) }
            return true
        }
        return PackPaths(files: old, only: gone)
    }
}
