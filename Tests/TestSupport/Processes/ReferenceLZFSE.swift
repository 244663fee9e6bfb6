import Foundation

/// The reference LZFSE implementation (lzfse/lzfse, through its Python binding `liblzfse`, which
/// scripts/install-deps.sh installs) as an oracle: one python3 process per call handles a whole
/// batch of buffers.
public enum ReferenceLZFSE {
    /// Each buffer compressed by the reference encoder.
    public static func compress(_ buffers: [[UInt8]]) throws -> [[UInt8]] { try run("compress", buffers) }

    /// Each LZFSE stream decompressed by the reference decoder.
    public static func decompress(_ streams: [[UInt8]]) throws -> [[UInt8]] { try run("decompress", streams) }

    private static let script = """
    import liblzfse, sys, os
    mode, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(count):
        with open(os.path.join(folder, "in%d" % i), "rb") as f:
            data = f.read()
        result = liblzfse.compress(data) if mode == "compress" else liblzfse.decompress(data)
        with open(os.path.join(folder, "out%d" % i), "wb") as f:
            f.write(result)
    """

    private static func run(_ mode: String, _ buffers: [[UInt8]]) throws -> [[UInt8]] {
        let files = try TemporaryDirectory("lzfse-oracle")
        defer { files.remove() }
        for (index, buffer) in buffers.enumerated() { _ = try files.write("in\(index)", buffer) }
        let result = try ChildProcess.runBlocking("/usr/bin/env", ["python3", "-c", script, mode, files.path, String(buffers.count)])
        guard result.status == 0 else { throw TestSupportError("liblzfse \(mode) failed: \(result.stderr)") }
        return try buffers.indices.map { index in
            guard let bytes = files.contents("out\(index)") else { throw TestSupportError("liblzfse wrote no out\(index)") }
            return bytes
        }
    }
}
