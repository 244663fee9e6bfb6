/// The copies the decoders make into the destination. The wide forms may write up to 31 bytes
/// past the end of what they copy, so callers use them only with that much room left.
enum ByteCopy {
    @inline(__always)
    static func copy16(_ target: UnsafeMutableRawPointer, _ source: UnsafeRawPointer) {
        target.storeBytes(of: source.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
    }

    /// Copies `count` bytes from a region that does not overlap the target, in 16-byte steps.
    @inline(__always)
    static func wideCopy(_ target: UnsafeMutableRawPointer, _ source: UnsafeRawPointer, count: Int) {
        var done = 0
        while done < count {
            copy16(target + done, source + done)
            done &+= 16
        }
    }

    /// Copies a match of `count` bytes that starts `distance` bytes back from `target`, byte by
    /// byte in effect (a short distance repeats the bytes it has just written).
    @inline(__always)
    static func wideMatch(_ target: UnsafeMutableRawPointer, distance: Int, count: Int) {
        let source = UnsafeRawPointer(target - distance)
        if distance >= 32 && count > 32 {
            // Long matches from far enough back: 32 bytes a step.
            var done = 0
            while done < count {
                (target + done).storeBytes(of: (source + done).loadUnaligned(as: SIMD32<UInt8>.self), as: SIMD32<UInt8>.self)
                done &+= 32
            }
        } else if distance >= 16 {
            wideCopy(target, source, count: count)
        } else if distance >= 8 {
            var done = 0
            while done < count {
                (target + done).storeBytes(of: (source + done).loadUnaligned(as: UInt64.self), as: UInt64.self)
                done &+= 8
            }
        } else {
            // A short distance repeats a pattern of `distance` bytes: write its first 8 bytes one
            // by one, then copy 8 at a time from a whole number of periods back (8 to 14 bytes).
            let out = target.assumingMemoryBound(to: UInt8.self)
            var done = 0
            while done < count && done < 8 {
                out[done] = out[done &- distance]
                done &+= 1
            }
            let period = distance * ((8 + distance - 1) / distance)
            while done < count {
                (target + done).storeBytes(of: (target + done - period).loadUnaligned(as: UInt64.self), as: UInt64.self)
                done &+= 8
            }
        }
    }

    /// Copies a match of exactly `count` bytes, writing nothing beyond them.
    @inline(__always)
    static func exactMatch(_ target: UnsafeMutableRawPointer, distance: Int, count: Int) {
        let out = target.assumingMemoryBound(to: UInt8.self)
        let from = out - distance
        for index in 0..<count { out[index] = from[index] }
    }
}
