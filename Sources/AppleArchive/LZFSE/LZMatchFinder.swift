/// Finds repeated byte strings for the LZFSE and LZVN encoders. A hash of the next five bytes
/// picks a bucket of recent positions (with their first four bytes, so most false candidates are
/// dismissed without touching the input); the longest verified candidate is taken at once (a
/// greedy parse: looking one byte further costs a second probe per match for a gain of about
/// 1 % in size), then grown backwards over pending literals. A new match must be at least five
/// bytes long: four bytes at a new distance take more bits to code than four literals, so only
/// the last match's distance, which codes in a few bits, takes a four-byte match. Long runs
/// without a match are crossed in growing steps, so incompressible input stays fast.
struct LZMatchFinder: ~Copyable {
    /// Buckets: up to 2^15, fewer for small inputs, whose table would cost more to clear than to use.
    static let maxHashBits = 15
    static let bucketWidth = 2
    /// The shortest match worth coding: at the last match's distance, and at any other.
    static let minMatch = 4
    static let minNewMatch = 5

    /// Each bucket is one run of `bucketWidth` positions then their `bucketWidth` four-byte
    /// values, so that a probe touches one cache line.
    private let table: UnsafeMutablePointer<UInt32>
    private static var slots: Int { (1 << maxHashBits) * bucketWidth }
    private var hashShift = UInt64(64 - maxHashBits)

    init() {
        table = LZFSEBufferPool.take(Self.tableBytes).bindMemory(to: UInt32.self, capacity: 2 * Self.slots)
    }

    deinit {
        LZFSEBufferPool.give(UnsafeMutableRawPointer(table), Self.tableBytes)
    }

    private static var tableBytes: Int { 2 * slots * MemoryLayout<UInt32>.stride }

    /// The bucket of the five bytes at `position` (eight are loaded: callers keep 8 bytes in bounds).
    @inline(__always)
    private func bucketOf(_ raw: UnsafeRawPointer, _ position: Int) -> Int {
        let five = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self) &<< 24
        return Int(truncatingIfNeeded: (five &* 0xCF1B_BCDC_B7A5_6463) &>> hashShift) * 2 * Self.bucketWidth
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
            if length > bestLength && length >= Self.minNewMatch {
                bestLength = length
                bestDistance = distance
            }
        }
        return (bestLength, bestDistance)
    }

    /// Runs over `input[0..<count]` (count < 2^31), giving every literal run and match to `sink`.
    mutating func run<Sink: LZMatchSink & ~Copyable>(_ input: UnsafePointer<UInt8>, count: Int, into sink: inout Sink) {
        let hashBits = min(Self.maxHashBits, max(8, Int.bitWidth - count.leadingZeroBitCount - 2))
        hashShift = UInt64(64 - hashBits)
        let used = (1 << hashBits) * Self.bucketWidth
        // Empty buckets point at position -2^31, which no distance reaches.
        for bucket in stride(from: 0, to: 2 * used, by: 2 * Self.bucketWidth) {
            (table + bucket).initialize(repeating: UInt32(bitPattern: Int32.min), count: Self.bucketWidth)
            (table + bucket + Self.bucketWidth).initialize(repeating: 0, count: Self.bucketWidth)
        }
        let maxDistance = sink.maxDistance
        let raw = UnsafeRawPointer(input)
        // Matches are looked for while 8 bytes remain, so every 8-byte load is in bounds.
        let searchEnd = count - 8
        var anchor = 0
        var position = 1
        var lastDistance = 0
        while position < searchEnd {
            let value = raw.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            let bucket = bucketOf(raw, position)
            var (length, distance) = best(input, position, value, bucket: bucket, end: count, maxDistance: maxDistance, lastDistance: lastDistance)
            insert(position, value, bucket: bucket)
            if length < Self.minMatch {
                position += 1 + (position - anchor) >> 7
                continue
            }
            // Grow the match backwards over the pending literals.
            while position > anchor && position - distance > 0 && input[position - 1] == input[position - distance - 1] {
                position -= 1
                length += 1
            }
            sink.match(literalStart: anchor, literalCount: position - anchor, matchLength: length, distance: distance)
            lastDistance = distance
            // Remember a few positions inside the match: the two after its start and the one before
            // its end. Each costs a random access to the table; remembering more finds matches
            // hardly more often, and the older positions they push out of the bucket are often the
            // better candidates.
            let matchEnd = position + length
            var inside = position + 1
            while inside < matchEnd && inside < searchEnd {
                let v = raw.loadUnaligned(fromByteOffset: inside, as: UInt32.self)
                insert(inside, v, bucket: bucketOf(raw, inside))
                inside += 1
                if inside == position + 3 && matchEnd - 1 > inside { inside = matchEnd - 1 }
            }
            position = matchEnd
            anchor = matchEnd
        }
        sink.finish(literalStart: anchor, literalCount: count - anchor)
    }
}
