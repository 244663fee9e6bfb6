@testable import AssetPackAgent
import AssetPackFormat
import Foundation
import Testing

/// What the share keeps of the chunks it verified lately (`RecentChunks`): at most its
/// capacity, the least recently used dropped first, nothing verified longer ago than its lifetime.
@Suite struct RecentChunksTests {
    /// A chunk of `size` bytes of `byte`, in memory from malloc as the share reads them, and its digest.
    func chunk(_ size: Int, _ byte: UInt8) -> (SHA256Digest, RecentChunks.Buffer) {
        let memory = UnsafeMutableRawBufferPointer(start: malloc(size), count: size)
        memory.initializeMemory(as: UInt8.self, repeating: byte)
        return (SHA256Digest.hash(UnsafeRawBufferPointer(memory)), RecentChunks.Buffer(taking: memory))
    }

    @Test func keepsWithinItsCapacityDroppingTheLeastRecentlyUsed() {
        let recent = RecentChunks(capacity: 300, lifetime: .seconds(3600))
        let (a, bufferA) = chunk(100, 1), (b, bufferB) = chunk(100, 2), (c, bufferC) = chunk(100, 3), (d, bufferD) = chunk(100, 4)
        recent.keep(bufferA, for: a)
        recent.keep(bufferB, for: b)
        recent.keep(bufferC, for: c)
        #expect(recent.heldBytes == 300)
        #expect(recent.buffer(for: a) === bufferA)  // a is now the most recently used
        recent.keep(bufferD, for: d)
        #expect(recent.heldBytes == 300)
        #expect(recent.buffer(for: b) == nil)
        #expect(recent.buffer(for: a) === bufferA && recent.buffer(for: c) === bufferC && recent.buffer(for: d) === bufferD)
        // A chunk larger than the whole capacity is not kept, and drops nothing.
        let (e, bufferE) = chunk(301, 5)
        recent.keep(bufferE, for: e)
        #expect(recent.buffer(for: e) == nil && recent.heldBytes == 300)
        recent.removeAll()
        #expect(recent.heldBytes == 0 && recent.buffer(for: a) == nil)
    }

    @Test func servesNothingPastItsLifetime() {
        let recent = RecentChunks(capacity: 1 << 20, lifetime: .zero)
        let (a, bufferA) = chunk(100, 1)
        recent.keep(bufferA, for: a)
        #expect(recent.buffer(for: a) == nil)
    }
}
