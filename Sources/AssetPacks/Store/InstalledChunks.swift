import AssetPackFormat
import Foundation

/// The chunks of a root's installed packs that the current signed catalog lists (same ID, same
/// pack digest), by SHA-256: what an agent run with `--share` serves to LAN peers. A chunk is
/// read from the installed files as they stand and returned only if it still hashes to its
/// digest, or if every file it comes from has a change time before the install's commit (the
/// installer verified those bytes, and nothing has written them since), so bytes changed on
/// disk since the install are never passed on. A snapshot: packs
/// installed, updated or removed later are seen by the next one (`AssetPackManager.installedChunks()`).
package final class InstalledChunks: Sendable {
    fileprivate struct Location: Sendable {
        var pack: Int
        var sequence: Int
    }

    private let readers: [ContentStreamReader]
    private let locations: [SHA256Digest: Location]

    /// Distinct chunks known.
    package var count: Int { locations.count }

    fileprivate init(readers: [ContentStreamReader], locations: [SHA256Digest: Location]) {
        self.readers = readers
        self.locations = locations
    }

    /// Whether `digest` is a chunk of a listed installed pack (its bytes not yet read).
    package func contains(_ digest: SHA256Digest) -> Bool { locations[digest] != nil }

    /// The chunk's bytes, read now and verified against `digest`; nil when no listed pack has it,
    /// or its bytes on disk are missing or no longer hash to it.
    package func verifiedChunk(_ digest: SHA256Digest) -> [UInt8]? {
        guard let at = locations[digest] else { return nil }
        return readers[at.pack].verifiedChunk(atSequence: at.sequence)
    }

    /// The size of chunk `digest`, if a listed pack has it.
    package func size(of digest: SHA256Digest) -> Int? {
        guard let at = locations[digest] else { return nil }
        let index = readers[at.pack].index
        return Int(index.chunks[Int(index.sequence[at.sequence])].uncompressedSize)
    }

    /// Reads chunk `digest` into `buffer` (`size(of:)` bytes) and verifies it; false when no
    /// listed pack has it, or its bytes on disk are missing or no longer hash to it. For a
    /// server that hands the buffer on without copying it.
    package func readVerifiedChunk(_ digest: SHA256Digest, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let at = locations[digest] else { return false }
        return readers[at.pack].readVerifiedChunk(atSequence: at.sequence, into: buffer)
    }

    /// Chunk `digest` as an open descriptor (the caller closes it) and the range of the file it
    /// fills, when it lies within one installed file unchanged since its verified install; nil
    /// otherwise (`readVerifiedChunk` then reads and, where needed, hashes it).
    package func unchangedChunkFile(_ digest: SHA256Digest) -> (fd: Int32, offset: UInt64, length: Int)? {
        guard let at = locations[digest] else { return nil }
        return readers[at.pack].unchangedChunkFile(atSequence: at.sequence)
    }

    fileprivate static func build(installed: [InstalledPack], catalog: Catalog, root: ConfinedDirectory, layout: StorageLayout) -> InstalledChunks {
        var readers: [ContentStreamReader] = []
        var locations: [SHA256Digest: Location] = [:]
        for p in installed where catalog.packs.contains(where: { $0.id == p.id && $0.digest == p.digest }) {
            guard let index = try? PackIndex.decode(p.indexBytes, indexOffset: p.indexOffset),
                  let path = try? layout.checkedInstallDirectory(p.directory, id: p.id),
                  let directory = try? root.directory(path) else { continue }
            let k = readers.count
            readers.append(ContentStreamReader(index: index, directory: directory, verifiedBefore: p.committedChangeTime))
            for (s, c) in index.sequence.enumerated() where locations[index.chunks[Int(c)].digest] == nil {
                locations[index.chunks[Int(c)].digest] = Location(pack: k, sequence: s)
            }
        }
        return InstalledChunks(readers: readers, locations: locations)
    }
}

extension AssetPackManager {
    /// The chunks of the installed packs the current catalog lists (fetched again when older than
    /// `catalogMaxAge`; offline, the last accepted one while it is valid). For the agent's
    /// `--share` server; an in-process manager only.
    package func installedChunks() async throws -> InstalledChunks {
        guard agent == nil else { throw AssetPackManagerError.invalidConfiguration("a manager working through the agent shares nothing itself") }
        let catalog = try await currentCatalog()
        return InstalledChunks.build(installed: try store.installedPacks(), catalog: catalog, root: root, layout: layout)
    }
}
