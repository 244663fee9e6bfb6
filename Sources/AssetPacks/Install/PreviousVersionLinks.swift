import AssetPackFormat
import Foundation

/// Hard links of the installed previous version's files into the folder an update assembles the
/// new version in, by path: a file whose bytes did not change is never written again.
///
/// Files come in path order, so most follow one of their folder: the folder of the last link is
/// held open in both trees and the next file is linked by its name alone (at a few hundred
/// thousand files, a walk of each whole path in both trees was most of an update's time).
struct PreviousVersionLinks {
    /// The installed previous version's folder.
    let from: ConfinedDirectory
    /// The folder the new version is assembled in.
    let to: ConfinedDirectory
    private var held: (folder: String, from: ConfinedDirectory, to: ConfinedDirectory)?

    init(from: ConfinedDirectory, to: ConfinedDirectory) {
        self.from = from
        self.to = to
    }

    /// The folder of `path` in both trees, open (created in the new one), and its name.
    mutating func place(of path: String) throws -> (from: ConfinedDirectory, to: ConfinedDirectory, name: String) {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(path[..<$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        if held?.folder != folder {
            held = nil
            held = (folder, try from.directory(folder), try to.directory(folder, create: true))
        }
        return (held!.from, held!.to, name)
    }

    /// Links each file that lies whole in a chunk the update made from a patch (`bytes`, at
    /// stream offset `offset` of `index`) and holds there the very bytes of the previous
    /// version's file of the same path, size and mode, found whole in the patch's base (`base`:
    /// the previous version's stream from `baseOffset`, as read from the installed files).
    ///
    /// Small files share chunks, so one edited file changes a chunk of hundreds: the others are
    /// linked here instead of written. An installed file is linked only when its change time,
    /// taken just before the link, is earlier than `verifiedBefore` (its install's commit): then
    /// nothing has written it since its bytes were verified, and those are the bytes its part of
    /// the base held. Empty files and those in `skipping` are left alone, as is any file that
    /// cannot be linked (it is written). Returns the files linked.
    mutating func linkUnchangedFiles(inChunk bytes: UnsafeRawBufferPointer, at offset: UInt64, of index: PackIndex,
                                     previous: PackIndex, base: UnsafeRawBufferPointer, baseOffset: UInt64,
                                     verifiedBefore: Int64, skipping: (Int) -> Bool) -> [Int] {
        guard verifiedBefore > 0, !bytes.isEmpty, var f = index.file(containing: offset) else { return [] }
        // A file that began in an earlier chunk is not whole in this one.
        if index.fileOffsets[f] < offset { f += 1 }
        let end = offset + UInt64(bytes.count)
        var linked: [Int] = []
        while f < index.files.count, index.files.end(at: f) <= end {
            defer { f += 1 }
            guard index.files.size(at: f) > 0, !skipping(f) else { continue }
            let file = index.files[f], start = index.files.offset(at: f)
            guard let o = previous.fileIndex(of: file.path) else { continue }
            let old = previous.files[o], oldStart = previous.files.offset(at: o)
            guard old.size == file.size, old.mode == file.mode, oldStart >= baseOffset,
                  oldStart - baseOffset <= UInt64(base.count), file.size <= UInt64(base.count) - (oldStart - baseOffset),
                  memcmp(bytes.baseAddress! + Int(start - offset), base.baseAddress! + Int(oldStart - baseOffset), Int(file.size)) == 0
            else { continue }
            do {
                let (from, to, name) = try place(of: file.path)
                let size = file.size
                if try from.link(name, to: name, in: to, if: { st in
                    UInt64(st.st_size) == size && ContentStreamReader.isUnchanged(st, since: verifiedBefore)
                }) {
                    linked.append(f)
                }
            } catch {
                // Something is already at its place (a resumed run's file), or the link was
                // refused: the file is written.
                continue
            }
        }
        return linked
    }
}
