/// The one seeded generator of the tests (SplitMix64): the same seed gives the same numbers on
/// every run and platform, so tests need no fixtures and a failure reproduces.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` incompressible bytes from `seed`: any slice is distinguishable from any other, and
/// other seeds give other bytes.
public func patternBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    var out = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        var word = generator.next()
        for _ in 0..<min(8, count - i) {
            out[i] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            i += 1
        }
    }
    return out
}

/// `count` bytes of compressible text (words from a small vocabulary, spaces and line breaks)
/// from `seed`.
public func textBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    let words = ["asset", "pack", "chunk", "delta", "zstd", "manifest", "level", "voice", "model", "texture"]
    var generator = SeededGenerator(seed: seed)
    var out: [UInt8] = []
    out.reserveCapacity(count + 16)
    while out.count < count {
        let n = generator.next()
        out += Array(words[Int(n % UInt64(words.count))].utf8) + [n % 11 == 0 ? 10 : 32]
    }
    return Array(out.prefix(count))
}

/// Readable text as bytes: `s`, `n` times over.
public func text(_ s: String, repeating n: Int = 1) -> [UInt8] { Array(String(repeating: s, count: n).utf8) }
