/// How LZFSE codes the three numbers of each match: its literal count L, its match length M and
/// its distance D. Each value belongs to a class (the FSE-coded symbol); the class has a base and
/// a number of extra bits that are written raw and added to the base. These tables are part of
/// the format.
enum LZFSEValueClasses {
    static let literalLengthClassCount = 20
    static let matchLengthClassCount = 20
    static let distanceClassCount = 64

    /// The largest value each field can carry in one match.
    static let maxLiteralLength = 315
    static let maxMatchLength = 2359
    static let maxDistance = 262_139

    static let literalLengthExtraBits: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 5, 8]
    static let literalLengthBase: [Int32] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 28, 60]
    static let matchLengthExtraBits: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 5, 8, 11]
    static let matchLengthBase: [Int32] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 56, 312]
    /// Distances: classes come in fours, the extra bits growing by one every four classes.
    static let distanceExtraBits: [UInt8] = (0..<64).map { UInt8($0 / 4) }
    static let distanceBase: [Int32] = [
        0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 28, 36, 44, 52,
        60, 76, 92, 108, 124, 156, 188, 220, 252, 316, 380, 444, 508, 636, 764, 892,
        1020, 1276, 1532, 1788, 2044, 2556, 3068, 3580, 4092, 5116, 6140, 7164, 8188, 10236, 12284, 14332,
        16380, 20476, 24572, 28668, 32764, 40956, 49148, 57340, 65532, 81916, 98300, 114684, 131068, 163836, 196604, 229372,
    ]

    /// The class of a literal count in 0...315.
    @inline(__always)
    static func literalLengthClass(_ value: Int) -> Int {
        if value < 16 { return value }
        if value < 20 { return 16 }
        if value < 28 { return 17 }
        if value < 60 { return 18 }
        return 19
    }

    /// The class of a match length in 0...2359.
    @inline(__always)
    static func matchLengthClass(_ value: Int) -> Int {
        if value < 16 { return value }
        if value < 24 { return 16 }
        if value < 56 { return 17 }
        if value < 312 { return 18 }
        return 19
    }

    /// The class of a distance in 0...262139: with v = value + 4 and e its bit length less three,
    /// the class is 4e plus the two bits of v below its top bit.
    @inline(__always)
    static func distanceClass(_ value: Int) -> Int {
        let shifted = UInt32(truncatingIfNeeded: value + 4)
        let extra = 32 - shifted.leadingZeroBitCount - 3
        return 4 * extra + Int(shifted >> UInt32(extra)) - 4
    }
}
