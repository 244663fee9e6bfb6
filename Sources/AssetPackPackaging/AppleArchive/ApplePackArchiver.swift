import AppleArchive
import AssetPackFormat
import Foundation

// TEMPORARY: the contract's surface only, so that publish compiles until the real archiver
// (branch aarw) is merged; this file is replaced by that branch's file of the same name.
public struct ApplePackArchiveSummary: Sendable {
    public let entryCount: Int
    public let archiveSize: Int64
    public let contentSize: Int64
}

public struct ApplePackArchiver: Sendable {
    public var compression: AppleArchiveCompression
    public var blockSize: Int
    public var threads: Int

    public init(compression: AppleArchiveCompression = .lzfse, blockSize: Int = 4 << 20, threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.compression = compression
        self.blockSize = blockSize
        self.threads = threads
    }

    public func write(manifestAt manifestPath: String, to path: String) throws -> ApplePackArchiveSummary {
        try write(ResolvedManifest(path: manifestPath), to: path)
    }

    public func write(_ manifest: ResolvedManifest, to path: String) throws -> ApplePackArchiveSummary {
        var bytes: [UInt8] = []
        var content: Int64 = 0
        for file in manifest.files {
            bytes += Array("Contents/\(file.packPath)\n".utf8)
            let data = FileManager.default.contents(atPath: file.sourcePath) ?? Data()
            bytes += data
            content += Int64(data.count)
        }
        let file = try AtomicFile(destination: path)
        try file.write(bytes)
        try file.commit()
        return ApplePackArchiveSummary(entryCount: manifest.files.count, archiveSize: Int64(bytes.count), contentSize: content)
    }
}
