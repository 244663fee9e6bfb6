/// The query of a request target (`?platform=iOS&x=1`), read for the one parameter the server
/// answers to, Apple's `platform`. Pairs are split at `&` and `=`, names and values
/// percent-decoded (`+` is a space, as forms send it); a pair that does not decode is skipped,
/// as is every parameter the server does not know.
struct QueryParameters: Equatable {
    private var pairs: [(String, String)]

    /// The query of `target` (its bytes after the first `?`); empty without one.
    init(target: [UInt8]) {
        pairs = []
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else { return }
        for piece in target[(mark + 1)...].split(separator: UInt8(ascii: "&")) {
            let parts = piece.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ bytes: ArraySlice<UInt8>) -> String? {
                RepositoryRoot.percentDecoded(String(decoding: bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self))
            }
            guard let name = decoded(parts[0]), let value = decoded(parts.count > 1 ? parts[1] : []) else { continue }
            pairs.append((name, value))
        }
    }

    /// The first value of parameter `name`, nil when absent.
    func value(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    static func == (a: Self, b: Self) -> Bool { a.pairs.elementsEqual(b.pairs) { $0 == $1 } }
}
