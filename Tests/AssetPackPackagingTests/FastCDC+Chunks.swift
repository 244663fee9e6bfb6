import AssetPackPackaging
import AssetPackFormat

extension FastCDC {
    /// The chunks this chunker cuts from `data` alone, from its first byte to its last.
    func chunks(of data: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        data.withUnsafeBytes { buffer in
            while i < data.count {
                let n = cut(UnsafeRawBufferPointer(rebasing: buffer[i...]))
                out.append(Array(data[i..<i + n]))
                i += n
            }
        }
        return out
    }
}
