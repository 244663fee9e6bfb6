/// Finds repeated byte strings for the LZFSE and LZVN encoders. A hash of the next four bytes
/// picks a bucket of recent positions (with their four bytes, so most false candidates are
/// dismissed without touching the input); the longest verified candidate is taken, unless the
/// next position offers a longer one; a match is then grown backwards over pending literals.
/// Long runs without a match are crossed in growing steps, so incompressible input stays fast.
struct LZMatchFinder: ~Copyable {
    /// Buckets: up to 2^15, fewer for small inputs, whose table would cost more to clear than to use.
    static let maxHashBits = 15
    static let bucketWidth = 2
    /// The shortest match worth coding.
    static let minMatch = 4
    /// A match this long is taken at once, without looking one byte further.
    static let goodMatch = 48

    /// Each bucket is one run of `bucketWidth` positions then their `bucketWidth` four-byte
    /// values, so that a probe touches one cache line.
    private let table: UnsafeMutablePointer<UInt32>
    private static var slots: Int { (1 << maxHashBits) * bucketWidth }
    private var hashShift = UInt32(32 - maxHashBits)

    init() {
        table = LZFSEBufferPool.take(Self.tableBytes).bindMemory(to: UInt32.self, capacity: 2 * Self.slots)
    }

    deinit {
        LZFSEBufferPool.give(UnsafeMutableRawPointer(table), Self.tableBytes)
    }

    private static var tableBytes: Int { 2 * slots * MemoryLayout<UInt32>.stride }

    @inline(__always)
    private func bucketOf(_ value: UInt32) -> Int {
        Int((value &* 2_654_435_761) >> hashShift) * 2 * Self.bucketWidth
    }

    @inline(__always)
    private func insert(_ position: Int, _ value: UInt32, bucket: Int) {
        let p = table + bucket, v = table + bucket + Self.bucketWidth
        var slot = Self.bucketWidth - 1
        while slot > 0 { p[slot] = p[slot - 1]; v[slot] = v[slot - 1]; slot -= 1 }
        p[0] = UInt32(truncatingIfNeeded: position)
        v[0] = value
    }

    /// The length of the common run of `input[a...]` and `input[b...]` (a < b), up to `limit` bytes.
    @inline(__always)
    private static func commonLength(_ input: UnsafePointer<UInt8>, _ a: Int, _ b: Int, limit: Int) -> Int {
        var length = 0
        let raw = UnsafeRawPointer(input)
        while length + 8 <= limit {
            let x = raw.loadUnaligned(fromByteOffset: a + length, as: UInt64.self)
                ^ raw.loadUnaligned(fromByteOffset: b + length, as: UInt64.self)
            if x != 0 { return length + x.littleEndian.trailingZeroBitCount >> 3 }
            length += 8
        }
        while length < limit && input[a + length] == input[b + length] { length += 1 }
        return length
    }

    /// The best match for `position` among the bucket's candidates and the last match's
    /// distance (which codes in fewer bits; it wins ties): (length, distance), length 0 if none.
    @inline(__always)
    private func best(_ input: UnsafePointer<UInt8>, _ position: Int, _ value: UInt32, bucket: Int,
                      end: Int, maxDistance: Int, lastDistance: Int) -> (Int, Int) {
        var bestLength = 0, bestDistance = 0
        let limit = end - position
        if lastDistance > 0 && lastDistance <= position
            && UnsafeRawPointer(input).loadUnaligned(fromByteOffset: position - lastDistance, as: UInt32.self) == value {
            bestLength = 4 + Self.commonLength(input, position - lastDistance + 4, position + 4, limit: limit - 4)
            bestDistance = lastDistance
        }
        for slot in 0..<Self.bucketWidth where table[bucket + Self.bucketWidth + slot] == value {
            let candidate = Int(Int32(bitPattern: table[bucket + slot]))
            let distance = position - candidate
            if distance <= 0 || distance > maxDistance { continue }
            let length = 4 + Self.commonLength(input, candidate + 4, position + 4, limit: limit - 4)
            if length > bestLength {
                bestLength = length
                bestDistance = distance
            }
        }
        return (bestLength, bestDistance)
    }

    /// Runs over `input[0..<count]` (count < 2^31), giving every literal run and match to `sink`.
    mutating func run<Sink: LZMatchSink & ~Copyable>(_ input: UnsafePointer<UInt8>, count: Int, into sink: inout Sink) {
        let hashBits = min(Self.maxHashBits, max(8, Int.bitWidth - count.leadingZeroBitCount - 2))
        hashShift = UInt32(32 - hashBits)
        let used = (1 << hashBits) * Self.bucketWidth
        // Empty buckets point at position -2^31, which no distance reaches.
        for bucket in stride(from: 0, to: 2 * used, by: 2 * Self.bucketWidth) {
            (table + bucket).initialize(repeating: UInt32(bitPattern: Int32.min), count: Self.bucketWidth)
            (table + bucket + Self.bucketWidth).initialize(repeating: 0, count: Self.bucketWidth)
        }
        let maxDistance = sink.maxDistance
        let raw = UnsafeRawPointer(input)
        // Matches are looked for while 8 bytes remain, so every 4-byte load is in bounds.
        let searchEnd = count - 8
        var anchor = 0
        var position = 1
        var lastDistance = 0
        while position < searchEnd {
            let value = raw.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            let bucket = bucketOf(value)
            var (length, distance) = best(input, position, value, bucket: bucket, end: count, maxDistance: maxDistance, lastDistance: lastDistance)
            insert(position, value, bucket: bucket)
            if length < Self.minMatch {
                position += 1 + (position - anchor) >> 7
                continue
            }
            // One position further may start a longer match.
            while length < Self.goodMatch && position + 1 < searchEnd {
                let nextValue = raw.loadUnaligned(fromByteOffset: position + 1, as: UInt32.self)
                let nextBucket = bucketOf(nextValue)
                let (nextLength, nextDistance) = best(input, position + 1, nextValue, bucket: nextBucket,
                                                      end: count, maxDistance: maxDistance, lastDistance: lastDistance)
                insert(position + 1, nextValue, bucket: nextBucket)
                if nextLength <= length { break }
                position += 1
                length = nextLength
                distance = nextDistance
            }
            // Grow the match backwards over the pending literals.
            while position > anchor && position - distance > 0 && input[position - 1] == input[position - distance - 1] {
                position -= 1
                length += 1
            }
            sink.match(literalStart: anchor, literalCount: position - anchor, matchLength: length, distance: distance)
            lastDistance = distance
            // Remember some positions inside the match: all of a short one, the ends of a long one
            // (the first 8 and the last 4), which find nearly every match that remembering all would.
            let matchEnd = position + length
            var inside = position + 1
            while inside < matchEnd && inside < searchEnd {
                let v = raw.loadUnaligned(fromByteOffset: inside, as: UInt32.self)
                insert(inside, v, bucket: bucketOf(v))
                inside += 1
                if inside == position + 8 && matchEnd - 4 > inside { inside = matchEnd - 4 }
            }
            position = matchEnd
            anchor = matchEnd
        }
        sink.finish(literalStart: anchor, literalCount: count - anchor)
    }
}
