import AppleArchive

/// The LZFSE codec as `pbze` chunks use it. The input is decoded as a stream into a bounded
/// destination: any answer but a throw or a count within the destination is a bug. Then the
/// input is encoded and decoded again, which must give it back exactly.
enum LZFSEFuzzTarget {
    static let destinationSize = 256 << 10

    static func run(_ bytes: [UInt8]) {
        var destination = [UInt8](repeating: 0, count: destinationSize)
        let written = try? bytes.withUnsafeBytes { source in
            try destination.withUnsafeMutableBytes { try LZFSE.decode(source, into: $0) }
        }
        if let written { precondition(written <= destinationSize, "decoded \(written) bytes into \(destinationSize)") }

        let stream = bytes.withUnsafeBytes { LZFSE.encode($0) }
        var back = [UInt8](repeating: 0, count: bytes.count)
        let count = try? stream.withUnsafeBytes { source in
            try back.withUnsafeMutableBytes { try LZFSE.decode(source, into: $0) }
        }
        precondition(count == bytes.count && back == bytes, "the encoded input did not decode to itself")
    }
}
