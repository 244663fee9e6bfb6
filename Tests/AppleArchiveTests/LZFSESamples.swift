import TestSupport

/// Content of several kinds for the LZFSE tests, from a seed: what asset packs hold (text, JSON,
/// binary tables, already-compressed data) and the edge cases (zeros, one repeated pattern).
enum LZFSESamples {
    enum Kind: String, CaseIterable {
        case zeros, random, text, json, binary, repetitive, mixed
    }

    static func bytes(_ kind: Kind, count: Int, seed: UInt64) -> [UInt8] {
        switch kind {
        case .zeros: return [UInt8](repeating: 0, count: count)
        case .random: return patternBytes(count, seed: seed)
        case .text: return textBytes(count, seed: seed)
        case .json: return json(count, seed: seed)
        case .binary: return binary(count, seed: seed)
        case .repetitive: return repetitive(count, seed: seed)
        case .mixed: return mixed(count, seed: seed)
        }
    }

    /// Records of a JSON catalog: keys repeat, values vary.
    private static func json(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var out: [UInt8] = Array("[\n".utf8)
        var index = 0
        while out.count < count {
            let n = generator.next()
            let record = "  {\"id\": \"pack-\(index)\", \"size\": \(n % 10_000_000), \"digest\": \"\(String(n, radix: 16))\", "
                + "\"tags\": [\"level\(n % 40)\", \"voice\"], \"optional\": \(n % 3 == 0)},\n"
            out += Array(record.utf8)
            index += 1
        }
        return Array(out.prefix(count))
    }

    /// A table of little-endian records: slowly rising integers, small flags, noisy floats.
    private static func binary(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(count + 16)
        var value: UInt32 = 1000
        while out.count < count {
            let n = generator.next()
            value &+= UInt32(n % 64)
            withUnsafeBytes(of: value.littleEndian) { out += $0 }
            out += [UInt8(n >> 8 & 3), 0, 0, 1]
            withUnsafeBytes(of: Float(Double(n % 100_000) / 7).bitPattern.littleEndian) { out += $0 }
        }
        return Array(out.prefix(count))
    }

    /// One 300-byte pattern over and over with a byte changed now and then.
    private static func repetitive(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        let pattern = patternBytes(300, seed: seed &+ 1)
        var out = [UInt8](repeating: 0, count: count)
        for index in 0..<count { out[index] = pattern[index % pattern.count] }
        for _ in 0..<(count / 1000) { out[Int(generator.next() % UInt64(count))] = UInt8(truncatingIfNeeded: generator.next()) }
        return out
    }

    /// Runs of text, JSON, binary and random bytes of a few KiB each.
    private static func mixed(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var out: [UInt8] = []
        var part: UInt64 = 0
        while out.count < count {
            let n = generator.next()
            let length = 1024 + Int(n % 16384)
            let kinds: [Kind] = [.text, .json, .binary, .random, .text, .binary]
            out += bytes(kinds[Int(n >> 20) % kinds.count], count: length, seed: seed &+ part)
            part += 1
        }
        return Array(out.prefix(count))
    }
}
