import Foundation

/// What `stat` says about a selected source file that changes whenever its bytes or its mode
/// do: device and inode (a file replaced by rename), type and permission bits, size, and the
/// modification and status-change times to the nanosecond. Writing to a file sets its ctime to
/// the current time, and no ordinary call can set it back, so an edit that keeps the size and
/// restores the mtime still shows.
struct FileStamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var mode: UInt32
    var size: UInt64
    var modified: Timestamp
    var changed: Timestamp

    /// A time as the kernel keeps it: seconds and nanoseconds since 1970.
    struct Timestamp: Equatable, Comparable {
        var seconds: Int64
        var nanoseconds: Int64

        init(_ t: timespec) {
            seconds = Int64(t.tv_sec)
            nanoseconds = Int64(t.tv_nsec)
        }

        static func < (a: Self, b: Self) -> Bool { (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds) }

        init(seconds: Int64, nanoseconds: Int64) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }

        /// The clock file systems stamp files with: the coarse real-time clock (updated once per
        /// timer tick).
        static func fileSystemNow() -> Timestamp {
            var t = timespec()
            clock_gettime(CLOCK_REALTIME_COARSE, &t)
            return Timestamp(t)
        }

        /// The newest ctime a file may have, when `now` was read before stat'ing it, for its
        /// stamp to be trusted: a file changed later could change again without its times
        /// moving (they have the granularity of the file system: a clock tick on ext4, XFS,
        /// Btrfs and tmpfs, one second on some, two on FAT). Anything changed in the last
        /// whole second before `now`, or since, is too recent; so stamps with a granularity of
        /// up to two seconds are safe.
        static func settledBefore(_ now: Timestamp) -> Timestamp { Timestamp(seconds: now.seconds - 1, nanoseconds: 0) }
    }

    /// Stats `path` (following symlinks, as the packager reads through them); nil if it fails.
    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        self.init(st)
    }

    /// Stats the open file `fd`; nil if it fails.
    init?(descriptor fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        self.init(st)
    }

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        mode = UInt32(st.st_mode)
        size = UInt64(st.st_size)
        modified = Timestamp(st.st_mtim)
        changed = Timestamp(st.st_ctim)
    }

    /// The fields in the order and spelling the cache key hashes them (docs/FORMAT.md).
    var keyText: String {
        var bytes: [UInt8] = []
        appendKeyText(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// 64 bits that change whenever a field does: what a publish keeps of each file's stamp to
    /// tell after packaging whether the file changed (in a `StampRecord`: 2 bytes a file and
    /// one sum, where the stamp takes 48).
    /// A change that kept the digest would need a ctime chosen by the writer, which no ordinary
    /// call can set.
    var digest: UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        func mix(_ v: UInt64) {
            h = (h ^ v) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 33
        }
        mix(device)
        mix(inode)
        mix(UInt64(mode))
        mix(size)
        mix(UInt64(bitPattern: modified.seconds))
        mix(UInt64(bitPattern: modified.nanoseconds))
        mix(UInt64(bitPattern: changed.seconds))
        mix(UInt64(bitPattern: changed.nanoseconds))
        return h
    }

    /// Appends `keyText` to `bytes`: mode, size, modification and status-change times (seconds,
    /// a dot, nanoseconds), inode and device, in decimal, separated by spaces.
    func appendKeyText(to bytes: inout [UInt8]) {
        bytes.appendDecimal(UInt64(mode))
        bytes.append(0x20)
        bytes.appendDecimal(size)
        for t in [modified, changed] {
            bytes.append(0x20)
            bytes.appendDecimal(t.seconds)
            bytes.append(0x2E)
            bytes.appendDecimal(t.nanoseconds)
        }
        bytes.append(0x20)
        bytes.appendDecimal(inode)
        bytes.append(0x20)
        bytes.appendDecimal(device)
    }
}

extension [UInt8] {
    /// Appends `value` in decimal ASCII, as `"\(value)"` spells it.
    mutating func appendDecimal(_ value: UInt64) {
        var length = 1
        var rest = value / 10
        while rest > 0 { length += 1; rest /= 10 }
        let end = count + length
        append(contentsOf: repeatElement(0x30, count: length))
        var v = value
        for i in stride(from: end - 1, through: end - length, by: -1) {
            self[i] = UInt8(truncatingIfNeeded: v % 10) + 0x30
            v /= 10
        }
    }

    /// Appends `value` in decimal ASCII, a minus sign first when it is negative.
    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { append(0x2D) }
        appendDecimal(value.magnitude)
    }
}
